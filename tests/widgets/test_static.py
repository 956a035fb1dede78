"""Issue 13: what the widgets leave for places without a kernel, and the lesson-10 fixes.

- every view's display bundle carries image/png of its current state beside the widget view;
- the TrainingMonitor's stored display is its final state (the display is updated at the end);
- the FunctionExplorer's slider holds its points exactly, its y-range does not move;
- the NodeInspector's details and check result are about the same node.
"""
import base64
import io
import shutil

import nbformat
import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
import tapekit as tk  # noqa: E402
from tapekit.widgets import (BackpropStepper, FunctionExplorer, NodeInspector,  # noqa: E402
                             TrainingMonitor, plots)
from tapekit.widgets.views import slider_step  # noqa: E402

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(autouse=True)
def _close_widgets():
    with tk.display.option_context(record=True):
        yield
    ipywidgets.Widget.close_all()


def _png(bundle):
    data = base64.b64decode(bundle["image/png"])
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return data


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


# --- every view: a picture of its current state ------------------------------------------

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
    assert _png(last) != _png(first)                         # the last step, not step 0
    assert last["text/plain"].startswith("BackpropStepper: step 3 of 3\nstep 3: n0 = multiply")
    s.go_to(-1)
    assert _png(s._repr_mimebundle_()) == _png(last)         # deterministic bytes


def test_pictures_are_deterministic_and_carry_no_software_stamp():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    a = fe.picture()
    b = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0).picture()
    assert a == b and b"Software" not in a and b"matplotlib" not in a.lower()


# --- NodeInspector: selection and check result agree --------------------------------------

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


# --- FunctionExplorer ---------------------------------------------------------------------

def test_slider_step_holds_the_points():
    assert slider_step(-4.0, 4.0, [1.0]) == 0.05       # (hi-lo)/100 = 0.08 does not hold 1.0
    assert slider_step(-3.0, 3.0, [0.0]) == 0.05
    assert slider_step(0.0, 1.0, [0.123]) == 0.001
    assert slider_step(-4.0, 4.0, [np.pi]) is None     # no round grid: any value
    for lo, hi, pts in [(-4, 4, [1.0, 2.0]), (-1, 2, [0.3]), (0.5, 7.25, [1.75, 3.0])]:
        step = slider_step(lo, hi, pts)
        for v in pts:
            k = (v - lo) / step
            assert abs(k - round(k)) < 1e-9


def test_explorer_slider_holds_set_points_exactly():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    assert fe.x_slider.value == 1.0 and fe.x_slider.step == 0.05
    for v in (1.0, 2.0, -0.35):
        assert fe.set_point(v)["x"] == v
        assert fe.x_slider.value == v and fe.model.x == v
        k = (v - fe.x_slider.min) / fe.x_slider.step
        assert abs(k - round(k)) < 1e-9                 # on the browser's grid: no snapping
    fe.set_point(np.pi)                                 # off every round grid: step None
    assert fe.x_slider.step is None and fe.x_slider.value == np.pi
    assert fe.set_point(9.0)["x"] == 4.0                # clipped to the range


def test_explorer_y_range_is_stable_and_the_tangent_is_clipped():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    m = fe.model
    ylim = fe.ylim()
    ys = np.concatenate([m.fs, m.dfs, m.d2fs])
    assert ylim[0] < ys.min() and ylim[1] > ys.max()
    assert ylim[1] - ylim[0] < 1.3 * (ys.max() - ys.min())   # fits the curves, not the tangent
    outside = []
    for v in (-4.0, -2.0, 0.5, 3.7):                    # steep tangents near the ends
        fe.set_point(v)
        assert fe.ylim() == ylim
        fig = plots.new_figure()
        plots._curves(fig, m)
        ax = fig.axes[0]
        assert ax.get_ylim() == pytest.approx(ylim)     # the drawn axes, tangent included
        (_, t0), (_, t1) = m.tangent()
        outside.append(min(t0, t1) < ylim[0] or max(t0, t1) > ylim[1])
    assert outside == [True, False, False, True]        # these tangents used to stretch the axis


def test_explorer_legend_sits_clear_of_the_curves():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    fig = plots.new_figure()
    plots._curves(fig, fe.model)
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1       # right of the plotting area
    assert legend.x1 <= fig.bbox.x1                     # and still inside the picture
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "f", "f' (tape)", "f'' (nested tapes)", "tangent at x"]


# --- TrainingMonitor ------------------------------------------------------------------------

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


def _run(mon, n, loss=lambda k: 3.0 * np.exp(-k / 10) + 0.1):
    mon._shown = True
    handle = _displayed(mon)
    for k in mon:
        mon.log(loss=loss(k))
    return handle.updates


def test_monitor_display_is_updated_with_the_final_state(capsys):
    mon = TrainingMonitor(range(60), title="linear regression", mode="widget")
    first = mon._repr_mimebundle_()                     # what display() sends at the start
    (final,) = _run(mon, 60)
    assert final[VIEW] == first[VIEW]                   # the same live widget
    assert _png(final) != _png(first) and _png(final) == mon.picture()
    ref = plots.monitor_png(mon.log_, 60, "linear regression")
    assert _png(final) == ref
    # text/plain stays the same (nbval compares it and does not see the update) ...
    assert final["text/plain"] == first["text/plain"] == (
        "linear regression: TrainingMonitor (60 steps; the picture shows the loss curve)")
    # ... and the final numbers are printed once, for text-only views
    assert capsys.readouterr().out == "linear regression: step 60/60  loss 0.1082\n"  # 3e^-5.9 + 0.1
    assert mon.bar.value == 60 and mon.bar.bar_style == "success"
    # the widget state a notebook stores is deterministic too: no elapsed time or rate
    assert mon.label.value == ('<span class="tk-progress">linear regression: step 60/60  '
                               'loss 0.1082</span>')


def test_monitor_loss_axis():
    assert plots.loss_ylim([3.0, 1.0, 0.5]) == (0.0, pytest.approx(3.15))
    assert plots.loss_ylim([-1.0, 2.0]) == (-1.0, pytest.approx(2.15))
    assert plots.loss_ylim([10.0, 0.002], "log") == (0.001, 10.0)
    assert plots.loss_ylim([None, float("nan")]) == (0.0, 1.0)
    with pytest.raises(ValueError, match="yscale must be 'linear' or 'log', got 'logarithmic'"):
        TrainingMonitor(total=3, mode="text", yscale="logarithmic")
    log_mon = TrainingMonitor(range(30), mode="widget", yscale="log")
    _run(log_mon, 30, loss=lambda k: 10.0 * np.exp(-k / 3))
    lin_mon = TrainingMonitor(range(30), mode="widget")
    _run(lin_mon, 30, loss=lambda k: 10.0 * np.exp(-k / 3))
    assert log_mon.picture() != lin_mon.picture()


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_monitor_in_a_terminal_uses_tqdm():
    term = _Terminal()
    mon = TrainingMonitor(range(20), mode="text", file=term, title="fit")
    for k in mon:
        mon.log(loss=1.0 / (k + 1))
    out = term.getvalue()
    assert "fit: 100%" in out and "20/20" in out and "step/s" in out and "loss 0.05" in out
    piped = io.StringIO()                                # a file or pipe: plain lines, no timings
    mon = TrainingMonitor(range(20), mode="text", file=piped)
    for k in mon:
        mon.log(loss=1.0 / (k + 1))
    assert "step/s" not in piped.getvalue() and piped.getvalue().count("\n") == 10


# --- a real kernel: what nbclient stores (what nbconvert, nbviewer, docs sites read) ----------

@needs_dot
def test_stored_notebook_keeps_final_pictures():
    from nbclient import NotebookClient
    cells = [
        "import hashlib, numpy as np, tapekit as tk\n"
        "mon = None\n"
        "for k in (mon := tk.widgets.TrainingMonitor(range(12), title='fit')):\n"
        "    mon.log(loss=1.0 / (k + 1))",
        "print(hashlib.md5(mon.picture()).hexdigest())",
        "x = tk.Variable(2.0, name='x')\n"
        "with tk.GradientTape(persistent=True) as tape:\n"
        "    y = x * x + x\n"
        "insp = tk.widgets.NodeInspector(tape, y)\n"
        "insp",
        "print(insp.check('n0').input)\n"
        "print(hashlib.md5(insp.picture()).hexdigest())",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    NotebookClient(nb, timeout=60, kernel_name="python3", store_widget_state=True).execute()
    mon_out = [o for o in nb.cells[0].outputs if o.output_type == "display_data"]
    (display,) = mon_out
    assert set(display.data) == {VIEW, "image/png", "text/plain"}
    png = base64.b64decode(display.data["image/png"])
    import hashlib
    assert hashlib.md5(png).hexdigest() == nb.cells[1].outputs[0].text.strip()   # the final one
    assert nb.cells[0].outputs[-1].text == "fit: step 12/12  loss 0.0833\n"
    assert "widgets" in nb.metadata                       # the live widget's state, too
    (insp_out,) = nb.cells[2].outputs
    assert set(insp_out.data) == {VIEW, "image/png", "text/plain"}


# --- code-driven changes update the stored picture; browser moves do not re-render ---------

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
    assert _png(upd) == _png(s._repr_mimebundle_()) and upd[VIEW]["model_id"] == s.widget.model_id

    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    handle = _displayed(fe)
    fe.x_slider.value = 0.5
    assert handle.updates == []
    fe.set_point(2.0)
    (upd,) = handle.updates
    assert _png(upd) == fe.picture() and "f(1.0)" in upd["text/plain"]

    tape2, loss = _mlp_tape()
    insp = NodeInspector(tape2, loss)
    handle = _displayed(insp)
    insp.check_button.click()
    insp.dropdown.value = "n1"
    assert handle.updates == []
    insp.check("n3")
    assert len(handle.updates) == 1 and _png(handle.updates[-1]) == insp.picture()


def test_matplotlib_and_tqdm_are_imported_only_when_needed():
    import subprocess
    import sys
    code = ("import sys, tapekit, tapekit.widgets, tapekit.widgets.plots; "
            "print('matplotlib' in sys.modules, 'tqdm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_monitor_live_label_shows_tqdm_timing():
    mon = TrainingMonitor(total=10, mode="widget", every=1)
    mon._shown, mon._t0 = True, plots_now() - 2.0        # as if started 2 s ago
    mon.log(loss=1.0)
    # 1 step in 2 s: 18 s left for the other 9; tqdm writes slow rates as time per step
    assert '<span class="tk-timing">[00:02&lt;00:18,  2.00s/step]</span>' in mon.label.value


def plots_now():
    from tapekit.widgets.monitor import now
    return now()


def test_a_view_that_failed_pictures_its_error():
    x = tk.Variable(2.0, name="x")
    with tk.GradientTape(persistent=True) as tape:
        x * x
    s = BackpropStepper(tape, tk.constant(1.0))               # not recorded on this tape
    assert s.model is None and s.picture() is None
    bundle = s._repr_mimebundle_()
    assert VIEW in bundle and "not recorded on this tape" in bundle["text/plain"]
    assert _png(bundle)
    bad = FunctionExplorer(lambda t: tk.stack([t, t]), (-1, 1))
    assert _png(bad._repr_mimebundle_())


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


def test_explorer_picture_is_the_same_however_the_point_was_reached():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    at1 = fe.picture()
    fe.set_point(-3.5)
    fe.set_point(2.0)
    moved = fe.picture()
    fresh = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=2.0).picture()
    assert moved == fresh != at1
    assert plots.explorer_png(fe.model) == moved          # a new figure draws the same bytes
    fe._png_cache.clear()
    fe.set_point(1.0)
    assert fe.picture() == at1


# --- issue 17 item 3: the views are ipywidgets objects -----------------------------------

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
    assert bundle[VIEW]["model_id"] == stepper.model_id and _png(bundle)
    # link the explorer's x to the stepper's position: moving one moves the other
    ipywidgets.link((stepper.slider, "value"), (fe.x_slider, "value"))
    stepper.slider.value = 2
    assert fe.model.x == 2.0 and stepper.current.node == "n1"
    fe.x_slider.value = 1.0
    assert stepper.position == 1
    stepper.close()
    assert stepper.comm is None and stepper.slider.comm is None


def test_import_tapekit_widgets_does_not_import_ipywidgets():
    import subprocess
    import sys
    code = ("import sys, tapekit as tk; import tapekit.widgets; "
            "a = 'ipywidgets' in sys.modules; tk.widgets.TrainingMonitor; "
            "print(a, 'ipywidgets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True"


def test_wrap_ends_on_long_names_and_clips_them():
    # a 10,000-character variable name: the chain-rule text has a line "  to s0 (xxxx…): …" whose
    # continuation indent once made wrap() cut at its own padding forever (the stepper hung)
    from tapekit.widgets import plots
    line = "  to s0 (" + "x" * 10_000 + ":0): 0.96 x local 3.0 -> sends 2.88"
    lines = plots.wrap(line)
    assert len(lines) <= 5 and all(len(s) <= 100 for s in lines)
    assert lines[0] == "  to s0" and lines[-1].endswith("…")
    assert plots.wrap("short line") == ["short line"]
    assert plots.wrap("a " * 60) == ["a " * 49 + "a", "  " + "a " * 10]


@pytest.mark.timeout(60)
def test_stepper_and_inspector_pictures_of_a_10000_character_name():
    x = tk.Variable(2.0, name="x" * 10_000)
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x) * x
    stepper = BackpropStepper(tape, y, [x])
    stepper.step()
    for view in (stepper, NodeInspector(tape, y)):
        assert _png(view._repr_mimebundle_())


def test_stepper_without_dot_falls_back_to_text(monkeypatch):
    # like the tape's own display: no Graphviz `dot` gives no SVG, not an exception
    import graphviz
    from tapekit.display import dot

    def missing(digraph):
        raise graphviz.ExecutableNotFound(["dot"])

    x = tk.Variable(2.0, name="x")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x) * x
    monkeypatch.setattr(dot, "to_svg", missing)
    stepper = BackpropStepper(tape, y, [x])
    stepper.step()
    assert stepper.svg() is None and stepper.view is None
    assert "no picture" in stepper.children[1].value
    assert "step 1" in stepper._repr_mimebundle_()["text/plain"]
