"""tapekit.widgets.monitor: the TrainingMonitor as a widget (its stored display updated with the
final state), on a terminal (tqdm's bar) and written to a file (plain lines)."""
import io

import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
from tapekit.widgets import TrainingMonitor, monitor, plots  # noqa: E402
from tapekit.widgets.monitor import now  # noqa: E402

from .shared import VIEW, png, png_out  # noqa: E402

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


def _run(mon, n, loss=lambda k: 3.0 * np.exp(-k / 10) + 0.1):
    mon._shown = True
    handle = _displayed(mon)
    for k in mon:
        mon.log(loss=loss(k))
    return handle.updates


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
    assert png_out(mon.curve) == mon.picture(progress=False) and "step 10/10" in mon.label.value
    assert mon.picture() != mon.picture(progress=False)     # the stored one has bar and title
    gen = TrainingMonitor((i for i in range(3)), mode="widget")
    gen._shown = True
    for step in gen:
        gen.log(loss=step)
    assert "no length" in gen.note.value and gen.count == 3
    assert repr(gen).startswith("training: step 3  loss 2.0")
    assert gen._repr_mimebundle_()["text/plain"] == (
        "training: TrainingMonitor (steps counted as they come; the picture shows the loss curve)")


def test_monitor_display_is_updated_with_the_final_state(capsys):
    mon = TrainingMonitor(range(60), title="linear regression", mode="widget")
    first = mon._repr_mimebundle_()                     # what display() sends at the start
    (final,) = _run(mon, 60)
    assert final[VIEW] == first[VIEW]                   # the same live widget
    assert png(final) != png(first) and png(final) == mon.picture()
    ref = plots.monitor_png(mon.log_, 60, "linear regression")
    assert png(final) == ref
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


def test_monitor_live_label_shows_timing(monkeypatch):
    mon = TrainingMonitor(total=10, mode="widget", every=1)
    mon._shown, mon._t0 = True, now() - 2.0        # as if started 2 s ago
    mon.log(loss=1.0)
    # 1 step in 2 s: 18 s left for the other 9; slow rates are written as time per step
    assert '<span class="tk-timing">[00:02&lt;00:18, 2.0 s/step]</span>' in mon.label.value
    # three figures at most (tqdm's meter wrote "685.42step/s"); the clock held still
    monkeypatch.setattr(monitor, "now", lambda: 100.0)
    mon._t0 = 100.0 - 2 / 685.42                    # 2 steps now, at 685.42 a second
    mon.log(loss=0.5)
    assert '<span class="tk-timing">[00:00&lt;00:00, 685 steps/s]</span>' in mon.label.value
    mon._t0 = 100.0 - 3 / 25.34                     # 3 steps at 25.34 a second
    mon.log(loss=0.5)
    assert "00:00, 25.3 steps/s]" in mon.label.value
    for _ in range(8):                              # 11 steps of a total of 10: nothing left
        mon.log(loss=0.5)
    assert mon.timing().startswith("00:00<00:00, ") and mon.count == 11


def test_the_loss_curve_says_its_finding():
    """Issue 46: the curve's alt text says where the loss started, ended and was lowest."""
    mon = TrainingMonitor(range(5), mode="widget", title="fit")
    updates = _run(mon, 5, loss=lambda k: [2.0, 1.0, 0.5, 0.25, 0.3][k])
    words = mon.describe()
    assert words.name == ("fit: loss curve, 5 of 5 steps: the loss falls from 2.0 at step 0 to "
                          "0.3 at step 4 (lowest 0.25, at step 3).")
    assert 'alt="fit: loss curve, 5 of 5 steps: the loss falls' in updates[-1]["text/html"]
    (curve,) = mon.curve.outputs
    assert curve["data"]["text/html"].count("<img") == 1 and "lowest 0.25" in curve["data"]["text/html"]
    assert mon.live.text == "done: fit: step 5/5  loss 0.3"
    rising = TrainingMonitor(total=3, mode="text", file=io.StringIO())
    for k in range(3):
        rising.log(loss=1.0 + k, grads={"w": np.full(4, 0.5 * (k + 1))})
    assert rising.describe().name.startswith("training: loss curve, 3 of 3 steps: the loss rises from 1.0")
    assert rising.describe().intro == ("The norm of the gradient of w (a dashed line, right axis) "
                                       "goes from 1.0 to 3.0 (largest 3.0).",)
    assert TrainingMonitor(total=4, mode="text").describe().name == \
        "training: loss curve, 0 of 4 steps, no loss logged yet."
