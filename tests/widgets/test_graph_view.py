"""tk.widgets.GraphView: traits (selection, highlight, current/order), node summaries from a
real tape, the static bundle, and the cost of a step on a 1,000-record tape."""
import base64

import numpy as np
import pytest
import traitlets

import tapekit as tk
from tapekit.widgets.graph_view import GraphView, node_sentence, svg_node_ids

from .shared import needs_dot  # noqa: E402

pytest.importorskip("anywidget")


@pytest.fixture
def small():
    with tk.display.option_context(record=True):
        x = tk.Variable(3.0, name="x")
        with tk.GradientTape(persistent=True) as tape:
            y = tk.sin(x) * x
        tape.gradient(y, x)
    return tape, x, y


@needs_dot
def test_from_tape_node_summaries_match_hand_values(small):
    tape, x, y = small
    view = GraphView.from_tape(tape, y, [x])
    assert sorted(view.nodes) == ["n0", "n1", "s0"]
    assert sorted(svg_node_ids(view.svg)) == ["n0", "n1", "s0"]
    n0, n1, s0 = view.nodes["n0"], view.nodes["n1"], view.nodes["s0"]
    assert (n0["op"], n0["shape"], n0["dtype"]) == ("sin", "()", "float32")
    assert float(n0["value"]) == pytest.approx(np.sin(3.0), abs=1e-4)
    assert float(n1["value"]) == pytest.approx(3 * np.sin(3.0), abs=1e-4)
    # d(sin x * x)/dx = cos x * x + sin x; d y / d sin = x = 3
    assert float(s0["grad"]) == pytest.approx(3 * np.cos(3.0) + np.sin(3.0), abs=1e-4)
    assert float(n0["grad"]) == pytest.approx(3.0)
    assert n1["args"] == "n0, s0"
    assert view.order == ["n0", "n1"] and view.node_ids == {"s0", "n0", "n1"}
    assert dict(view.order_index) == {"n0": 0, "n1": 1}
    with pytest.raises(TypeError):
        view.order_index["s0"] = 2                 # read-only: `order` is what moves it
    backward = GraphView.from_tape(tape, y, [x], order="backward")
    assert backward.order == ["n1", "n0"] and dict(backward.order_index) == {"n1": 0, "n0": 1}
    with pytest.raises(ValueError, match="order must be"):
        GraphView.from_tape(tape, order="sideways")


@needs_dot
def test_selection_and_highlight_are_validated_synced_traits(small):
    tape, x, y = small
    view = GraphView.from_tape(tape, y, [x])
    seen = []
    view.observe(lambda c: seen.append(c.new), names="selected")
    assert view.select("n1")["op"] == "multiply"
    view.selected = "s0"
    assert seen == ["n1", "s0"]
    assert view.trait_metadata("selected", "sync") and view.trait_metadata("current", "sync")
    with pytest.raises(traitlets.TraitError, match="no node 'n7'.*n0, n1, s0"):
        view.selected = "n7"
    assert view.selected == "s0"
    view.highlighted = ["s0", "n0", "n1"]
    with pytest.raises(traitlets.TraitError, match="highlighted: no node 'x'"):
        view.highlighted = ["n0", "x"]
    with pytest.raises(traitlets.TraitError, match="no node 'nope'"):
        GraphView(view.svg, selected="nope")


@needs_dot
def test_current_steps_along_order_and_stops_at_the_ends(small):
    tape, x, y = small
    view = GraphView.from_tape(tape, y, [x], order="backward")
    assert view.current == "" and view.position is None
    assert view.step() == "n1" and view.position == 0
    assert view.step() == "n0"
    assert view.step() == "n0"                  # stays on the last step
    assert view.step(-5) == "n1"
    assert view.go_to(-1) == "n0"
    with pytest.raises(IndexError, match="outside 0..1"):
        view.go_to(2)
    with pytest.raises(traitlets.TraitError, match="'s0' is not in `order`"):
        view.current = "s0"
    view.order = ["s0", "n0"]
    view.current = "s0"


def test_link_with_another_widget_follows_the_selection():
    ipywidgets = pytest.importorskip("ipywidgets")
    svg = ('<svg><g id="node1" class="node"><title>n0</title></g>'
           '<g id="node2" class="node"><title>a&amp;b</title></g></svg>')
    view = GraphView(svg, {"n0": {"op": "sin"}})
    assert svg_node_ids(svg) == ["n0", "a&b"]
    label = ipywidgets.Text()
    ipywidgets.link((view, "selected"), (label, "value"))
    view.selected = "a&b"
    assert label.value == "a&b"
    label.value = "n0"
    assert view.selected == "n0"
    box = ipywidgets.HBox([view, label])
    assert box.children[0] is view


@needs_dot
def test_static_bundle_has_widget_svg_and_deterministic_text(small):
    tape, x, y = small
    view = GraphView.from_tape(tape, y, [x])
    view.current = "n0"
    data, _meta = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["image/svg+xml"] == view.svg and "<title>n1</title>" in data["image/svg+xml"]
    # an untrusted notebook (a downloaded lesson) shows the PNG, not the SVG
    assert base64.b64decode(data["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")
    text = data["text/plain"]
    assert text.startswith("GraphView: 3 nodes (current n0)") and "0x" not in text
    assert "multiply" in text and text == GraphView.from_tape(
        tape, y, [x], current="n0")._repr_mimebundle_()[0]["text/plain"]


def test_static_files_ship_with_the_package():
    from tapekit.widgets import graph_view
    js = (graph_view.STATIC / "graph_view.js").read_text()
    assert "export default" in js and "render" in js
    assert (graph_view.STATIC / "graph_view.css").is_file()
    assert tk.widgets.GraphView is GraphView


@needs_dot
@pytest.mark.slow
def test_scale_1000_records_a_step_redraws_nothing():
    with tk.display.option_context(record=True):
        x = tk.Variable([1.0, 2.0, 3.0], name="x")
        with tk.GradientTape(persistent=True) as tape:
            y = x
            for _ in range(1000):
                y = tk.sin(y)
        tape.gradient(y, x)
    assert len(tape._records) == 1000
    view = GraphView.from_tape(tape, y, [x], order="backward", max_nodes=None)  # every node
    assert len(view.order) == 1000 and view.order[0] == "n999"
    # A step moves the highlight only: nothing is drawn or indexed again (its time is
    # benchmarks/widgets_scale.py's; unit tests keep no clock, issue 33).
    svg, nodes, ids = view.svg, view.nodes, view._ids
    for i in range(0, 1000, 20):
        view.current = view.order[i]
        assert view.position == i
    assert view.svg is svg and view.nodes is nodes and view._ids is ids


@needs_dot
def test_the_graph_has_a_name_a_description_and_speaks_its_nodes(small):
    """Issue 46: the accessible name and long description are the tape's describe() words;
    the sentence the live region says for a node; the stored picture carries the words."""
    tape, x, y = small                             # y = sin(x) * x at x = 3, after gradient
    view = GraphView.from_tape(tape, y, [x])
    words = tk.show(tape, y, [x]).describe()
    assert view.label == words.name and view.narrate is True
    assert view.description == {"intro": list(words.intro), "items": list(words.items),
                                "outro": list(words.outro)}
    assert view.trait_metadata("label", "sync") and view.trait_metadata("announcement", "sync")
    assert node_sentence("n0", view.nodes["n0"]) == "n0: sin of s0; value 0.1411; gradient 3.0."
    view.current, view.selected, view.highlighted = "n1", "s0", ["n0"]
    marks = view.describe().outro[-3:]
    assert marks == ("The current step: n1: multiply of n0, s0; value 0.4234; gradient 1.0.",
                     "Selected: s0: x:0; value 3.0; gradient -2.8289.",     # 3 cos 3 + sin 3
                     "Highlighted (drawn with a dotted purple border): n0.")
    data, _ = view._repr_mimebundle_()
    assert f'alt="{words.name}"' in data["text/html"] and data["image/png"] in data["text/html"]
    bare = GraphView(view.svg, view.nodes)          # made from parts: words from the nodes
    assert bare.describe().name == "Graph of 3 nodes." and len(bare.describe().items) == 3
