"""How tk.debugging's NaN/Inf errors describe what went wrong: the user's line that called
the op, each value's shape, dtype, range and where its first NaN or Inf sit, the op's
inputs and attributes.
"""
import linecache
import sys

import numpy as np

from .callsite import user_frame
from .ops.registry import Meta
from .tensor import Tensor


# --- finding the user's line ---------------------------------------------------------------

LIBRARY = ("tapekit", "numpy")


def user_site(frame):
    """(filename, lineno, function) of the innermost frame outside tapekit and NumPy."""
    frame = user_frame(frame, LIBRARY)
    if frame is None:
        return ("<unknown>", 0, "<unknown>")
    return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


def format_site(site, what):
    filename, lineno, function = site
    text = f"{what} at {filename}:{lineno}, in {function}"
    code = linecache.getline(filename, lineno).strip()
    return f"{text}\n      {code}" if code else text


def inside(function):
    """True if `function` is running further up the stack (used only on failure)."""
    code = function.__code__
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


# --- describing values ------------------------------------------------------------------------

def has_nonfinite(value):
    """True if a float array holds NaN or Inf."""
    return value.dtype.kind in "fc" and not np.isfinite(value).all()


def nonfinite_kinds(value):
    nan, inf = int(np.isnan(value).sum()), int(np.isinf(value).sum())
    return " and ".join(k for k, n in (("NaN", nan), ("Inf", inf)) if n) or "no NaN/Inf"


def describe(value):
    """'shape (3,) float32: min -1, max 2', with NaN/Inf counts and where the first are."""
    if isinstance(value, Meta):
        return f"shape {value.shape} {value.dtype.name} (its value is not kept on the tape)"
    if isinstance(value, Tensor):
        value = value._value
    if not isinstance(value, (np.ndarray, np.generic)):
        return repr(value)  # a Python scalar
    value = np.asarray(value)
    head = f"shape {value.shape} {value.dtype.name}"
    if value.size == 0:
        return f"{head}: empty"
    if value.dtype.kind not in "fc":
        if value.dtype.kind in "iub" and value.size == 1:
            return f"{head}: {value.item()}"
        if value.dtype.kind in "iub":
            return f"{head}: min {value.min()}, max {value.max()}"
        return head
    finite = np.isfinite(value)
    if finite.all() and value.size == 1:
        return f"{head}: {num(value.real.item())}"
    if finite.all():
        return f"{head}: min {num(value.real.min())}, max {num(value.real.max())}"
    counts = [(int(np.isnan(value).sum()), "NaN")]
    if value.dtype.kind == "f":
        counts += [(int((value == np.inf).sum()), "+Inf"), (int((value == -np.inf).sum()), "-Inf")]
    else:
        counts.append((int(np.isinf(value).sum()), "Inf"))
    text = f"{head}: " + ", ".join(f"{n} {kind}" for n, kind in counts if n)
    if value.ndim:
        where = [str(tuple(int(i) for i in idx)) for idx in np.argwhere(~finite)[:3]]
        text += " at " + ", ".join(where) + (", ..." if (~finite).sum() > 3 else "")
    if finite.any():
        text += (f"; finite values in [{num(value[finite].real.min())}, "
                 f"{num(value[finite].real.max())}]")
    return text


def num(x):
    return f"{float(x):.4g}"


def input_names(op, n):
    if not op.variadic and len(op.args) == n:
        return list(op.args)
    base = op.args[0] if op.args else "input"
    return [f"{base}[{k}]" for k in range(n)]


def op_text(op, attrs):
    shown = [f"{k}={v!r}" for k, v in attrs.items() if not isinstance(v, np.ndarray)]
    return f"{op.name}({', '.join(shown)})" if shown else op.name


def record_text(recorded):
    if not recorded:
        return "not recorded on a tape"
    if len(recorded) == 1:
        return f"record #{recorded[0][1]} on the tape"
    return "records " + ", ".join(f"#{i}" for _, i in recorded) + " on the active tapes (outermost first)"
