"""tapekit.widgets.inspector: the NodeInspector's dropdown and check button, a check of another
node selecting it first, and its picture of the selected node."""
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
from tapekit.widgets import NodeInspector  # noqa: E402
from tapekit.widgets import inspector as inspector_module  # noqa: E402

from .shared import chain_tape, mlp_tape, png, scalar_tape  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_widgets")   # recording on; widgets closed after


def test_node_inspector_dropdown_and_check_button():
    tape, y, x, w = scalar_tape()
    insp = NodeInspector(tape, y)
    assert [v for _, v in insp.dropdown.options] == ["s0", "s1", "n0", "n1", "n2"]
    assert insp.dropdown.options[2][0] == "n0: multiply"
    insp.dropdown.value = "s1"
    assert "<code>w:0</code>" in insp.details.value and "<code>1.9203</code>" in insp.details.value
    assert insp.result.outputs == ()
    insp.check_button.click()
    (out,) = insp.result.outputs
    assert out["text"].startswith("s1: OK. tape gradient 1.9203; central differences 1.9203")
    insp.select("n1")
    assert insp.result.outputs == () and "<code>sin</code>" in insp.details.value
    assert insp.check().ok
    assert insp._repr_mimebundle_()["text/plain"].startswith("NodeInspector (5 nodes)\nn1: sin")


def test_inspector_check_of_another_node_selects_it():
    # lesson 12 runs `for node_id in ["s0", "s1", "n1", "n3"]: print(inspector.check(node_id))`
    # after displaying the inspector on s0; Run All then showed s0's details beside n3's check.
    tape, loss = mlp_tape()
    insp = NodeInspector(tape, loss)
    assert insp.selected == "s0"
    for node_id in ["s0", "s1", "n1", "n3"]:
        result = insp.check(node_id)
        assert result.ok and result.input == node_id
        assert insp.selected == node_id == insp.dropdown.value
        (out,) = insp.result.outputs
        assert out["text"].startswith(f"{node_id}: OK.")
    assert "<code>subtract</code>" in insp.details.value and "d n5 / d n3" in insp.details.value
    text = insp._repr_mimebundle_()["text/plain"]
    assert text.startswith("NodeInspector (9 nodes)\nn3: subtract (op)")
    assert "\ncheck: n3: OK." in text
    # choosing another node drops the old result: it would be about the wrong node
    insp.select("s1")
    assert insp.result.outputs == () and insp.last_check is None
    assert "check:" not in insp.text()


def test_inspector_picture_is_of_the_selected_node():
    tape, loss = mlp_tape()
    insp = NodeInspector(tape, loss)
    p0 = png(insp._repr_mimebundle_())
    insp.check("n3")
    p3 = png(insp._repr_mimebundle_())
    assert p3 != p0
    insp.select("s0")
    assert png(insp._repr_mimebundle_()) == p0


def test_a_long_tapes_chooser_lists_a_bounded_selection_and_finds_the_rest():
    # 100,000 records gave the dropdown 100,003 options (20 s at 20,000 records)
    tape, loss, sources = chain_tape(1000)
    insp = NodeInspector(tape, loss, sources)
    options = [v for _, v in insp.dropdown.options]
    assert len(options) == NodeInspector.MAX_OPTIONS == 200
    assert options[:3] == ["s0", "s1", "s2"] and options[-1] == "n999"   # the leaves, ..., the target
    assert insp.found.value.count("200 of 1,003 nodes listed")
    insp.search.value = "n77"                           # what typing in the search box does
    assert [v for _, v in insp.dropdown.options][:3] == ["s0", "n77", "n770"]   # the selection stays
    assert "11 matching nodes" in insp.found.value and insp.selected == "s0"
    assert len(insp.find("tanh")) == 200 and "199 of 333 matching nodes listed" in insp.found.value
    insp.select("n901")                                 # any node, listed or not
    assert insp.selected == "n901" and "<code>add</code>" in insp.details.value
    assert insp.check("n5").ok and insp.selected == "n5"
    assert insp.model._graph is None                    # no Node was made for every record


def test_the_picture_of_a_long_tape_is_its_summary_with_the_box_of_the_node_marked(monkeypatch):
    tape, loss, sources = chain_tape(1000)
    insp = NodeInspector(tape, loss, sources)
    drawn = {}

    def to_digraph(model, **kw):
        drawn.update(nodes=len(model.nodes), highlight=kw["highlight"])
        return real(model, **kw)
    real = inspector_module._dot.to_digraph
    monkeypatch.setattr(inspector_module._dot, "to_digraph", to_digraph)
    insp.select("n500")
    png(insp._repr_mimebundle_())
    assert drawn == {"nodes": 4, "highlight": "b0"}     # was all 1,003 nodes, laid out by dot


def test_the_inspector_says_the_node_chosen_and_the_check():
    """Issue 46: the live region says each node chosen and each check; the picture's words say
    which node is selected and its numbers."""
    tape, y, x, w = scalar_tape()                # y = sin(x * w) + x at x = 2, w = 3
    insp = NodeInspector(tape, y)
    assert insp.live.text == "s0: x:0; value 2.0; gradient 3.8805."      # 1 + 3 cos 6
    insp.select("n1")
    assert insp.live.text == "n1: sin of n0; value -0.2794; gradient 1.0."   # sin 6
    insp.check()
    assert insp.live.text.startswith("n1: OK. tape gradient 1.0; central differences 1.0")
    words = insp.describe()
    assert words.name == "The tape's graph with node n1 (sin) selected: value -0.2794, gradient 1.0."
    assert words.intro[0].startswith("Gradient check: n1: OK.")
    assert words.intro[1] == "Gradients shown: d n2 / d node, for each node."
    assert "n1: sin of n0 (multiply); scalar, float32; value -0.2794; gradient 1.0; marked 'selected'." in words.items
    assert "<label" not in insp.details.value and "scope='row'" in insp.details.value
