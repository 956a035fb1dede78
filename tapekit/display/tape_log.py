"""What display keeps about a tape, on its own side: tape observers (tapekit/observers.py).

A record keeps only what its derivative rules read (an `add` keeps no values), and
a non-persistent tape drops its records in `gradient`. The picture wants more, so
two observers keep it here, in a `TapeLog` per tape (weakly keyed: it goes when the
tape goes). Neither ever writes to the tape.

- `VALUES` (attached to every tape while `tk.display.set_options(record=True)`, the
  default in IPython): every record's output value, the constants recorded ops read,
  every cotangent of the last gradient call, and the records a non-persistent
  gradient() released.
- `STRUCTURE` (always attached; it only listens to gradient_done, so it costs nothing
  per op): when a non-persistent gradient() returns None for a source, the released
  records' structure (ops, tape ids, shapes, dtypes; no arrays), so `tape.explain` can
  still say why.
"""
import weakref

from ..ops.registry import meta
from ..observers import TapeObserver, observe_all_tapes, stop_observing_all_tapes
from ..record import Record


class TapeLog:
    """What display knows about one tape besides the tape itself."""

    def __init__(self):
        self.values = {}        # output tape id -> its value (display recording)
        self.constants = {}     # tape id -> value of an untracked tensor a recorded op read
        self.grads = {}         # tape id -> cotangent, from the last gradient call
        self._walking = {}      # the cotangents of the gradient call running now
        self.released = None    # the records a non-persistent gradient() dropped, if kept
        self.structure = None   # or their structure only (a gradient was None)
        self.freed = 0          # how many records that gradient() dropped
        self.shown, self.shown_from = [], None   # snapshot.py's ShownRecord wrappers, and of what list


_logs = weakref.WeakKeyDictionary()   # tape -> TapeLog


def log_of(tape):
    """The TapeLog of `tape` (empty if nothing was kept)."""
    log = _logs.get(tape)
    if log is None:
        log = _logs[tape] = TapeLog()
    return log


class ValueRecorder(TapeObserver):
    """Keeps each record's output, each constant read, each cotangent, the released records."""

    keeps_released_records = True

    def held(self, tape):
        log = _logs.get(tape)
        if log is None:
            return (), ()
        return (log.released or (), [*log.values.values(), *log.constants.values(),
                                     *(getattr(g, "_value", g) for g in log.grads.values())])

    def recorded(self, tape, record, values, out):
        log = log_of(tape)
        log.values[record.out_tid] = out
        for v, tid in zip(values, record.in_tids):
            if tid is not None and not tape.is_tracked(tid):
                log.constants.setdefault(tid, v)

    def backward_step(self, tape, record, g, sent, grads):
        log_of(tape)._walking[record.out_tid] = g

    def gradient_done(self, tape, records, grads):
        log = log_of(tape)
        log.grads, log._walking = log._walking, {}
        log.grads.update((tid, g) for tid, g in grads.items() if g is not None)
        if not tape.persistent:
            log.released, log.structure, log.freed = records, None, len(records)


class StructureKeeper(TapeObserver):
    """After a non-persistent gradient() with a None result: the released records' structure."""

    def held(self, tape):
        log = _logs.get(tape)
        return (log.structure or (), ()) if log is not None else ((), ())

    def gradient_done(self, tape, records, grads):
        if tape.persistent:
            return
        log = log_of(tape)
        log.freed = len(records)
        if log.released is records:   # VALUES ran before this and keeps the records themselves
            return
        log.released = log.structure = None
        if records and any(g is None for g in grads.values()):
            log.structure = [Record(op, in_tids, tuple([meta(v) for v in inputs]), meta(ans), {}, out)
                             for op, in_tids, inputs, ans, _, out in records]


VALUES = ValueRecorder()
STRUCTURE = StructureKeeper()
# At import (listed in tapekit/__init__.py): every tape keeps, for explain, the structure of
# what a non-persistent gradient() released when a gradient was None. No cost per op.
observe_all_tapes(STRUCTURE)
_recording = False


def record_values(on):
    """Attach (on=True) or detach the value recorder to every tape."""
    global _recording
    _recording = bool(on)
    (observe_all_tapes if on else stop_observing_all_tapes)(VALUES)


def recording_values():
    return _recording
