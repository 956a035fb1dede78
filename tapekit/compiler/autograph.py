"""tk.autograph.to_code: the Python a tk.function runs (`tf.autograph.to_code`).

TensorFlow's to_code returns AutoGraph's conversion of the function's source (Python
control flow rewritten into graph ops). tapekit converts nothing: it traces the real
Python and records each decision on a traced value as a guard (see function.py). What it
runs is the generated program of a trace: straight-line Python, one line per op, a guard
per decision. to_code returns that source for a tk.function's most recent trace, and for a
plain Python function its own source, under a comment that says so.
"""
import inspect
import textwrap

from .function import Function
from ..namespaces import missing, public_dir

_HEADER = """\
# tapekit does not convert this source (TensorFlow's AutoGraph would rewrite its loops and ifs
# into graph ops). tk.function runs it as written: each trace records the ops a call runs,
# and each Python decision on a tensor (if, while, bool(x)) becomes a guard that later calls
# check, so they take the path eager Python would take.
# The program a trace generates: print(tk.function({name}).get_concrete_function(...)),
# or tk.autograph.to_code(f) for a tk.function f after a call.
"""


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The Python source tapekit runs for `entity`.

    For a tk.function: the generated source of its last trace (it must have been called, or
    asked for get_concrete_function). For a plain Python function: its own source, as
    written, under a comment saying how tapekit runs it (TensorFlow returns AutoGraph's
    converted source here; tapekit converts nothing).

    >>> def double(x):
    ...     return 2.0 * x
    >>> print(tk.autograph.to_code(double).splitlines()[0])
    # tapekit does not convert this source (TensorFlow's AutoGraph would rewrite its loops and ifs
    """
    if isinstance(entity, Function):
        if entity._last_program is None:
            raise ValueError(f"tk.autograph.to_code: tk.function {entity._name} has not been "
                             f"traced yet; call it, or f.get_concrete_function(tk.TensorSpec(...)), "
                             f"first")
        return entity._last_program.code
    if not callable(entity):
        raise TypeError(f"tk.autograph.to_code: expected a Python function or a tk.function, got "
                        f"{type(entity).__name__} {entity!r}")
    try:
        source = inspect.getsource(entity)
    except (OSError, TypeError) as e:
        raise ValueError(f"tk.autograph.to_code: the source of {entity!r} is not available "
                         f"({e}); functions typed at a prompt or built with exec have none") from None
    name = getattr(entity, "__name__", "f")
    return _HEADER.format(name=name if name.isidentifier() else "f") + textwrap.dedent(source)


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
__getattr__ = missing("tapekit.autograph")   # its public name, tk.autograph: a name tapekit lacks says so
