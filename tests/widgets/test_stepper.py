"""tapekit.widgets.stepper: the BackpropStepper after simulated clicks, drags and arrow keys (no
browser, no kernel: ipywidgets' DummyComm); its picture per step; no `dot`, a bad target."""
import tracemalloc

import graphviz
import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
import tapekit as tk  # noqa: E402
from tapekit.display import dot  # noqa: E402
from tapekit.display.format import html_text  # noqa: E402
from tapekit.widgets import BackpropStepper, NodeInspector  # noqa: E402

from .shared import VIEW, needs_dot, png, scalar_tape  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_widgets")   # recording on; widgets closed after


@needs_dot
def test_the_graph_shows_only_the_gradients_the_walk_has_reached():
    """After tape.gradient the tape's display knows every final gradient; the stepper's picture
    must not show them at step 0 (it did: every node's final gradient, with the panel saying
    "seed at the target"). The hover texts carry the gradients accumulated so far."""
    tape, y, x, w = scalar_tape()
    dx, dw = tape.gradient(y, [x, w])            # the display now holds the final gradients
    s = BackpropStepper(tape, y, [x, w])
    assert "grad" not in s.view.svg
    assert s.view.nodes["n2"]["grad"] == "1.0" and s.view.nodes["s0"]["grad"] == ""
    s.go_to(1)                                   # add sends 1.0 to sin's output and to x
    assert s.view.nodes["n1"]["grad"] == "1.0" and s.view.nodes["s0"]["grad"] == "1.0"
    assert s.view.nodes["s1"]["grad"] == ""
    s.go_to(3)                                   # done: x's and w's totals are tape.gradient's
    assert float(s.view.nodes["s0"]["grad"]) == pytest.approx(float(dx), rel=1e-3)
    assert float(s.view.nodes["s1"]["grad"]) == pytest.approx(float(dw), rel=1e-3)
    s.reset()
    assert s.view.nodes["s0"]["grad"] == "" and "grad" not in s.view.svg


@needs_dot
def test_stepper_buttons_slider_and_outputs():
    """Issue 17: the graph is drawn once; a step moves the GraphView's highlight (traits)."""
    tape, y, x, w = scalar_tape()
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
    tape, y, x, w = scalar_tape()
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
    tape, y, x, w = scalar_tape()
    before = tk.show(tape, y, [x, w]).source
    s = BackpropStepper(tape, y)
    bundle = s._repr_mimebundle_()
    assert bundle["text/plain"].startswith("BackpropStepper: step 0 of 3\nstep 0: seed d n2/d n2")
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert png(bundle).startswith(b"\x89PNG")
    assert repr(s) == bundle["text/plain"]
    assert tk.show(tape, y, [x, w]).source == before        # the display layer is untouched
    assert 'class="current"' not in before


@needs_dot
def test_each_step_is_said_in_one_sentence_and_the_slider_says_where_it_is():
    """Issue 46: a student who cannot see the graph hears each step from the live region
    ("step 3 of 7: pow sends 6.0 to x"); the step slider is a named control saying "step k of n"."""
    tape, y, x, w = scalar_tape()                 # y = sin(x * w) + x at x = 2, w = 3
    s = BackpropStepper(tape, y, [x, w])
    assert s.live.text == ("step 0 of 3: the seed: d target / d n2 = 1.0, the target's "
                           "gradient with respect to itself.")
    assert s.slider.description == "step" and s.slider.value_text == "step 0 of 3"
    assert s.view.narrate is False                # the graph does not talk over the steps
    s.next_button.click()
    assert s.live.text == "step 1 of 3: add (n2) sends 1.0 to sin (n1) and 1.0 to x:0 (s0)."
    assert s.slider.value_text == "step 1 of 3"
    s.view.current = "n1"                         # ArrowRight in the graph: the same sentence
    assert s.live.text == "step 2 of 3: sin (n1) sends 0.9602 to multiply (n0)."   # cos 6
    s.slider.value = 3                            # the arrow keys on the slider
    # multiply sends cos 6 * w = 2.8805 to x and cos 6 * x = 1.9203 to w; x had 1.0 already
    assert s.live.text == ("step 3 of 3: multiply (n0) sends 2.8805 to x:0 (s0) and 1.9203 to "
                           "w:0 (s1). Done: the sources' gradients are s0 3.8805, s1 1.9203.")
    assert s.announcement() == s.live.text
    words = s.describe()
    assert words.name == "The backward pass at " + s.live.text
    assert "n0: multiply of s0 (x:0) and s1 (w:0); scalar, float32; value 6.0; gradient 0.9602; " \
           "marked 'current step'." in words.items
    assert words.intro[0] == "step 3: n0 = multiply(s0, s1) = 6.0"
    html = s._repr_mimebundle_()["text/html"]
    assert 'class="tapekit-figure tapekit-view"' in html and f'alt="{html_text(words.name)}"' in html


def test_stepper_bad_target_shows_message_not_traceback():
    tape, y, *_ = scalar_tape()
    s = BackpropStepper(tape, tk.constant(1.0))
    assert "not recorded on this tape" in s.chain.value and "tk-widget-error" in s.chain.value
    assert s.next_button.disabled and s.slider.disabled
    assert s.step() is None
    assert s._repr_mimebundle_()["text/plain"].startswith("BackpropStepper: The target was not")
    with tk.display.option_context(record=False):
        tape2, y2, *_ = scalar_tape()
    assert "set_options(record=True)" in BackpropStepper(tape2, y2).chain.value


@needs_dot
def test_stepper_at_1000_records_steps_without_redrawing_and_its_memory_is_linear():
    """Issue 17: at 1,000 records a step moves the highlight and redraws nothing (its time,
    about 0.1 ms, is benchmarks/widgets_scale.py's: unit tests keep no clock, issue 33); the
    model keeps each step's changes, not a snapshot per step."""

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


@needs_dot
def test_stepper_picture_follows_the_step():
    x, w = tk.Variable(2.0, name="x"), tk.Variable(3.0, name="w")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x * w) + x
    s = BackpropStepper(tape, y, [x, w])
    first = s._repr_mimebundle_()
    assert VIEW in first and "image/svg+xml" not in first
    s.go_to(-1)
    last = s._repr_mimebundle_()
    assert png(last) != png(first)                         # the last step, not step 0
    assert last["text/plain"].startswith("BackpropStepper: step 3 of 3\nstep 3: n0 = multiply")
    s.go_to(-1)
    assert png(s._repr_mimebundle_()) == png(last)         # deterministic bytes


def test_stepper_without_dot_falls_back_to_text(monkeypatch):
    # like the tape's own display: no Graphviz `dot` gives no SVG, not an exception

    def missing(digraph):
        raise graphviz.ExecutableNotFound(["dot"])

    x = tk.Variable(2.0, name="x")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x) * x
    monkeypatch.setattr(dot, "to_svg", missing)
    stepper = BackpropStepper(tape, y, [x])
    stepper.step()
    assert stepper.svg() is None and stepper.view is None
    assert "no picture" in stepper.children[2].value           # after the controls and live line
    assert stepper.live.text.startswith("step 1 of 2: multiply (n1) sends")
    assert "step 1" in stepper._repr_mimebundle_()["text/plain"]


@pytest.mark.timeout(60)
def test_stepper_and_inspector_pictures_of_a_10000_character_name():
    x = tk.Variable(2.0, name="x" * 10_000)
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x) * x
    stepper = BackpropStepper(tape, y, [x])
    stepper.step()
    for view in (stepper, NodeInspector(tape, y)):
        assert png(view._repr_mimebundle_())


@needs_dot
def test_a_step_into_an_op_over_600_variables_highlights_their_box():
    from .shared import wide_tape
    tape, loss, xs = wide_tape(600)
    s = BackpropStepper(tape, loss, xs)
    assert len(s.view.node_ids) <= 100 and "g0" in s.view.node_ids      # was 603 nodes
    s.go_to(-1)                                  # the add_n: every Variable receives
    assert s.view.current == "n0" and s.view.highlighted == ["g0"]
    assert "600 inputs: s0 ... s599" in s.chain_html() and "600 inputs: s0 ... s599" in str(s.model.current)
