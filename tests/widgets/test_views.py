"""The widget views after simulated interaction (no browser, no kernel: ipywidgets' DummyComm)."""
import base64
import io
import shutil
import urllib.parse

import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
import tapekit as tk  # noqa: E402
from tapekit.widgets import (BackpropStepper, FunctionExplorer, NodeInspector,  # noqa: E402
                             TrainingMonitor)

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")


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


def _svg(out_widget):
    (out,) = out_widget.outputs
    return out["data"]["image/svg+xml"]


def _png(bundle):
    return base64.b64decode(bundle["image/png"])


def _png_out(out_widget):
    (out,) = out_widget.outputs
    return _png(out["data"])


def _current_title(svg):
    """The node id of the SVG node with class "current" (Graphviz writes <title>id</title>)."""
    k = svg.index('class="node current"')
    return svg[svg.index("<title>", k) + 7: svg.index("</title>", k)]


@needs_dot
def test_stepper_buttons_slider_and_outputs():
    """Issue 17: the graph is drawn once; a step moves the GraphView's highlight (traits)."""
    tape, y, x, w = _tape()
    s = BackpropStepper(tape, y, [x, w])
    svg = s.view.svg
    assert s.slider.max == 3 and s.prev_button.disabled and not s.next_button.disabled
    assert s.view.order == ["n2", "n1", "n0"] and s.view.current == "n2"
    assert "step 0 of 3" in s.chain.value and "seed" in s.chain.value
    s.next_button.click()
    assert s.slider.value == 1 and s.current.node == "n2" and s.view.current == "n2"
    assert s.view.highlighted == ["n1", "s0"]                # add sends to sin's output and x
    assert "<code>n2 = add(n1, s0)</code>" in s.chain.value
    s.next_button.click()
    assert s.view.current == "n1" and s.view.highlighted == ["n0"]
    assert s.grads_so_far["n0"] == pytest.approx(np.cos(6.0))       # 0.9602
    assert "s0" in s.grads_so_far and float(s.grads_so_far["s0"]) == 1.0   # x's total: not yet
    s.slider.value = 3                                      # as a browser drag does
    assert s.view.current == "n0" and s.view.highlighted == ["s0", "s1"]
    assert float(s.grads_so_far["s0"]) == pytest.approx(1 + 3 * np.cos(6.0))    # 3.8805
    assert "0.9602 &times; 3.0 = <b>2.8805</b>" in s.chain.value
    assert "= tape.gradient" in s.chain.value and s.next_button.disabled
    s.prev_button.click()
    assert s.position == 2 and s.view.current == "n1"
    s.view.current = "n0"                                   # ArrowRight in the browser
    assert s.position == 3
    s.reset_button.click()
    assert s.position == 0 and s.current.op == "seed"
    s.step(); s.step()
    assert str(s.current).startswith("step 2: n1 = sin(n0)")
    assert s.go_to(-1).node == "n0" and s.slider.value == 3
    assert s.view.svg == svg                                # never re-rendered


@needs_dot
def test_a_click_in_the_stepper_graph_opens_the_node_in_a_linked_inspector():
    tape, y, x, w = _tape()
    s = BackpropStepper(tape, y, [x, w])
    inspector = s.link(NodeInspector(tape, y, [x, w]))
    s.view.selected = "n1"                                  # what a click does
    assert inspector.selected == "n1" and inspector.node().op == "sin"
    view = tk.widgets.explore(tape, y, [x, w], step=True)
    assert isinstance(view.children[0], BackpropStepper) and view.graph is view.stepper.view
    view.graph.selected = "s1"
    assert view.inspector.selected == "s1"


@needs_dot
def test_stepper_static_fallback_and_display_unchanged():
    tape, y, x, w = _tape()
    before = tk.show(tape, y, [x, w]).source
    s = BackpropStepper(tape, y)
    bundle = s._repr_mimebundle_()
    assert bundle["text/plain"].startswith("BackpropStepper: step 0 of 3\nstep 0: seed d n2/d n2")
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert _png(bundle).startswith(b"\x89PNG")
    assert repr(s) == bundle["text/plain"]
    assert tk.show(tape, y, [x, w]).source == before        # the display layer is untouched
    assert 'class="current"' not in before


def test_stepper_bad_target_shows_message_not_traceback():
    tape, y, *_ = _tape()
    s = BackpropStepper(tape, tk.constant(1.0))
    assert "not recorded on this tape" in s.chain.value and "tk-widget-error" in s.chain.value
    assert s.next_button.disabled and s.slider.disabled
    assert s.step() is None
    assert s._repr_mimebundle_()["text/plain"].startswith("BackpropStepper: The target was not")
    with tk.display.option_context(record=False):
        tape2, y2, *_ = _tape()
    assert "set_options(record=True)" in BackpropStepper(tape2, y2).chain.value


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


def test_function_explorer_slider_updates_plot():
    fe = FunctionExplorer(lambda x: tk.sin(x) * x, x_range=(-3, 3), x=0.0)
    png0 = _png_out(fe.plot)
    assert png0.startswith(b"\x89PNG")
    assert "f'(x) = <b>0.0</b>" in fe.readout.value
    fe.x_slider.value = 1.0
    png1 = _png_out(fe.plot)
    assert png1 != png0
    assert f"f'(x) = <b>{tk.display.format.number(np.cos(1) + np.sin(1))}</b>" in fe.readout.value
    assert fe.set_point(-1.0)["x"] == -1.0 and fe.x_slider.value == -1.0
    # deterministic: the same function at the same point gives the same picture
    again = FunctionExplorer(lambda x: tk.sin(x) * x, (-3, 3), x=0.0)
    again.set_point(1.0)
    assert again.picture() == png1
    assert fe._repr_mimebundle_()["text/plain"].startswith("FunctionExplorer: f(-1.0) = 0.8415")


def test_function_explorer_two_inputs_and_bad_function():
    fe = FunctionExplorer(lambda x, y: x * x + 3 * y, (-1, 1), (-2, 2), samples=9)
    assert fe.y_slider is not None
    png0 = _png_out(fe.plot)
    fe.y_slider.value = 1.0
    assert "df/dy = <b>3.0</b>" in fe.readout.value and _png_out(fe.plot) != png0
    assert _png(fe._repr_mimebundle_()) == _png_out(fe.plot)
    bad = FunctionExplorer(lambda x: tk.stack([x, x]), (-1, 1))
    assert "must return one number" in bad.readout.value and bad.x_slider.disabled
    assert bad.plot.outputs == ()
    assert "image/png" in bad._repr_mimebundle_()               # a picture of the error


def test_training_monitor_text_mode_for_loop():
    buf = io.StringIO()
    mon = TrainingMonitor(range(20), mode="text", file=buf)
    for step in mon:
        mon.log(loss=1.0 / (step + 1), grads={"w": np.full(4, 0.5)})
    lines = buf.getvalue().splitlines()
    assert len(lines) == 10 and lines[-1] == "training: step 20/20  loss 0.05  |grad w| 1.0"
    assert mon.log_.losses[0] == 1.0


def test_training_monitor_widget_mode_context_and_generator():
    with TrainingMonitor(total=10, mode="widget", every=5) as mon:
        mon._shown = True                                   # no IPython display in pytest
        for k in range(10):
            mon.log(loss=10.0 - k)
    assert mon.bar.value == 10 and mon.bar.bar_style == "success"
    assert _png_out(mon.curve) == mon.picture() and "step 10/10" in mon.label.value
    gen = TrainingMonitor((i for i in range(3)), mode="widget")
    gen._shown = True
    for step in gen:
        gen.log(loss=step)
    assert "no length" in gen.note.value and gen.count == 3
    assert repr(gen).startswith("training: step 3  loss 2.0")
    assert gen._repr_mimebundle_()["text/plain"] == (
        "training: TrainingMonitor (steps counted as they come; the picture shows the loss curve)")


@needs_dot
def test_stepper_at_1000_records_steps_without_redrawing_and_its_memory_is_linear():
    """Issue 17: at 1,000 records a step moves the highlight and redraws nothing (its time,
    about 0.1 ms, is benchmarks/widgets_scale.py's: unit tests keep no clock, issue 33); the
    model keeps each step's changes, not a snapshot per step."""
    import tracemalloc

    def chain(n):
        x = tk.Variable(np.array([1.0, 2.0], np.float32), name="x")
        with tk.GradientTape(persistent=True) as tape:
            y = x
            for _ in range(n):
                y = tk.sin(y)
        return tape, y, x

    tape, y, x = chain(1000)
    s = BackpropStepper(tape, y, [x])
    svg = s.view.svg
    for _ in range(20):                 # a step redraws nothing (times: benchmarks/widgets_scale.py)
        s.next_button.click()
    assert s.position == 20 and s.view.svg is svg
    assert s.view.current.startswith(("n", "b"))       # a node, or the block holding it
    np.testing.assert_allclose(s.model.gradients()[0], tape.gradient(y, x).numpy(), rtol=1e-6)

    def peak(n):
        tape, y, x = chain(n)
        tracemalloc.start()
        tk.widgets.BackpropModel(tape, y, [x])
        used = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return used
    small, big = peak(1000), peak(2000)
    assert big / small < 2.6, (small, big)               # a snapshot per step made this ~4
