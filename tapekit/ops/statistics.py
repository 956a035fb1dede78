"""Reductions of tk.math beyond sums and extremes: argmax / argmin (integer results, no
gradient), reduce_variance, reduce_std, reduce_logsumexp (stable) and count_nonzero; and
tf.nn.moments, tf.math.top_k and tf.math.confusion_matrix; tf.nn.compute_average_loss and
tf.nn.scale_regularization_loss.

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
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap_array
from .arithmetic import sqrt, squared_difference
from .conversion import convert_to_tensor
from .indexing import getitem_op
from .passthrough import cast, stop_gradient
from .reductions import expand_back, reduce_mean_op, reduce_sum_op, reduction_axes
from .inputs import as_axis, as_int, python_value
from .registry import defop
from .shapes import reshape, squeeze
from .special import divide_no_nan
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


# --- moments: mean and variance in one call -------------------------------------------------------
def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of `x` over `axes` (`tf.nn.moments`, batch normalization's statistics);
    `shift` is accepted and unused, as in TensorFlow. float16 is computed in float32.

    The variance is TensorFlow's: the mean of squared deviations from a mean held constant
    (stop_gradient). Its first derivative is the variance's, 2 (x - mean) / n; its second
    derivative is therefore 2/n on the diagonal only, TensorFlow's number, not the
    variance's own (2/n (1 - 1/n)); tk.math.reduce_variance has that one.

    >>> mean, variance = tk.nn.moments(tk.constant([[1.0, 2.0], [3.0, 6.0]]), axes=[0])
    >>> mean, variance
    (tk.Tensor([2. 4.], shape=(2,), dtype=float32), tk.Tensor([1. 4.], shape=(2,), dtype=float32))
    >>> tk.nn.moments(tk.constant([[1.0, 2.0], [3.0, 6.0]]), axes=[0, 1], keepdims=True)[0]
    tk.Tensor([[3.]], shape=(1, 1), dtype=float32)
    """
    x = convert_to_tensor(x)
    y = cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
    axis = reduction_axes(axes, y.ndim, "moments")
    mean = reduce_mean_op(y, axis=axis, keepdims=True)
    variance = reduce_mean_op(squared_difference(y, stop_gradient(mean)), axis=axis, keepdims=True)
    if not keepdims and axis:
        mean, variance = squeeze(mean, axis=list(axis)), squeeze(variance, axis=list(axis))
    if x.dtype == dtypes.float16:
        mean, variance = cast(mean, dtypes.float16), cast(variance, dtypes.float16)
    return mean, variance


# --- top_k: the k largest along the last axis ----------------------------------------------------
class TopKV2(tuple):
    """What tk.math.top_k returns, as TensorFlow's: a pair (values, indices) whose parts are
    also named, `result.values` and `result.indices`."""

    __slots__ = ()
    _fields = ("values", "indices")

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    values = property(lambda self: self[0], doc="The k largest entries of each row.")
    indices = property(lambda self: self[1], doc="Where they are in the row (the last axis).")

    def __repr__(self):
        return f"TopKV2(values={self[0]!r}, indices={self[1]!r})"


def _descending_order(x, k):
    """The positions of each row's k largest entries, largest first; equal entries in the
    order of their positions, NaN above everything (TensorFlow's order)."""
    if x.dtype.kind == "f":
        key = -np.where(np.isnan(x), 0, x)
    else:
        key = ~x          # reverses the order of any integer type, without overflow
    positions = np.broadcast_to(np.arange(x.shape[-1]), x.shape)
    order = np.lexsort((positions, key, ~np.isnan(x) if x.dtype.kind == "f" else key * 0), axis=-1)
    return order[..., :k]


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """The `k` largest entries of each row (the last axis) and their positions
    (`tf.math.top_k`, also tf.nn.top_k): a pair `TopKV2(values, indices)`. Equal entries
    come in the order of their positions. With sorted=False TensorFlow's order is
    unspecified; tapekit gives the sorted order then too. The gradient sends each value's
    cotangent back to its position (the indices have none).

    >>> result = tk.math.top_k(tk.constant([[1.0, 3.0, 3.0, 2.0], [5.0, 4.0, 4.0, 0.0]]), k=2)
    >>> result.values
    tk.Tensor(
    [[3. 3.]
     [5. 4.]], shape=(2, 2), dtype=float32)
    >>> result.indices
    tk.Tensor(
    [[1 2]
     [0 1]], shape=(2, 2), dtype=int32)
    """
    x = convert_to_tensor(input)
    k = as_int(k, "top_k: k")
    index_type = dtypes.as_dtype(index_type)
    if index_type not in (dtypes.int16, dtypes.int32, dtypes.int64):
        raise TypeError(f"top_k: index_type must be tk.int16, tk.int32 or tk.int64, got "
                        f"{index_type.name}")
    if x.ndim == 0:
        raise InvalidArgumentError("top_k: input must have rank 1 or more (the k largest of each "
                                   "row, along the last axis), got a scalar")
    if x.dtype.kind not in "fiu":
        raise InvalidArgumentError(f"top_k: input must be numbers (float or integer), got "
                                   f"{x.dtype.name}")
    n = int(x.shape[-1])
    if k < 0 or k > n:
        raise InvalidArgumentError(f"top_k: k = {k}, but the input's rows (last axis, shape "
                                   f"{tuple(x.shape)}) have {n} entries; k must be in [0, {n}]")
    order = _descending_order(x._value, k)
    lead = tuple(np.arange(m).reshape((1,) * i + (m,) + (1,) * (x.ndim - i - 1))
                 for i, m in enumerate(x.shape[:-1]))
    values = getitem_op(x, index=lead + (order,))
    return TopKV2(values, wrap_array(order.astype(index_type)))


# --- confusion_matrix: counts of (label, prediction) pairs ----------------------------------------
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32,
                     name=None):
    """The matrix whose entry [i, j] counts the examples of label i predicted as j
    (`tf.math.confusion_matrix`); with `weights`, their sum instead of a count. It has
    `num_classes` rows and columns, or, when None, one more than the largest label or
    prediction. Counts, not differentiable.

    >>> tk.math.confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2])
    tk.Tensor(
    [[1 0 0]
     [0 1 1]
     [0 0 1]], shape=(3, 3), dtype=int32)
    """
    def ids(v, what, other):
        a = np.asarray(python_value(v))
        if a.ndim == np.ndim(python_value(other)) + 1 and a.shape[-1:] == (1,):
            a = a[..., 0]        # TensorFlow squeezes a trailing axis of size 1 the other lacks
        if a.ndim != 1:
            raise InvalidArgumentError(f"confusion_matrix: {what} must be a vector of class ids, "
                                       f"got shape {a.shape}")
        if a.dtype.kind not in "iu" and not (a.dtype.kind == "f" and np.all(a == np.floor(a))):
            raise InvalidArgumentError(f"confusion_matrix: {what} must be integer class ids, got "
                                       f"{a.dtype.name} values")
        if a.size and a.min() < 0:
            raise InvalidArgumentError(f"confusion_matrix: {what} must be >= 0, got {a.min()}")
        return a.astype(np.int64)

    lab, pred = ids(labels, "labels", predictions), ids(predictions, "predictions", labels)
    if lab.shape != pred.shape:
        raise InvalidArgumentError(f"confusion_matrix: labels and predictions must have one shape, got "
                         f"{lab.shape} and {pred.shape}")
    top = int(max(lab.max(initial=-1), pred.max(initial=-1)))
    if num_classes is None:
        n = top + 1
    else:
        n = as_int(num_classes, "confusion_matrix: num_classes")
        if top >= n:
            raise InvalidArgumentError(f"confusion_matrix: labels and predictions must be < "
                                       f"num_classes = {n}, got {top}")
    dtype = dtypes.as_dtype(dtype)
    if weights is None:
        w = np.ones(lab.shape, dtype)
    else:
        w = np.asarray(python_value(weights))
        if w.shape != lab.shape:
            raise ValueError(f"confusion_matrix: weights must have the labels' shape {lab.shape}, "
                             f"got {w.shape}")
        w = dtypes.check_cast(w, dtype, "confusion_matrix: weights")
    out = np.zeros((n, n), dtype)
    np.add.at(out, (lab, pred), w)
    return wrap_array(out)


# --- a batch's average loss, as tf.distribute strategies want it -----------------------------------
def _float_loss(x):
    x = convert_to_tensor(x)
    return x if x.dtype.kind == "f" else cast(x, dtypes.float64)   # int32 / int: float64 in TF


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of the (weighted) losses divided by the global batch size
    (`tf.nn.compute_average_loss`): what a custom training loop under a tf.distribute
    strategy adds up over replicas. tapekit has one replica, so the global batch size is, by
    default, the batch: axis 0 of `per_example_loss`. Its entries are summed whole (a
    [batch, time] loss is summed over time too); `sample_weight`, one per example or a
    number, multiplies them first. A global batch size of 0 gives 0, as in TensorFlow.

    >>> tk.nn.compute_average_loss([1.0, 2.0, 3.0, 4.0])
    tk.Tensor(2.5, shape=(), dtype=float32)
    >>> tk.nn.compute_average_loss([[1.0, 2.0], [3.0, 4.0]], sample_weight=[0.5, 1.0])
    tk.Tensor(4.25, shape=(), dtype=float32)
    """
    loss = _float_loss(per_example_loss)
    if loss.ndim == 0:
        raise ValueError(f"compute_average_loss: per_example_loss must have rank 1 or more (one "
                         f"loss per example), got the scalar {loss.numpy()}")
    if sample_weight is not None:
        weight = convert_to_tensor(sample_weight, dtype=loss.dtype) \
            if not hasattr(sample_weight, "_value") else sample_weight
        if weight.ndim > loss.ndim:
            raise ValueError(f"compute_average_loss: sample_weight of shape {tuple(weight.shape)} "
                             f"has more axes than per_example_loss {tuple(loss.shape)}")
        if weight.ndim:
            weight = reshape(weight, tuple(weight.shape) + (1,) * (loss.ndim - weight.ndim))
        loss = loss * weight
    if global_batch_size is None:
        batch = int(loss.shape[0])
    else:
        value = python_value(global_batch_size)
        if np.asarray(value).dtype.kind not in "iu":
            raise TypeError(f"compute_average_loss: global_batch_size must be an integer, got "
                            f"{value!r}")
        batch = as_int(value, "compute_average_loss: global_batch_size")
    total = reduce_sum_op(loss, axis=tuple(range(-loss.ndim, 0)), keepdims=False)
    return divide_no_nan(total, np.asarray(batch, loss.dtype))


def scale_regularization_loss(regularization_loss):
    """The regularization losses summed, divided by the number of replicas
    (`tf.nn.scale_regularization_loss`): one, in tapekit, so it is their sum.

    >>> tk.nn.scale_regularization_loss([0.5, 0.25])
    tk.Tensor(0.75, shape=(), dtype=float32)
    """
    loss = _float_loss(regularization_loss)
    return reduce_sum_op(loss, axis=tuple(range(-loss.ndim, 0)), keepdims=False)
