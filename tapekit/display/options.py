"""Display options, and the switch that makes tapes keep what the picture shows.

Records normally keep only what derivative rules need (an `add` keeps no values),
so by default the picture can show shapes and dtypes but not every value. With
recording on, display observes every tape (tape_log.py): it keeps each new record's
output value, the cotangent of every node of the last gradient call, and the records
a non-persistent tape releases in `gradient`, on its own side; the tapes record what
they always do. Recording is on by default inside IPython and Jupyter (where tapes
are displayed) and off elsewhere, where it costs nothing.

Threads: `set_options` changes the process-wide defaults, which every thread sees.
`option_context` overrides them in the current thread only, for its block: two threads
each inside their own option_context leave each other's settings alone, and a thread
started later sees the defaults. Inside an option_context, set_options still changes
the defaults, but the block's own overrides win in that thread until it ends.
"""
import sys
import threading
from collections.abc import Mapping
from contextlib import contextmanager

from ..observers import thread_change, undo_thread_change
from .tape_log import VALUES, record_values, recording_values

_DEFAULTS = {"rankdir": "TB", "show_values": True, "precision": 4, "max_nodes": 100}
_lock = threading.Lock()
_local = threading.local()     # .overrides: a list of dicts, innermost option_context last


class _Options(Mapping):
    """The display options as this thread sees them: its option_context overrides over the
    process defaults. Read like a dict (`OPTIONS["rankdir"]`, `{**OPTIONS}`)."""

    def __getitem__(self, key):
        for layer in reversed(getattr(_local, "overrides", ())):
            if key in layer:
                return layer[key]
        return _DEFAULTS[key]

    def __iter__(self):
        return iter(_DEFAULTS)

    def __len__(self):
        return len(_DEFAULTS)

    def __repr__(self):
        return repr(dict(self))


OPTIONS = _Options()


def _check(options, what):
    unknown = set(options) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"tk.display.{what}: unknown option(s) {sorted(unknown)}; "
                        f"known: record, {', '.join(_DEFAULTS)}")


def set_options(*, record=None, **options):
    """Change display defaults (for every thread); returns the previous ones (pass them back
    to restore).

    record: True to keep every value and gradient for display (default: on in IPython);
    rankdir: "TB" (top-down) or "LR" (left-right); show_values: values in the picture;
    precision: digits after the point (numbers under 0.1 keep as many significant digits);
    max_nodes: summarise larger graphs (None: never).

    >>> previous = tk.display.set_options(rankdir="LR")
    >>> tk.display.set_options(**previous)["rankdir"]   # restore; returns what it replaced
    'LR'
    """
    _check(options, "set_options")
    with _lock:
        previous = dict(_DEFAULTS, record=recording_values())
        _DEFAULTS.update(options)
        if record is not None:
            record_values(record)   # observes every tape created from now on
    return previous


def recording():
    """True when new records keep their values and gradient() keeps every cotangent (in this
    thread: an option_context(record=...) here decides, else the process default).

    >>> with tk.display.option_context(record=False):    # on by default in Jupyter
    ...     tk.display.recording()
    False
    """
    for layer in reversed(getattr(_local, "overrides", ())):
        if "record" in layer:
            return layer["record"]
    return recording_values()


@contextmanager
def option_context(**options):
    """Change display options (and `record`) inside a `with` block, in this thread only.

    >>> before = tk.display.recording()
    >>> with tk.display.option_context(record=True):
    ...     tk.display.recording()
    True
    >>> tk.display.recording() == before        # restored on leaving the block
    True
    """
    _check({k: v for k, v in options.items() if k != "record"}, "option_context")
    layer = {k: v for k, v in options.items() if not (k == "record" and v is None)}
    overrides = getattr(_local, "overrides", None)
    if overrides is None:
        overrides = _local.overrides = []
    if "record" in layer:
        layer["record"] = bool(layer["record"])
        token = thread_change(VALUES, layer["record"])   # this thread's new tapes only
    overrides.append(layer)
    try:
        yield
    finally:
        del overrides[next(k for k, o in enumerate(overrides) if o is layer)]
        if "record" in layer:
            undo_thread_change(token)


def in_ipython():
    """True inside an IPython shell or a Jupyter kernel."""
    ipython = sys.modules.get("IPython")
    return ipython is not None and ipython.get_ipython() is not None
