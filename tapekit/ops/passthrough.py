"""Ops that pass a value through: cast (to another dtype), saturate_cast (a cast that clamps),
identity (unchanged) and stop_gradient (unchanged, without its gradient).

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.identity(tk.constant([1.0, 2.0]))
tk.Tensor([1. 2.], shape=(2,), dtype=float32)
"""
import numpy as np

from .. import dtypes
from .registry import defop


# --- cast: differentiable between floating dtypes only ----------------------------------
def _cast_vjp(g, ans, x, dtype):
    if ans.dtype.kind != "f" or x.dtype.kind != "f":
        return None
    return cast_op(g, dtype=x.dtype)


def _cast_jvp(t, ans, x, dtype):
    if ans.dtype.kind != "f" or x.dtype.kind != "f":
        return None
    return cast_op(t, dtype=ans.dtype)


cast_op = defop("cast", lambda x, dtype: np.asarray(x).astype(dtype, copy=False),
                vjp=[_cast_vjp], jvp=[_cast_jvp])


def cast(x, dtype, name=None):
    """`x` converted to `dtype`; the gradient flows back only between floating dtypes.

    >>> tk.cast(tk.constant([1.7, -1.7]), tk.int32)      # truncates toward zero, as TensorFlow
    tk.Tensor([ 1 -1], shape=(2,), dtype=int32)

    >>> x = tk.Variable(2.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.cast(x, tk.float64) ** 2
    >>> tape.gradient(y, x)            # float32 -> float64 -> float32: the gradient flows
    tk.Tensor(4.0, shape=(), dtype=float32)
    """
    return cast_op(x, dtype=dtypes.as_dtype(dtype))


# --- identity and stop_gradient ---------------------------------------------------------
identity = defop("identity", lambda x: x, args="input",   # tf.identity(input)
                 vjp=[lambda g, ans, x: g], jvp=[lambda t, ans, x: t])

stop_gradient_op = defop(
    "stop_gradient", lambda x: x, vjp=[None], jvp=[None],
    doc="Identity forward; no gradient flows back through it (recorded, so the display can show it).")


def stop_gradient(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """Treat `input` as a constant for differentiation (`tf.stop_gradient`).

    >>> x = tk.Variable(3.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.stop_gradient(x * x) + x     # the value of x * x, but no gradient through it
    >>> y
    tk.Tensor(12.0, shape=(), dtype=float32)
    >>> tape.gradient(y, x)
    tk.Tensor(1.0, shape=(), dtype=float32)
    """
    return stop_gradient_op(input)


# --- saturate_cast: a cast that clamps instead of wrapping around ------------------------------
def _range(d):
    """(smallest, largest) number of dtype `d`, as exact Python numbers."""
    if d.kind == "f":
        return float(np.finfo(d).min), float(np.finfo(d).max)
    return int(np.iinfo(d).min), int(np.iinfo(d).max)


def _bounds(src, dst):
    """The interval of `dst`'s range, as numbers of dtype `src` inside it: a bound that
    rounds to outside it in `src` (int32's 2**31 - 1 is 2**31 as float32) moves toward 0."""
    (lo_s, hi_s), (lo_d, hi_d) = _range(src), _range(dst)
    out = []
    for bound in (max(lo_s, lo_d), min(hi_s, hi_d)):
        v = np.array(bound).astype(src)
        if abs(v.item()) > abs(bound):
            v = np.nextafter(v, np.zeros((), src))
        out.append(v)
    return out


def saturate_cast(value, dtype, name=None):
    """`value` cast to `dtype`, numbers outside its range clamped to its smallest or largest
    (`tf.saturate_cast`) where tk.cast would wrap around or overflow; NaN becomes 0 in an
    integer dtype. The gradient is the cast's where nothing was clamped, and 0 where it was.

    >>> tk.saturate_cast(tk.constant([-1.5, 300.0, 2.7]), tk.uint8)
    tk.Tensor([  0 255   2], shape=(3,), dtype=uint8)
    >>> tk.saturate_cast(tk.constant([1e6, 1.0]), tk.float16)
    tk.Tensor([6.55e+04 1.00e+00], shape=(2,), dtype=float16)
    """
    from .clipping import clip_by_value
    from .conversion import convert_to_tensor
    from .selection import where

    x = convert_to_tensor(value)
    dst = dtypes.as_dtype(dtype)
    src = x.dtype
    if dst.kind not in "fiu" or src.kind not in "fiu":
        raise TypeError(f"saturate_cast: casts between float and integer dtypes only (the range "
                        f"of {dst.name if dst.kind not in 'fiu' else src.name} has no smallest "
                        f"and largest number to clamp to); got {src.name} to {dst.name}")
    lo, hi = _bounds(src, dst)
    smallest, largest = _range(src)
    if lo.item() > smallest or hi.item() < largest:
        x = clip_by_value(x, lo, hi)
    if src.kind == "f" and dst.kind in "iu":
        x = where(x != x, np.zeros((), src), x)    # NaN: 0, as TensorFlow's
    return cast(x, dst)
