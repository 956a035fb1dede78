"""Records, the read-only view of a tape's list, and Recorder: the events every recorder
in the active-tape list is shown (tapekit/record.py)."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.context import state
from tapekit.record import Record, Recorder, RecordList


class Events(Recorder):
    """A recorder that writes down every event it is shown (and records no op)."""

    def __init__(self):
        self.events = []

    def _record(self, op, args, values, tids, result, attrs):
        self.events.append(("op", op.name, float(np.sum(result._value))))

    def record_create(self, variable):
        self.events.append(("create", variable._value.tolist()))   # float(v) would be a guard

    def record_assign(self, variable, value, new):
        self.events.append(("assign", float(new)))

    def record_update(self, variable, ufunc, delta):
        self.events.append(("update", ufunc.__name__, float(delta._value)))

    def record_guard(self, tensor, kind, value):
        self.events.append(("guard", kind, np.asarray(value).tolist()))


@pytest.fixture
def events():
    recorder = Events()
    state.tapes.append(recorder)
    try:
        yield recorder.events
    finally:
        state.tapes.remove(recorder)


def test_records_compare_and_hash_by_their_output_id():
    x = tk.Variable(2.0)
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x) * 3.0
    first, again = tape.records[-1], tape.records[-1]
    assert first is not again and first == again and hash(first) == hash(again)
    assert first != tape.records[0] and first != tuple(first)
    assert repr(first) == f"<Record t{y._tid} = multiply(t{first.in_tids[0]}, const)>"
    # what it saved: multiply keeps both inputs, sin(2) and the constant 3
    assert float(first.inputs[0]) == pytest.approx(np.sin(2.0)) and first.inputs[1] == 3.0


def test_the_record_list_is_a_read_only_view_that_follows_the_tape():
    x = tk.Variable(1.5)
    with tk.GradientTape(persistent=True) as tape:
        view = tape.record_list
        assert len(view) == 0 and not view
        y = x * x
        assert len(view) == 1 and view is tape.record_list     # the same view, grown
        z = tk.exp(y)
    assert [Record._make(r).op.name for r in view] == ["multiply", "exp"]
    assert [Record._make(r).op.name for r in reversed(view)] == ["exp", "multiply"]
    assert isinstance(view[0:1], tuple) and view[-1] == view[1]
    for change in (lambda: view.append(view[0]), lambda: view.__setitem__(0, None),
                   lambda: view.__delitem__(0)):
        with pytest.raises((AttributeError, TypeError)):
            change()
    assert len(tape.record_list) == 2
    # d/dx exp(x^2) = 2x exp(x^2), from the tape the view showed
    assert float(tape.gradient(z, x)) == pytest.approx(2 * 1.5 * np.exp(1.5 ** 2), rel=1e-6)
    with tape:                          # reset() starts a new record list inside a block, as TF's
        tape.reset()
    assert tape.record_list is not view and len(tape.record_list) == 0 and len(view) == 2


def test_a_non_persistent_gradient_gives_observers_the_view_of_the_released_list():
    seen = []

    class Done(tk.TapeObserver):
        def gradient_done(self, tape, records, grads):
            seen.append(records)

    x = tk.Variable(3.0)
    with tk.GradientTape() as tape:
        tape.add_observer(Done())
        y = x * x
        view = tape.record_list
    assert float(tape.gradient(y, x)) == 6.0            # 2x
    assert seen == [view] and seen[0] is view and len(view) == 1
    assert len(tape.record_list) == 0 and tape.record_list is not view


def test_a_recorder_is_shown_every_variable_event_and_python_read(events):
    v = tk.Variable(1.0)
    v.assign(4.0)
    v.assign_add(2.0)     # not traced: an eager update, no update event (records_writes False)
    assert bool(tk.constant(3.0) > 2.0)
    assert events == [("create", 1.0), ("assign", 4.0), ("op", "greater", 1.0),
                      ("guard", "bool", 1.0)]
    assert float(v) == 6.0


def test_a_recorder_that_records_writes_gets_traced_updates(events):
    recorder = state.tapes[-1]
    recorder.records_writes = True          # as tk.function's tracer
    v = tk.Variable(np.float32(1.0))
    v.assign_sub(tk.constant(0.25, tk.float64))   # a float64 delta, cast (a recorded op) first
    assert events[1:] == [("op", "cast", 0.25), ("update", "subtract", 0.25)]
    assert float(v) == 0.75 and v.dtype == np.float32
    w = tk.Variable([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="inside a tk.function"):
        w[0].assign(5.0)                    # a slice write is refused while tracing
    assert w._value.tolist() == [1.0, 2.0]      # (w.numpy() would be a guard event)


def test_the_base_recorder_ignores_every_event_but_ops():
    base = Recorder()
    v = tk.Variable(1.0)
    assert base.record_create(v) is None and base.record_assign(v, 1.0, np.float32(1.0)) is None
    assert base.record_update(v, np.add, 1.0) is None and base.record_guard(v, "bool", 1.0) is None
    assert base.record_print(None, ()) is None and base.record_check(v, None) is None
    assert base.record_lock(None) is None
    assert base.records_writes is False and base.dry is False
    with pytest.raises(NotImplementedError, match="records no ops"):
        base._record(None, (), (), (), None, {})
    assert isinstance(tk.GradientTape(), Recorder) and isinstance(RecordList([]), RecordList)


def test_a_persistent_tape_shows_observers_the_same_view_it_hands_out():
    seen = []

    class Done(tk.TapeObserver):
        def gradient_done(self, tape, records, grads):
            seen.append(records)

    x = tk.Variable(1.0)
    with tk.GradientTape(persistent=True) as tape:
        tape.add_observer(Done())
        y = tk.sin(x)
    assert float(tape.gradient(y, x)) == pytest.approx(np.cos(1.0))
    assert float(tape.gradient(y, x)) == pytest.approx(np.cos(1.0))
    assert seen[0] is seen[1] is tape.record_list and len(seen[0]) == 1
