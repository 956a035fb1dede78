"""Variable writes: noted per tape for tape.explain, and undone when a step fails.

`assign`, `assign_add` and `assign_sub` are state changes that the tape does not
differentiate through (TensorFlow's tape neither): `x1.assign_add(x0); y = x1 ** 2` leaves
`y` without a path to `x0`. tensor.Variable notes each write made while a tape records;
display/why.py reads them to name the assignment instead of guessing at a value that left
the tape. Nothing here changes what a gradient is.

`all_or_nothing()` is a block whose variable writes are undone if it raises: fit runs each
training step in one (trainer.py). Every write appends (variable, its value before) to the
thread's log while a block is open (Variable.assign*, and a tk.function replay for each
variable its program writes); a write replaces the value with a new array, so the log holds
references, never copies.
"""
import weakref

from .context import close_undo, open_undo, state

# tape -> [(method, variable tid, variable name, tid of the value written or None)]
WRITES = weakref.WeakKeyDictionary()
MAX_WRITES = 1000   # per tape: an optimizer stepping inside one tape must not grow it forever


def note(variable, method, value):
    """Note `variable.<method>(value)` on every active tape."""
    for tape in state.tapes:
        try:
            notes = WRITES.setdefault(tape, [])
        except TypeError:   # a pseudo-tape that takes no weak reference: not a GradientTape
            continue
        if len(notes) < MAX_WRITES:
            notes.append((method, variable._tid, variable._path or variable._name,
                          getattr(value, "_tid", None)))


class all_or_nothing:
    """A block whose variable writes, in this thread, are all undone if it raises: every
    variable written in it gets back the value it had when the block began, also one created
    in it (its first value). fit runs each training step in one, so a loss, metric or
    optimizer that raises leaves the weights, the optimizer's slots and iterations and the
    metrics as they were. Blocks nest: an outer block undoes an inner one's writes too.

    >>> from tapekit.writes import all_or_nothing
    >>> v = tk.Variable(1.0)
    >>> try:
    ...     with all_or_nothing():
    ...         _ = v.assign_add(2.0)
    ...         raise RuntimeError("the step failed after its update")
    ... except RuntimeError:
    ...     pass
    >>> float(v)
    1.0
    """

    __slots__ = ("_log", "_outer")

    def __enter__(self):
        self._log = []
        self._outer = open_undo(self._log)
        return self

    def __exit__(self, exc_type, exc, tb):
        close_undo(self._outer)
        if exc_type is None:
            if self._outer is not None:
                self._outer.extend(self._log)
            return False
        for variable, value in reversed(self._log):   # the oldest value of each goes in last
            with variable._lock:
                variable._value = value
        return False
