"""Issue 22 item 3: an observer that raises cannot break the tape. Its exception becomes one
ObserverWarning naming it and the event, it is detached, and the result is unchanged."""
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit.observers import ObserverWarning

EVENTS = ("recorded", "backward_step", "gradient_done")


def _broken(event):
    class Broken(tk.TapeObserver):
        calls = 0

        def __repr__(self):
            return f"<Broken in {event}>"

    def hook(self, tape, *args):
        self.calls += 1
        raise KeyError("boom")

    setattr(Broken, event, hook)
    return Broken()


def _grad(x, tape_hook=None):
    """d/dx of sum(sin(x) * x) (hand-derived: sin(x) + x cos(x)), on a tape that
    `tape_hook` may change; and a second op after the first failure."""
    with tk.GradientTape() as tape:
        if tape_hook:
            tape_hook(tape)
        y = tk.sin(x) * x
        y = tk.reduce_sum(y)
    return tape.gradient(y, x)


def _expected(x):
    v = x.numpy()
    return np.sin(v) + v * np.cos(v)


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize("every", [False, True])
def test_a_raising_observer_is_warned_about_once_and_detached(event, every):
    x = tk.Variable([0.5, 1.5, -2.0])
    broken = _broken(event)
    if every:
        tk.observe_all_tapes(broken)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g = _grad(x, None if every else (lambda tape: tape.add_observer(broken)))
            # A second tape: the broken every-tape observer left the registry, the tape's is gone.
            g2 = _grad(x)
    finally:
        tk.stop_observing_all_tapes(broken)
    np.testing.assert_allclose(g.numpy(), _expected(x), rtol=1e-6)
    np.testing.assert_allclose(g2.numpy(), _expected(x), rtol=1e-6)
    mine = [w for w in caught if issubclass(w.category, ObserverWarning)]
    assert len(mine) == 1, [str(w.message) for w in caught]
    text = str(mine[0].message)
    assert f"<Broken in {event}>" in text and "Broken" in text and f"{event}()" in text
    assert "KeyError" in text and "detached" in text
    assert ("attached with tk.observe_all_tapes" in text) == every
    assert mine[0].filename == __file__          # points at the user's line, not tapekit's
    assert broken.calls == 1                     # never called again, on this tape or later ones
    assert broken not in tk.observers.every_tape.all


def test_observers_after_the_broken_one_still_see_every_event():
    seen = []

    class Good(tk.TapeObserver):
        def recorded(self, tape, record, values, out):
            seen.append(record.op.name)

    x = tk.Variable(2.0)
    broken = _broken("recorded")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ObserverWarning)
        with tk.GradientTape() as tape:
            tape.add_observer(broken)
            tape.add_observer(Good())
            y = tk.sin(x) * x
    assert seen == ["sin", "multiply"]
    assert float(tape.gradient(y, x)) == pytest.approx(np.sin(2.0) + 2.0 * np.cos(2.0))
    assert broken.calls == 1


def test_an_observer_that_reports_by_raising_still_reaches_the_user():
    class Strict(tk.TapeObserver):
        reports_by_raising = True

        def recorded(self, tape, record, values, out):
            raise ValueError("meant for you")

    with pytest.raises(ValueError, match="meant for you"):
        with tk.GradientTape() as tape:
            tape.add_observer(Strict())
            tk.Variable(1.0) * 2.0


def test_check_numerics_still_raises_through_the_backward_walk():
    x = tk.Variable(0.0)
    with pytest.raises(tk.debugging.NumericsError):
        with tk.debugging.check_numerics_enabled(), tk.GradientTape() as tape:
            y = tk.sqrt(x)
            tape.gradient(y, x)
