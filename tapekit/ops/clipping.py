"""Clipping: clip_by_value (one op, the gradient passes inside the bounds), and clip_by_norm
and clip_by_global_norm, composed from recorded ops (TensorFlow's formulas)."""
import numpy as np


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
