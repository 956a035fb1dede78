"""tk.print: print tensors' values at every call, also inside tk.function (`tf.print`).

Python's print inside a tk.function runs only while tracing (the replay skips the
Python code); tk.print is recorded into the program as a step and prints at every
replay, with that call's values.

    >>> tk.print("x:", tk.constant([1.0, 2.0]))
    x: [1 2]
"""
import sys

import numpy as np

from .context import state
from .tensor import Tensor


def print_(*inputs, sep=" ", end="\n", output_stream=None, summarize=3):
    """Print `inputs` (tensors as their values, anything else with str) at every call."""
    printer = _Printer(sep, end, output_stream, summarize)
    if state.tapes:
        for tape in state.tapes:   # a tk.function tracing: its replays print too
            hook = getattr(tape, "_record_print", None)
            if hook is not None:
                hook(printer, inputs)
                if getattr(tape, "dry", False):
                    return None    # get_concrete_function: traced, not run
    printer.show([i._value if isinstance(i, Tensor) else i for i in inputs], tensors=[
        isinstance(i, Tensor) for i in inputs])
    return None


class _Printer:
    """One tk.print call site's options; `show` prints the values of one call."""

    def __init__(self, sep, end, output_stream, summarize):
        self.sep, self.end, self.stream, self.summarize = sep, end, output_stream, summarize

    def text(self, values, tensors):
        return self.sep.join(_format(v, self.summarize) if t else str(v)
                             for v, t in zip(values, tensors))

    def show(self, values, tensors):
        stream = self.stream if self.stream is not None else sys.stdout
        if isinstance(stream, str):   # tf.print's "file://..." is not supported: stderr/stdout
            stream = sys.stderr if "stderr" in stream else sys.stdout
        stream.write(self.text(values, tensors) + self.end)

    def __repr__(self):
        return "tk.print"


def _format(value, summarize):
    # tf.print's style: [1 2 3], no dtype, '...' past `summarize` items per axis.
    arr = np.asarray(value)
    if arr.ndim == 0:
        return np.format_float_positional(arr.item(), trim="-") if arr.dtype.kind == "f" \
            else str(arr.item())
    threshold = arr.size + 1 if summarize is None or summarize < 0 else 2 * summarize
    return np.array2string(arr, separator=" ", threshold=threshold, edgeitems=summarize or 3,
                           formatter={"float_kind": lambda f: np.format_float_positional(
                               f, trim="-")})
