"""Clipping: clip_by_value (one op, the gradient passes inside the bounds), and clip_by_norm
and clip_by_global_norm, composed from recorded ops (TensorFlow's formulas); saturate_cast,
a cast that clips to the target dtype's range first."""
import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .arithmetic import sqrt
from .passthrough import cast, stop_gradient
from .reductions import reduce_sum
from .conversion import convert_to_tensor
from .registry import defop, numpy_function
from .selection import maximum, minimum, where


# --- clip_by_value: the gradient passes where the value passes ----------------------------------
def _clip(x, lo, hi):
    return np.clip(x, lo, hi)


def _inside(x, lo, hi):
    return (x >= lo) & (x <= hi)


clip_by_value_op = defop(
    "clip_by_value", _clip, args="x lo hi", save="x lo hi", same_dtype=True,   # int32 by 1.5: TF raises
    vjp=[lambda g, ans, x, lo, hi: where(_inside(x, lo, hi), g, 0),   # passes at the bounds
         lambda g, ans, x, lo, hi: where(x < lo, g, 0),
         lambda g, ans, x, lo, hi: where(x > hi, g, 0)],
    jvp=[lambda t, ans, x, lo, hi: where(_inside(x, lo, hi), t, 0),
         lambda t, ans, x, lo, hi: where(x < lo, t, 0),
         lambda t, ans, x, lo, hi: where(x > hi, t, 0)])


@numpy_function(np.clip)
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clip values to [min, max]; the gradient passes inside and at the bounds.

    >>> tk.clip_by_value(tk.constant([-2.0, 0.5, 3.0]), -1.0, 1.0)
    tk.Tensor([-1.   0.5  1. ], shape=(3,), dtype=float32)
    """
    return clip_by_value_op(t, clip_value_min, clip_value_max)


# --- clipping by the L2 norm ------------------------------------------------------------------
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Scale `t` so its L2 norm (over `axes`) is at most clip_norm; a zero vector stays finite.

    >>> tk.clip_by_norm(tk.constant([3.0, 4.0]), 1.0)        # norm 5 -> 1
    tk.Tensor([0.6 0.8], shape=(2,), dtype=float32)

    >>> tk.clip_by_norm(tk.constant([0.3, 0.4]), 1.0)        # norm 0.5: unchanged
    tk.Tensor([0.3 0.4], shape=(2,), dtype=float32)
    """
    t = convert_to_tensor(t)
    l2sum = reduce_sum(t * t, axis=axes, keepdims=True)
    positive = l2sum > 0
    # sqrt only where positive, so neither the value nor the gradient becomes NaN at 0.
    l2norm = where(positive, sqrt(where(positive, l2sum, 1)), l2sum)
    clip = cast(clip_norm, t.dtype) if isinstance(clip_norm, Tensor) else clip_norm
    return t * clip / maximum(l2norm, clip)


def global_norm(t_list, name=None):
    """sqrt(sum of squared L2 norms) over all tensors in t_list (None entries skipped).

    >>> tk.global_norm([tk.constant([3.0]), tk.constant([4.0])])    # sqrt(3**2 + 4**2)
    tk.Tensor(5.0, shape=(), dtype=float32)
    """
    tensors = [convert_to_tensor(t) for t in t_list if t is not None]
    if not tensors:
        raise ValueError("global_norm: t_list holds no tensors (every entry is None)")
    total = None
    for t in tensors:
        s = reduce_sum(t * t)
        total = s if total is None else total + s
    return sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by clip_norm / max(global_norm, clip_norm); returns (list, global_norm).

    >>> clipped, norm = tk.clip_by_global_norm([tk.constant([3.0]), tk.constant([4.0])], 1.0)
    >>> norm
    tk.Tensor(5.0, shape=(), dtype=float32)
    >>> clipped
    [tk.Tensor([0.6], shape=(1,), dtype=float32), tk.Tensor([0.8], shape=(1,), dtype=float32)]
    """
    if isinstance(t_list, (Tensor, np.ndarray)) or not hasattr(t_list, "__iter__"):
        raise TypeError("clip_by_global_norm: t_list must be a list of tensors")
    t_list = list(t_list)
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    dtype = norm.dtype
    clip = cast(clip_norm, dtype) if isinstance(clip_norm, Tensor) else clip_norm
    # TF: clip_norm * min(1 / norm, 1 / clip_norm) + (norm - norm): an infinite or NaN norm
    # makes every entry NaN (1 / inf alone would make the finite entries 0). The added zero
    # passes no gradient, so gradients stay as they were.
    scale = clip * minimum(1.0 / norm, 1.0 / clip if not isinstance(clip, Tensor) else 1.0 / clip)
    scale = scale + stop_gradient(norm - norm)
    clipped = [None if t is None else convert_to_tensor(t) * cast(scale, convert_to_tensor(t).dtype)
               for t in t_list]
    return clipped, norm


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
