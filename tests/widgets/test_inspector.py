"""tapekit.widgets.inspector: the NodeInspector's dropdown and check button, a check of another
node selecting it first, and its picture of the selected node."""
import base64
import shutil

import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
import tapekit as tk  # noqa: E402
from tapekit.widgets import NodeInspector  # noqa: E402

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(autouse=True)
def _close_widgets():
    with tk.display.option_context(record=True):
        yield
    ipywidgets.Widget.close_all()


def _tape():
    x = tk.Variable(2.0, name="x")
    w = tk.Variable(3.0, name="w")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x * w) + x
    return tape, y, x, w


def _mlp_tape():
    """Lesson 12's second tape: nodes s0 (W), s1 (b), s2 (inputs), n0..n5."""
    rng = np.random.default_rng(0)
    W = tk.Variable(rng.normal(size=(3, 2)).astype("float32"), name="W")
    b = tk.Variable(np.zeros(2, "float32"), name="b")
    inputs = tk.constant(rng.normal(size=(4, 3)).astype("float32"))
    with tk.GradientTape(persistent=True) as tape:
        h = tk.tanh(tk.matmul(inputs, W) + b)
        loss = tk.reduce_mean(tk.square(h - 0.5))
    return tape, loss


def _png(bundle):
    data = base64.b64decode(bundle["image/png"])
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return data


def test_node_inspector_dropdown_and_check_button():
    tape, y, x, w = _tape()
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
    tape, loss = _mlp_tape()
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
    tape, loss = _mlp_tape()
    insp = NodeInspector(tape, loss)
    p0 = _png(insp._repr_mimebundle_())
    insp.check("n3")
    p3 = _png(insp._repr_mimebundle_())
    assert p3 != p0
    insp.select("s0")
    assert _png(insp._repr_mimebundle_()) == p0
