"""Reductions of tk.math beyond sums and extremes: argmax / argmin (integer results, no
gradient), reduce_variance, reduce_std, reduce_logsumexp (stable) and count_nonzero.

Examples (an object's reference entry shows the paragraphs that name it):

>>> x = tk.constant([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
>>> tk.argmax(x)                       # axis=0 when None, as TensorFlow; int64
tk.Tensor([1 0 1], shape=(3,), dtype=int64)
>>> tk.math.argmin(x, axis=1, output_type=tk.int32)
tk.Tensor([0 1], shape=(2,), dtype=int32)

>>> tk.math.reduce_variance(tk.constant([1.0, 2.0, 3.0, 4.0]))
tk.Tensor(1.25, shape=(), dtype=float32)
>>> tk.math.reduce_std(tk.constant([1.0, 3.0]))
tk.Tensor(1.0, shape=(), dtype=float32)
>>> tk.math.reduce_logsumexp(tk.constant([1000.0, 1000.0]))   # no overflow: 1000 + log 2
tk.Tensor(1000.6932, shape=(), dtype=float32)
>>> tk.math.count_nonzero(tk.constant([0.0, 2.0, 0.0, 1.0]))
tk.Tensor(2, shape=(), dtype=int64)

>>> w = tk.Variable([0.0, 0.0])
>>> with tk.GradientTape() as tape:
...     y = tk.math.reduce_logsumexp(w)
>>> tape.gradient(y, w)                # the softmax of w
tk.Tensor([0.5 0.5], shape=(2,), dtype=float32)
"""
import math

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .arithmetic import sqrt
from .reductions import expand_back, reduce_mean_op, reduce_sum_op, reduction_axes
from .inputs import as_axis
from .registry import defop
from .transcendental import exp


def _ndim(x):
    return x._value.ndim if isinstance(x, Tensor) else np.ndim(x)


# --- argmax / argmin: integer results, not differentiable ---------------------------------------
argmax_op = defop("argmax", lambda x, axis, output_type: np.argmax(x, axis=axis).astype(output_type),
                  doc="Index of the largest value along `axis` (the first, on ties).")
argmin_op = defop("argmin", lambda x, axis, output_type: np.argmin(x, axis=axis).astype(output_type),
                  doc="Index of the smallest value along `axis` (the first, on ties).")


def _arg(op, input, axis, output_type):  # noqa: A002
    ndim = _ndim(input)
    if ndim == 0:
        raise ValueError(f"{op.name}: needs a tensor of rank 1 or more, got a scalar")
    axis = as_axis(0 if axis is None else axis, ndim, f"{op.name}: axis")
    output_type = dtypes.as_dtype(output_type)
    if output_type not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{op.name}: output_type must be tk.int32 or tk.int64, got {output_type.name}")
    return op(input, axis=axis, output_type=output_type)


def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the largest value along `axis` (`tf.math.argmax`; axis=None means 0, not all axes).

    >>> tk.argmax(tk.constant([3.0, 9.0, 9.0]))     # the first of equal maxima; int64
    tk.Tensor(1, shape=(), dtype=int64)
    """
    return _arg(argmax_op, input, axis, output_type)


def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the smallest value along `axis` (`tf.math.argmin`; axis=None means 0).

    >>> tk.argmin(tk.constant([[1.0, 0.0], [0.5, 2.0]]), axis=1)
    tk.Tensor([1 0], shape=(2,), dtype=int64)
    """
    return _arg(argmin_op, input, axis, output_type)


# --- variance and standard deviation --------------------------------------------------------------
def _count(x, axis):
    return math.prod(x.shape[a] for a in axis)


def _centred(x, axis):
    return x - reduce_mean_op(x, axis=axis, keepdims=True)


reduce_variance_op = defop(
    "reduce_variance", lambda x, axis, keepdims: np.var(x, axis=axis, keepdims=keepdims),
    save="x", float_only=True,
    vjp=[lambda g, ans, x, axis, keepdims: expand_back(g, ans, x, axis, keepdims)
         * (_centred(x, axis) * (2 / _count(x, axis)))],
    jvp=[lambda t, ans, x, axis, keepdims: reduce_sum_op(t * _centred(x, axis), axis=axis, keepdims=keepdims)
         * (2 / _count(x, axis))],
    doc="The mean of squared deviations from the mean over `axis` (divides by n, as TensorFlow).")


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Variance over `axis` (all axes when None), dividing by n (`tf.math.reduce_variance`).

    >>> tk.reduce_variance(tk.constant([[1.0, 3.0], [5.0, 5.0]]), axis=1)
    tk.Tensor([1. 0.], shape=(2,), dtype=float32)
    """
    return reduce_variance_op(input_tensor, axis=reduction_axes(axis, _ndim(input_tensor), "reduce_variance"),
                              keepdims=bool(keepdims))


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """Standard deviation over `axis`: sqrt(reduce_variance) (`tf.math.reduce_std`).

    >>> tk.reduce_std(tk.constant([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    tk.Tensor(2.0, shape=(), dtype=float32)
    """
    return sqrt(reduce_variance(input_tensor, axis, keepdims))


# --- logsumexp ------------------------------------------------------------------------------------
def _logsumexp(x, axis, keepdims):
    m = np.maximum.reduce(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0).astype(x.dtype, copy=False)   # all -inf: log(0) = -inf
    with np.errstate(divide="ignore"):   # a group of only -inf: log(0) = -inf is the answer
        out = np.log(np.add.reduce(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _softmax_of(ans, x, axis, keepdims):
    return exp(x - expand_back(ans, ans, x, axis, keepdims))


reduce_logsumexp_op = defop(
    "reduce_logsumexp", _logsumexp, save="x ans", float_only=True,
    vjp=[lambda g, ans, x, axis, keepdims: expand_back(g, ans, x, axis, keepdims)
         * _softmax_of(ans, x, axis, keepdims)],
    jvp=[lambda t, ans, x, axis, keepdims: reduce_sum_op(t * _softmax_of(ans, x, axis, keepdims),
                                                         axis=axis, keepdims=keepdims)],
    doc="log(sum(exp(x))) over `axis`, shifted by the maximum so that exp cannot overflow.")


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over `axis`, computed stably (`tf.math.reduce_logsumexp`).

    >>> tk.reduce_logsumexp(tk.constant([0.0, 0.0, 0.0, 0.0]))    # log 4
    tk.Tensor(1.3862944, shape=(), dtype=float32)
    """
    return reduce_logsumexp_op(input_tensor, axis=reduction_axes(axis, _ndim(input_tensor), "reduce_logsumexp"),
                               keepdims=bool(keepdims))


# --- count_nonzero --------------------------------------------------------------------------------
count_nonzero_op = defop(
    "count_nonzero",
    lambda x, axis, keepdims, dtype: np.add.reduce(x != 0, axis=axis, keepdims=keepdims).astype(dtype),
    doc="How many elements are not zero over `axis`.")


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):  # noqa: A002
    """The number of non-zero elements over `axis` (`tf.math.count_nonzero`, int64 by default).

    >>> tk.count_nonzero(tk.constant([[0, 1], [2, 3]]), axis=0)
    tk.Tensor([1 2], shape=(2,), dtype=int64)
    """
    return count_nonzero_op(input, axis=reduction_axes(axis, _ndim(input), "count_nonzero"),
                            keepdims=bool(keepdims), dtype=dtypes.as_dtype(dtype))
