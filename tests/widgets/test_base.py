"""tapekit.widgets.base: what every view shares: its display bundle (the live widget, a PNG of
its state, text), the picture cached per state and drawn for an error, the stored display
updated by changes from code (not by the browser), views that compose as ipywidgets."""
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
import tapekit as tk  # noqa: E402
from tapekit.widgets import BackpropStepper, FunctionExplorer, NodeInspector, base  # noqa: E402

from .shared import VIEW, mlp_tape, needs_dot, png  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_widgets")   # recording on; widgets closed after


class _Handle:
    """Stands for IPython's DisplayHandle: records the bundles sent by update()."""

    def __init__(self):
        self.updates = []

    def update(self, obj, raw=False):
        assert raw
        self.updates.append(obj)


def _displayed(view):
    """As if `view` had been displayed in a kernel (no IPython in pytest)."""
    handle = _Handle()
    view._displays = [(handle, view._repr_mimebundle_()["text/plain"])]
    return handle


@needs_dot
def test_code_driven_changes_update_the_displays_and_keep_their_text():
    x, w = tk.Variable(2.0, name="x"), tk.Variable(3.0, name="w")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x * w) + x
    s = BackpropStepper(tape, y, [x, w])
    handle = _displayed(s)
    first_text = s._repr_mimebundle_()["text/plain"]
    s.next_button.click()                        # a browser click: the widget moves, no update
    s.slider.value = 2                           # a browser drag: no update either
    assert handle.updates == []
    s.go_to(-1)                                  # from code: the stored picture follows
    (upd,) = handle.updates
    assert upd["text/plain"] == first_text       # what nbval saw when the cell ran
    assert png(upd) == png(s._repr_mimebundle_()) and upd[VIEW]["model_id"] == s.widget.model_id

    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    handle = _displayed(fe)
    fe.x_slider.value = 0.5
    assert handle.updates == []
    fe.set_point(2.0)
    (upd,) = handle.updates
    assert png(upd) == fe.picture() and "f(1.0)" in upd["text/plain"]

    tape2, loss = mlp_tape()
    insp = NodeInspector(tape2, loss)
    handle = _displayed(insp)
    insp.check_button.click()
    insp.dropdown.value = "n1"
    assert handle.updates == []
    insp.check("n3")
    assert len(handle.updates) == 1 and png(handle.updates[-1]) == insp.picture()


def test_a_view_that_failed_pictures_its_error():
    x = tk.Variable(2.0, name="x")
    with tk.GradientTape(persistent=True) as tape:
        x * x
    s = BackpropStepper(tape, tk.constant(1.0))               # not recorded on this tape
    assert s.model is None and s.picture() is None
    bundle = s._repr_mimebundle_()
    assert VIEW in bundle and "not recorded on this tape" in bundle["text/plain"]
    assert png(bundle)
    bad = FunctionExplorer(lambda t: tk.stack([t, t]), (-1, 1))
    assert png(bad._repr_mimebundle_())


def test_pictures_are_cached_per_state():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    calls = []
    real = fe.picture
    fe.picture = lambda: calls.append(fe.model.x) or real()
    fe.set_point(2.0)                       # the Output and the bundle share one drawing
    fe._repr_mimebundle_()
    fe.set_point(1.0)
    fe._repr_mimebundle_()
    assert calls == [2.0]                   # x=1.0 was drawn before picture was wrapped


@needs_dot
def test_views_are_widgets_that_compose_and_link():
    x, w = tk.Variable(2.0, name="x"), tk.Variable(3.0, name="w")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x * w) + x
    stepper = BackpropStepper(tape, y, [x, w])
    insp = NodeInspector(tape, y)
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, (-3, 3), x=0.0)
    for view in (stepper, insp, fe):
        assert isinstance(view, ipywidgets.VBox) and view.widget is view
    row = ipywidgets.HBox([stepper, insp])                      # side by side
    assert row.children == (stepper, insp)
    assert "tk-backprop-stepper" in stepper._dom_classes
    # the stored picture is still there, beside the view of the VBox itself
    bundle = stepper._repr_mimebundle_()
    assert bundle[VIEW]["model_id"] == stepper.model_id and png(bundle)
    # link the explorer's x to the stepper's position: moving one moves the other
    ipywidgets.link((stepper.slider, "value"), (fe.x_slider, "value"))
    stepper.slider.value = 2
    assert fe.model.x == 2.0 and stepper.current.node == "n1"
    fe.x_slider.value = 1.0
    assert stepper.position == 1
    stepper.close()
    assert stepper.comm is None and stepper.slider.comm is None


def test_error_html_and_text_output():
    box = base.error_html("x < 1 & 'y'")
    assert box.startswith('<div class="tk-widget-error"')
    assert "<b>tapekit:</b> x &lt; 1 &amp; &#x27;y&#x27;</div>" in box
    assert base.text_output("done") == {"output_type": "stream", "name": "stdout", "text": "done\n"}
    assert base.text_output("a\n")["text"] == "a\n"           # one newline, not two


def test_walk_widgets_visits_every_nested_widget_and_close_closes_them():
    inner = ipywidgets.Button()
    row = ipywidgets.HBox([ipywidgets.Label("a"), ipywidgets.VBox([inner])])
    found = list(base.walk_widgets(row))
    assert found[0] is row and found[-1] is inner and len(found) == 4
    view = base.View([row])
    view.close()
    assert inner.comm is None and row.comm is None and view.comm is None


def test_outside_ipython_a_view_displays_as_its_text(capsys):
    fe = FunctionExplorer(lambda t: t * t, (-1, 1), x=0.5)
    fe._ipython_display_()                       # no IPython shell in pytest: print the text
    assert capsys.readouterr().out == "FunctionExplorer: f(0.5) = 0.25; f' = 1.0 (tape), " \
                                      "f'' = 2.0 (nested tapes)\n"
    assert repr(fe) == fe.text()
