"""name_scope: label a block of recorded ops, so a summarised picture shows it as one box.

    with tk.GradientTape() as tape:
        with tk.display.name_scope("dense"):
            h = tk.nn.relu(x @ w + b)

Like `tf.name_scope`, but it only matters for display: the tape and its records
are untouched. Entering and leaving a scope notes, for each tape recording at
that moment, which record indices the scope covered.
"""
import threading
import weakref
from contextlib import contextmanager

from ..context import state
from ..tape import GradientTape

_ranges = weakref.WeakKeyDictionary()   # tape -> [(scope path, records list, start, end)]
_stack = threading.local()              # this thread's open scope names


@contextmanager
def name_scope(name):
    """Group the ops recorded inside this block under `name` (nested scopes give "a/b").

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True), tk.GradientTape() as tape:
    ...     with tk.display.name_scope("layer1"):
    ...         y = tk.tanh(x * 0.5)
    >>> [n.label for n in tk.display.build(tape).nodes]
    ['x:0', 'multiply', 'tanh']
    """
    names = getattr(_stack, "names", None)
    if names is None:
        names = _stack.names = []
    names.append(str(name))
    path = "/".join(names)
    starts = [(tape, tape.record_list, len(tape.record_list)) for tape in state.tapes
              if isinstance(tape, GradientTape)]  # not tk.function's or custom_gradient's helpers
    try:
        yield path
    finally:
        names.pop()
        for tape, records, start in starts:
            end = len(records)
            if end > start and tape.record_list is records:  # gradient() did not swap the list
                _ranges.setdefault(tape, []).append((path, records, start, end))


def ranges(tape, records):
    """The outermost scopes over `records`: [(path, start, end)] sorted by start."""
    spans = sorted((start, -end, path) for path, recs, start, end in _ranges.get(tape, ())
                   if recs is records)
    out = []
    for start, neg_end, path in spans:
        if out and start < out[-1][2]:
            continue  # inside (or overlapping) the previous outer scope
        out.append((path, start, -neg_end))
    return out


class NameScope:
    """`tk.name_scope(name)`, TensorFlow's `tf.name_scope`: a block whose ops are grouped
    under `name`. It changes no number. Entering it returns the scope's full name with a
    trailing "/" ("outer/inner/"), as TensorFlow does; `.name` is the name given. In
    tapekit a scope labels the ops a tape records inside it, so a summarised tape picture
    shows them as one box (it is tk.display.name_scope with TensorFlow's object around it).

    >>> with tk.name_scope("dense") as scope:
    ...     y = tk.constant(2.0) * 3.0
    >>> scope, tk.name_scope("dense").name
    ('dense/', 'dense')
    """

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError(f"name_scope: the name must be a string, got {name!r}")
        self._name = name
        self._scope = None

    @property
    def name(self):
        return self._name

    def __enter__(self):
        self._scope = name_scope(self._name)
        return self._scope.__enter__() + "/"

    def __exit__(self, *exc):
        scope, self._scope = self._scope, None
        return scope.__exit__(*exc)

    def __repr__(self):
        return f"<tk.name_scope {self._name!r}>"
