"""Display options, and the switch that makes tapes keep what the picture shows.

Records normally keep only what derivative rules need (an `add` keeps no values),
so by default the picture can show shapes and dtypes but not every value. With
recording on, display observes every tape (tape_log.py): it keeps each new record's
output value, the cotangent of every node of the last gradient call, and the records
a non-persistent tape releases in `gradient`, on its own side; the tapes record what
they always do. Recording is on by default inside IPython and Jupyter (where tapes
are displayed) and off elsewhere, where it costs nothing.
"""
import sys
from contextlib import contextmanager

from .tape_log import record_values, recording_values

OPTIONS = {"rankdir": "TB", "show_values": True, "precision": 4, "max_nodes": 100}


def set_options(*, record=None, **options):
    """Change display defaults; returns the previous ones (pass them back to restore).

    record: True to keep every value and gradient for display (default: on in IPython);
    rankdir: "TB" (top-down) or "LR" (left-right); show_values: values in the picture;
    precision: digits after the point; max_nodes: summarise larger graphs (None: never).

    >>> previous = tk.display.set_options(rankdir="LR")
    >>> tk.display.set_options(**previous)["rankdir"]   # restore; returns what it replaced
    'LR'
    """
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise TypeError(f"tk.display.set_options: unknown option(s) {sorted(unknown)}; "
                        f"known: record, {', '.join(OPTIONS)}")
    previous = dict(OPTIONS, record=recording())
    OPTIONS.update(options)
    if record is not None:
        record_values(record)   # observes every tape created from now on
    return previous


def recording():
    """True when new records keep their values and gradient() keeps every cotangent.

    >>> with tk.display.option_context(record=False):    # on by default in Jupyter
    ...     tk.display.recording()
    False
    """
    return recording_values()


@contextmanager
def option_context(**options):
    """Temporarily change display options (and `record`) inside a `with` block.

    >>> before = tk.display.recording()
    >>> with tk.display.option_context(record=True):
    ...     tk.display.recording()
    True
    >>> tk.display.recording() == before        # restored on leaving the block
    True
    """
    previous = set_options(**options)
    try:
        yield
    finally:
        set_options(**previous)


def in_ipython():
    """True inside an IPython shell or a Jupyter kernel."""
    ipython = sys.modules.get("IPython")
    return ipython is not None and ipython.get_ipython() is not None
