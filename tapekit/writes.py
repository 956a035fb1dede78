"""Variable writes made while a tape records, noted per tape for tape.explain.

`assign`, `assign_add` and `assign_sub` are state changes that the tape does not
differentiate through (TensorFlow's tape neither): `x1.assign_add(x0); y = x1 ** 2` leaves
`y` without a path to `x0`. tensor.Variable notes each write made while a tape records;
display/why.py reads them to name the assignment instead of guessing at a value that left
the tape. Nothing here changes what a gradient is.
"""
import weakref

from .context import state

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
