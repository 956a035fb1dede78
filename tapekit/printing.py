"""tk.print: TensorFlow's tf.print, eagerly. Tensors print by value (`[1 2 3]`, scalars plain,
long axes summarised as `[0 1 2 ... 7 8 9]`), other values as str() does.

Inside tk.function, Python's print runs only while tracing (the replay skips the Python code);
tk.print is recorded into the program as a step (`_Printer`) and prints at every replay, with
that call's values.

>>> import sys
>>> tk.print("x:", tk.constant([1, 2, 3]), output_stream=sys.stdout)
x: [1 2 3]
>>> tk.print(tk.range(10), tk.constant(0.1), output_stream=sys.stdout)
[0 1 2 ... 7 8 9] 0.1
>>> tk.print(tk.constant([[1.5, 2.0], [3.0, 4.0]]), output_stream=sys.stdout)
[[1.5 2]
 [3 4]]
"""
import builtins
import sys

import numpy as np

from .context import state
from .tensor import Tensor

__all__ = ["print", "format_inputs", "write"]


def _number(v):
    """One element as TensorFlow prints it: the shortest of 6 or 9 significant digits that reads
    back as the same float32 (float16 too: 0.1 is 0.0999755859), 15 or 17 for float64; integers
    as they are; bools as True and False (TensorFlow prints a bool tensor's as 1 and 0)."""
    kind = v.dtype.kind
    if kind == "b":
        return "True" if v else "False"
    if kind != "f":
        return str(v)
    short, long_ = (15, 17) if v.dtype == np.float64 else (6, 9)
    text = f"{float(v):.{short}g}"
    as_read = np.float64 if v.dtype == np.float64 else np.float32   # float16 too, as TensorFlow
    if as_read(text) != as_read(v) and not np.isnan(v):
        text = f"{float(v):.{long_}g}"
    return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(text, text)


def _array(a, summarize, indent=1):
    """Nested brackets, the elements separated by spaces, rows by newlines (as numpy)."""
    if a.ndim == 0:
        return _number(a[()])
    n = a.shape[0]
    cut = summarize is not None and summarize >= 0 and n > 2 * summarize
    idx = list(range(summarize)) + [None] + list(range(n - summarize, n)) if cut else list(range(n))
    if a.ndim == 1:
        return "[" + " ".join("..." if i is None else _number(a[i]) for i in idx) + "]"
    parts = ["..." if i is None else _array(a[i], summarize, indent + 1) for i in idx]
    sep = "\n" * (a.ndim - 1) + " " * indent
    return "[" + sep.join(parts) + "]"


def _format(value, summarize):
    if isinstance(value, Tensor):
        return _array(np.asarray(value._value), summarize)
    if isinstance(value, (np.ndarray, np.generic)):
        return _array(np.asarray(value), summarize)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_format(v, summarize) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_format(v, summarize)}" for k, v in value.items()) + "}"
    return str(value)


def format_inputs(*inputs, summarize=3, sep=" ", end="\n"):
    """The text tk.print writes for `inputs` (without writing it)."""
    if summarize is None:   # TensorFlow's None: 3 at each end, as the default
        summarize = 3
    if not isinstance(summarize, (int, np.integer)):
        raise TypeError(f"print: summarize must be an int (-1: every element), got {summarize!r}")
    return sep.join(_format(v, summarize) for v in inputs) + end


def write(text, output_stream=None):
    """Write `text` to a stream, a "file://path" (appended), or sys.stderr when None."""
    if output_stream is None:
        output_stream = sys.stderr
    if isinstance(output_stream, str):
        if not output_stream.startswith("file://"):
            raise ValueError(f"print: output_stream must be a stream (sys.stdout, sys.stderr) or "
                             f"'file://path', got {output_stream!r}")
        with builtins.open(output_stream[len("file://"):], "a") as f:
            f.write(text)
        return
    output_stream.write(text)
    if hasattr(output_stream, "flush"):
        output_stream.flush()


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001
    """Print tensors by value, and any other values (`tf.print`); returns None.

    output_stream: sys.stderr by default (TensorFlow's default, looked up at each call), or
    sys.stdout, a file object, or "file://path". summarize: how many elements to show at each
    end of a long axis (-1: all; None: 3, as TensorFlow).

    >>> import sys
    >>> tk.print("loss", tk.constant(0.25), "step", 3, output_stream=sys.stdout)
    loss 0.25 step 3
    >>> tk.print(tk.range(6), summarize=2, sep=" | ", output_stream=sys.stdout)
    [0 1 ... 4 5]
    """
    printer = _Printer(sep, end, output_stream, summarize)
    for recorder in state.tapes:   # a tk.function tracing this call: its replays print too
        recorder.record_print(printer, inputs)
        if recorder.dry:
            return None    # get_concrete_function: traced, not run
    printer.show([i._value if isinstance(i, Tensor) else i for i in inputs])
    return None


print_ = print   # the name generated programs call (print would shadow the builtin there)


class _Printer:
    """One tk.print call site's options; `show` prints the values of one call."""

    def __init__(self, sep, end, output_stream, summarize):
        self.sep, self.end, self.stream, self.summarize = sep, end, output_stream, summarize

    def text(self, values):
        return format_inputs(*values, summarize=self.summarize, sep=self.sep, end="")

    def show(self, values):
        write(self.text(values) + self.end, self.stream)

    def __repr__(self):
        return "tk.print"
