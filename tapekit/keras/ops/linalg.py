"""keras.ops.linalg: the norm (also keras.ops.norm), NumPy's numpy.linalg.norm on tapekit's ops.

    >>> tk.keras.ops.norm(tk.constant([3.0, 4.0]))
    tk.Tensor(5.0, shape=(), dtype=float32)
    >>> tk.keras.ops.norm(tk.constant([[1.0, -2.0], [3.0, 4.0]]), ord=1)   # the largest column sum
    tk.Tensor(6.0, shape=(), dtype=float32)
"""
import numbers

import numpy as np

from ... import ops as tk_ops   # tapekit's op table, by TensorFlow's names (tapekit/ops/)
from ...namespaces import missing, public_dir
from .promotion import floating

__all__ = ["norm"]


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - Keras's name
    """A vector norm (axis an int, or x 1-D): ord None or 2 (Euclidean), 1, inf, -inf, 0 (the
    number of non-zeros) or any p; a matrix norm (axis a pair, or x 2-D): None or "fro"
    (Frobenius), 1 / -1 (largest / smallest column sum of |x|), inf / -inf (rows). An integer x
    gives float32. ord 2, -2 and "nuc" of a matrix need singular values, which tapekit lacks."""
    x = floating(x)
    if axis is None:
        if x.ndim > 2:
            raise ValueError(f"keras.ops.norm: x has {x.ndim} axes; give axis (an int for "
                             f"vector norms, a pair for matrix norms), as Keras 3 asks too")
        axis = tuple(range(x.ndim))
    axes = [int(axis)] if isinstance(axis, numbers.Integral) else [int(a) for a in axis]
    axes = [a % x.ndim for a in axes]
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    return _matrix_norm(x, ord, axes, keepdims)


def _vector_norm(x, ord, axis, keepdims):  # noqa: A002
    a = tk_ops.abs(x)
    if ord is None or ord == 2:
        return tk_ops.sqrt(tk_ops.reduce_sum(x * x, axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"keras.ops.norm: ord={ord!r} is a matrix norm; for a vector use None, "
                         f"1, 2, inf, -inf, 0 or a number p")
    if ord == np.inf:
        return tk_ops.reduce_max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return tk_ops.reduce_min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return tk_ops.reduce_sum(tk_ops.cast(tk_ops.not_equal(x, 0), x.dtype), axis=axis,
                                 keepdims=keepdims)
    if ord == 1:
        return tk_ops.reduce_sum(a, axis=axis, keepdims=keepdims)
    p = float(ord)
    return tk_ops.reduce_sum(a ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    row, col = axes
    if ord is None or ord == "fro":
        return tk_ops.sqrt(tk_ops.reduce_sum(x * x, axis=axes, keepdims=keepdims))
    a = tk_ops.abs(x)
    if ord in (1, -1, np.inf, -np.inf):
        # 1: sum down each column (over the row axis), then the largest; inf: along each row
        first, second = (row, col) if ord in (1, -1) else (col, row)
        sums = tk_ops.reduce_sum(a, axis=first, keepdims=True)
        pick = tk_ops.reduce_max if ord in (1, np.inf) else tk_ops.reduce_min
        out = pick(sums, axis=second, keepdims=True)
        return out if keepdims else tk_ops.squeeze(out, axis=sorted(axes))
    raise NotImplementedError(f"keras.ops.norm: ord={ord!r} of a matrix needs its singular "
                              f"values, which tapekit does not compute; use ord=None ('fro'), "
                              f"1, -1, inf or -inf")


__dir__ = public_dir(globals())
__getattr__ = missing(__name__)
