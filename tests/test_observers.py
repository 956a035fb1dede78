"""Tape observers (tapekit/observers.py). Issue 15: records carry no display state; display,
check_numerics and the stepper observe tapes through one hook and never change them. Issue 22
item 3: an observer that raises cannot break the tape. Its exception becomes one
ObserverWarning naming it and the event, it is detached, and the result is unchanged."""
import copy
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit import backprop
from tapekit.display import graph
from tapekit.display.tape_log import log_of
from tapekit.observers import ObserverWarning


class Log(tk.TapeObserver):
    def __init__(self):
        self.events = []

    def recorded(self, tape, record, values, out):
        self.events.append(("recorded", record.op.name, float(out)))

    def backward_step(self, tape, record, g, sent, grads):
        self.events.append(("step", record.op.name, float(g), [(i, float(gi)) for i, _, gi in sent]))

    def gradient_done(self, tape, records, grads):
        self.events.append(("done", len(records), {t: float(g) for t, g in grads.items()}))


def test_an_observer_sees_every_op_the_chain_rule_and_the_result():
    x = tk.Variable(2.0)
    log = Log()
    with tk.GradientTape() as tape:
        tape.add_observer(log)
        y = tk.sin(x) * x
    g = tape.gradient(y, x)
    s, c = np.sin(2.0), np.cos(2.0)
    assert log.events[0] == ("recorded", "sin", pytest.approx(s))
    assert log.events[1] == ("recorded", "multiply", pytest.approx(2 * s))
    # Newest first: multiply sends x to sin's output and sin(x) to x; then sin sends cos(x) * x.
    assert log.events[2] == ("step", "multiply", 1.0, [(0, pytest.approx(2.0)), (1, pytest.approx(s))])
    assert log.events[3] == ("step", "sin", pytest.approx(2.0), [(0, pytest.approx(2 * c))])
    assert log.events[4] == ("done", 2, {x._tid: pytest.approx(float(g))})
    assert float(g) == pytest.approx(s + 2 * c)


def test_observers_of_every_tape_apply_to_tapes_created_afterwards():
    log = Log()
    before = tk.GradientTape()
    tk.observe_all_tapes(log)
    try:
        after = tk.GradientTape()
    finally:
        tk.stop_observing_all_tapes(log)
    later = tk.GradientTape()
    x = tk.Variable(1.0)
    for tape in (before, after, later):
        with tape:
            x * 3.0
    assert log.events == [("recorded", "multiply", 3.0)]     # only `after`'s op


def test_an_observer_must_subclass_tape_observer():
    with pytest.raises(TypeError, match="tk.TapeObserver"):
        tk.GradientTape().add_observer(object())


def _state(tape):
    """Everything a tape holds, as plain data: its attributes, and its records' fields."""
    attrs = {k: v for k, v in vars(tape).items() if k not in ("_records", "_watched")}
    records = [(r.op.name, r.in_tids, tuple(np.asarray(v).tolist() if hasattr(v, "dtype") and
                                            not hasattr(v, "tid") else repr(v) for v in r.inputs),
                r.out_tid) for r in tape.records]
    return copy.copy(attrs), records, list(tape._watched)


@pytest.mark.parametrize("record", [False, True])
def test_display_reads_a_tape_without_changing_it(record):
    x = tk.Variable([1.0, 2.0], name="x")
    b = tk.Variable(0.5, name="b")
    with tk.display.option_context(record=record):
        with tk.GradientTape(persistent=True) as tape:
            y = tk.reduce_sum(tk.tanh(x * 2.0) + 1.0)
            z = y * 3.0
        tape.gradient(z, [x, b])
    before = _state(tape)
    keys = set(vars(tape))
    graph.build(tape, z, [x, b])
    tk.show(tape, z, [x, b])
    tape.explain(z, b)
    tape._repr_mimebundle_()
    tape.memory()
    if record:   # (the widgets need the values display recording keeps)
        stepper = tk.widgets.BackpropStepper(tape, z, [x])
        for _ in range(6):
            stepper.step()
        tk.widgets.NodeInspector(tape, z, [x]).check("s0")
    assert set(vars(tape)) == keys
    assert _state(tape) == before


def test_recording_does_not_change_what_a_tape_records():
    def run(record):
        x = tk.Variable([1.0, 2.0])
        with tk.display.option_context(record=record):
            with tk.GradientTape() as tape:
                y = tk.reduce_sum(tk.exp(x) * tk.constant([3.0, 4.0]))
        return tape, x, y

    plain, x0, y0 = run(False)
    shown, x1, y1 = run(True)
    assert set(vars(plain)) == set(vars(shown))
    assert [type(r) for r in plain._records] == [type(r) for r in shown._records] == [tuple] * 3
    assert [type(r) for r in plain.records] == [tk.Record] * 3       # named for readers
    for a, b in zip(plain.records, shown.records):
        assert a.op is b.op and len(a) == len(b) == 6
        assert [type(v) for v in a.inputs] == [type(v) for v in b.inputs]
    np.testing.assert_allclose(plain.gradient(y0, x0).numpy(), shown.gradient(y1, x1).numpy())
    # What display kept lives on its side: the values and the records gradient() released.
    assert log_of(shown).released is not None and len(log_of(shown).values) == 3
    assert log_of(plain).released is None and log_of(plain).values == {}


def test_what_display_shows_of_each_record():
    x = tk.Variable(3.0)
    with tk.display.option_context(record=True):
        with tk.GradientTape(persistent=True) as tape:
            y = x * x * x
    shown = graph.snapshot(tape).records
    assert [r.index for r in shown] == [0, 1] and float(shown[1].value) == 27.0
    assert tuple(shown[0])[1:7] == tuple(tape.records[0])           # the Record's own fields
    assert graph.snapshot(tape).source_records is tape.record_list
    g = backprop.backward(graph.snapshot(tape).source_records, {y._tid: np.float32(1.0)}, [x._tid])
    assert float(g[x._tid]) == 27.0
    with tk.GradientTape(persistent=True) as tape:                  # cached, and extended
        tape.watch(x)
        y = x * 2.0
        first = graph.snapshot(tape).records
        z = y + 1.0
    again = graph.snapshot(tape).records
    assert again[0] is first[0] and [r.op.name for r in again] == ["multiply", "add"]


def test_check_numerics_is_an_observer_of_the_backward_walk():
    x = tk.Variable(0.0)
    with tk.debugging.check_numerics_enabled():
        with tk.GradientTape() as tape:
            y = tk.sqrt(x)
        with pytest.raises(tk.debugging.NumericsError) as info:
            tape.gradient(y, x)
    assert (info.value.op, info.value.phase, info.value.index) == ("sqrt", "backward", 0)
    assert isinstance(tk.debugging.NumericsChecker(), tk.TapeObserver)


# --- an observer that raises -------------------------------------------------------------

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


def test_backward_observer_is_none_without_observers_and_drops_one_that_raised():
    from tapekit.observers import backward_observer
    assert backward_observer("tape", lambda: ()) is None
    seen = []

    class Broken(tk.TapeObserver):
        def backward_step(self, tape, record, g, sent, grads):
            raise KeyError("broken")

    class Good(tk.TapeObserver):
        def backward_step(self, tape, record, g, sent, grads):
            seen.append(record.op.name)

    broken, good = Broken(), Good()
    steps = [(broken.backward_step, good.backward_step)]
    observe = backward_observer(None, lambda: steps[-1])
    with tk.GradientTape(persistent=True) as tape:
        x = tk.constant(2.0)
        tape.watch(x)
        y = x * x
    record = tuple(tape.records[0])
    steps.append((good.backward_step,))     # what the tape holds once Broken is detached
    with pytest.warns(tk.observers.ObserverWarning, match="Broken"):
        observe(record, 1.0, (), {})
    observe(record, 1.0, (), {})
    assert seen == ["multiply", "multiply"]  # Good ran both times; Broken was dropped after once
