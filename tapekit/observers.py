"""How other code watches tapes without changing them: tape observers and their registry.

Observers see tapes without changing them. tk.display keeps values and cotangents
for its pictures this way, tk.debugging's check_numerics checks every gradient,
and the widget stepper follows the backward walk. An observer subclasses
TapeObserver and overrides the events it needs:

    recorded(tape, record, values, out)    after `tape` appended `record`; `values` are
                                           all of the op's input arrays, `out` its output
    backward_step(tape, record, g, sent, grads)
                                           in tape.gradient's backward walk, after the chain
                                           rule at `record` (see backprop.backward)
    gradient_done(tape, records, grads)    after gradient/jacobian walked `records` (a
                                           read-only sequence: the tape's RecordList, or
                                           the tuple of records a non-persistent tape
                                           released);
                                           `grads` is {source tape id: cotangent or None}

Attach one to a single tape (`tape.add_observer(obs)`) or to every tape created
from then on (`observe_all_tapes(obs)`, what `tk.display.set_options(record=True)`
does). A tape takes the observers of every tape when it is created, so that
recording an op costs one loop over one tuple.
An observer must not change the arrays it is shown: they are the tape's.

An observer cannot break the tape. When one raises, the exception is shown once as an
ObserverWarning naming the observer and the event, the observer is detached (from that
tape, and from the every-tape registry if it was there, so a broken observer does not
warn again for each new tape), and the op's result or the gradient is what it would
have been without it. An observer whose exceptions are its report to the user
(tk.debugging's check_numerics raises NumericsError on purpose) sets
`reports_by_raising = True`: its exceptions propagate.

The registry of every-tape observers is shared by all threads (behind a lock);
`thread_change` lets one thread add or remove an every-tape observer for the tapes it
creates, without the others seeing it (tk.display.option_context(record=...)).
"""
import threading
import weakref

from .callsite import warn_at_user
from .record import Record


class TapeObserver:
    """Base class of tape observers: every event does nothing until a subclass overrides it.

    >>> class CountOps(tk.TapeObserver):
    ...     def __init__(self):
    ...         self.ops = []
    ...     def recorded(self, tape, record, values, out):
    ...         self.ops.append(record.op.name)
    >>> counter = CountOps()
    >>> x = tk.Variable(2.0)
    >>> with tk.GradientTape() as tape:
    ...     tape.add_observer(counter)
    ...     y = tk.sin(x) * x
    >>> counter.ops
    ['sin', 'multiply']
    """

    def recorded(self, tape, record, values, out):
        """`tape` appended `record`; `values`: all of the op's inputs; `out`: its output."""

    def backward_step(self, tape, record, g, sent, grads):
        """The chain rule ran at `record`: `g` is its output's cotangent, `sent` lists
        (input position, tape id, cotangent) as added to its inputs, `grads` the running
        {tape id: cotangent}."""

    def gradient_done(self, tape, records, grads):
        """gradient() or jacobian() walked `records`, plain tuples in Record's field order, in
        a read-only sequence: the tape's RecordList (a view of its list), or the tuple of the
        records a non-persistent tape has just released; `grads`: {source tape id: result}."""

    # True: an exception this observer raises is meant for the user and propagates
    # (check_numerics's NumericsError). False: it is caught, warned about once, and the
    # observer is detached (observer_failed).
    reports_by_raising = False

    # What the observer keeps alive, for tape.memory() (memory.py).
    keeps_released_records = False   # True: a non-persistent gradient() frees no records

    def held(self, tape):
        """(records, arrays) this observer keeps alive for `tape`, besides the tape's own."""
        return (), ()


def _overrides(observer, event):
    return getattr(type(observer), event) is not getattr(TapeObserver, event)


class Observers:
    """A set of observers, sorted by the events each one overrides (so an observer that only
    wants gradient_done costs nothing per recorded op)."""

    __slots__ = ("all", "recorded", "backward_step", "gradient_done")

    def __init__(self, observers=()):
        self.all = tuple(observers)
        for event in ("recorded", "backward_step", "gradient_done"):
            setattr(self, event, tuple(getattr(o, event) for o in self.all if _overrides(o, event)))

    def plus(self, observer):
        if not isinstance(observer, TapeObserver):
            raise TypeError(f"tape observers must subclass tk.TapeObserver, got "
                            f"{type(observer).__name__}")
        return self if observer in self.all else Observers(self.all + (observer,))

    def minus(self, observer):
        return Observers(o for o in self.all if o is not observer)


# What every new tape starts with. Rebound, never changed in place: tapes hold it.
every_tape = Observers()
_lock = threading.Lock()        # observe_all_tapes from 8 threads keeps all 8 observers
_local = threading.local()      # .changes: this thread's [(observer, on)], see thread_change


def observe_all_tapes(observer):
    """Attach `observer` to every tape created from now on, until `stop_observing_all_tapes`.

    >>> class Names(tk.TapeObserver):
    ...     def recorded(self, tape, record, values, out):
    ...         print("recorded", record.op.name)
    >>> names = Names()
    >>> tk.observe_all_tapes(names)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.Variable(1.0) * 2.0
    recorded multiply
    >>> tk.stop_observing_all_tapes(names)
    """
    global every_tape
    with _lock:
        every_tape = every_tape.plus(observer)
    forgive(observer)


def forgive(observer):
    """Attached again after it raised: warn again if it raises again."""
    try:
        _warned.discard(observer)
    except TypeError:
        pass


def stop_observing_all_tapes(observer):
    """Undo `observe_all_tapes(observer)` for tapes created from now on (no error if it was
    not attached).

    >>> tk.stop_observing_all_tapes(tk.TapeObserver())    # not attached: no error
    """
    global every_tape
    with _lock:
        every_tape = every_tape.minus(observer)


def for_new_tape():
    """The observers a tape created now in this thread starts with: the registry's, with
    this thread's changes (thread_change) applied."""
    changes = getattr(_local, "changes", None)
    if not changes:
        return every_tape
    observers = every_tape
    for observer, on in changes:
        observers = observers.plus(observer) if on else observers.minus(observer)
    return observers


def thread_change(observer, on):
    """Attach (on=True) or detach `observer` for the tapes this thread creates, whatever
    the registry says, until `undo_thread_change(token)` with the returned token."""
    changes = getattr(_local, "changes", None)
    if changes is None:
        changes = _local.changes = []
    token = (observer, bool(on))
    changes.append(token)
    return token


def undo_thread_change(token):
    changes = getattr(_local, "changes", [])
    for k in range(len(changes) - 1, -1, -1):
        if changes[k] is token:
            del changes[k]
            return


# --- an observer that raised ----------------------------------------------------------------

def backward_observer(tape, current_steps):
    """backprop.backward's `observe` callback for `tape`, or None when nobody observes: it
    calls each of `current_steps()` (bound backward_step methods) at every step. One that
    raises is handled as observer_failed says, and the walk goes on with `current_steps()`
    (which no longer holds it)."""
    steps = current_steps()
    if not steps:
        return None

    def observe(record, g, sent, grads):
        nonlocal steps
        record = Record._make(record)
        try:
            for step in steps:
                step(tape, record, g, sent, grads)
        except Exception as e:   # noqa: BLE001 - warned about, detached (observer_failed)
            observer_failed(tape, "backward_step", steps, step, e, (record, g, sent, grads))
            steps = current_steps()
    return observe


class ObserverWarning(RuntimeWarning):
    """A tape observer raised; it was detached and the tape's results are unaffected."""


_warned = weakref.WeakSet()     # observers already warned about: one warning each


def observer_failed(tape, event, methods, failed, exc, args):
    """`failed`, one of `methods` (the bound `event` methods of `tape`'s observers, called in
    order with (tape, *args)), raised `exc`. Re-raise it if its observer reports by raising;
    else warn once, detach the observer, and call the observers after it."""
    k = methods.index(failed)
    for method in methods[k:]:
        try:
            if method is not failed:
                method(tape, *args)
                continue
            raise exc
        except Exception as e:   # noqa: BLE001 - an observer must not break the tape
            observer = method.__self__
            if getattr(observer, "reports_by_raising", False):
                raise
            _detach(tape, observer, event, e, args)


def _detach(tape, observer, event, exc, args):
    remove = getattr(tape, "remove_observer", None)
    if remove is not None:
        remove(observer)
    registered = observer in every_tape.all
    if registered:
        stop_observing_all_tapes(observer)
    try:
        if observer in _warned:
            return
        _warned.add(observer)
    except TypeError:   # not weakly referable: warned about each time
        pass
    where = ""
    if event in ("recorded", "backward_step") and args and isinstance(args[0], Record):
        where = f" at op {args[0].op.name!r} (t{args[0].out_tid})"
    also = (" and from the tapes created from now on (it was attached with "
            "tk.observe_all_tapes)" if registered else "")
    text = repr(observer)
    text = text if len(text) <= 100 else text[:97] + "..."
    message = (f"the tape observer {text} ({type(observer).__name__}) raised "
               f"{type(exc).__name__}: {exc} in {event}(){where}. It is detached from this tape"
               f"{also}, and not called again there; the tape's results are unaffected. Fix it "
               f"and attach it again (tape.add_observer, tk.observe_all_tapes)")
    warn_at_user(message, ObserverWarning)
