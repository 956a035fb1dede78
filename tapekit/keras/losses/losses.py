"""Keras's regression and cross-entropy losses (Keras 3 keeps its losses in
keras/src/losses/losses.py): MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
MeanSquaredLogarithmicError, Huber, LogCosh, CosineSimilarity, BinaryCrossentropy,
CategoricalCrossentropy, SparseCategoricalCrossentropy, on the `Loss` base of loss.py.

    loss_fn = tk.losses.MeanSquaredError()
    loss_fn([[1.0], [2.0]], [[1.5], [2.0]])      # tk.Tensor(0.125, shape=(), dtype=float32)

Each loss computes one value per example (the functions below, averaged over the last
axis as Keras does), then reduces them as Keras's default "sum_over_batch_size": the
sum divided by the number of values. Probabilities are clipped to [1e-7, 1 - 1e-7]
before the log, as Keras does; `from_logits=True` uses the fused, stable log-sum-exp
ops of `tk.nn` (or TensorFlow's stable formula for the sigmoid). Predictions made by Keras's
`sigmoid` or `softmax` activation are read from their logits, as Keras 3 reads them.
"""
import math
import warnings

from ...convert import convert_to_tensor
from ...ops import (abs, cast, clip_by_value, equal, exp, expand_dims, l2_normalize, log, maximum,
                   minimum, range, reduce_mean, reduce_sum, softmax_cross_entropy_with_logits,
                   softplus, square, squeeze, where)
from ...ops.cross_entropy import check_class_ids
from ..activations import keras_logits
from ..backend import EPSILON
from .loss import Loss, as_float, prepare


# --- per-example losses (keras.losses.mean_squared_error and friends) -----------------------
def mean_squared_error(y_true, y_pred):
    """mean((y_true - y_pred) ** 2) over the last axis.

    >>> tk.losses.mean_squared_error(tk.constant([[0.0, 1.0]]), tk.constant([[1.0, 1.0]]))
    tk.Tensor([0.5], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    return reduce_mean(square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """mean(abs(y_true - y_pred)) over the last axis.

    >>> tk.losses.mean_absolute_error(tk.constant([[0.0, 1.0]]), tk.constant([[1.0, 3.0]]))
    tk.Tensor([1.5], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    return reduce_mean(abs(y_true - y_pred), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """0.5 x**2 where abs(x) <= delta, else delta * (abs(x) - 0.5 delta); x = y_true - y_pred.

    >>> tk.losses.huber(tk.constant([[0.0, 0.0]]), tk.constant([[0.5, 3.0]]))   # (0.125 + 2.5) / 2
    tk.Tensor([1.3125], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    error = abs(y_true - y_pred)
    quadratic = minimum(error, delta)          # the part of |x| up to delta
    return reduce_mean(0.5 * square(quadratic) + delta * (error - quadratic), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(abs(y_true - y_pred) / max(abs(y_true), 1e-7)) over the last axis (Keras's
    "mape"; the 1e-7 keeps a zero label from dividing by zero).

    >>> tk.losses.mean_absolute_percentage_error(tk.constant([[2.0, 4.0]]), tk.constant([[1.0, 5.0]]))
    tk.Tensor([37.5], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    return 100.0 * reduce_mean(abs(y_true - y_pred) / maximum(abs(y_true), EPSILON), axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(y_pred + 1) - log(y_true + 1)) ** 2) over the last axis, each at least 1e-7.

    >>> tk.losses.mean_squared_logarithmic_error(tk.constant([[0.0, 1.0]]), tk.constant([[0.0, 3.0]]))   # log(2) ** 2 / 2
    tk.Tensor([0.2402265], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    first_log = log(maximum(y_pred, EPSILON) + 1.0)
    return reduce_mean(square(first_log - log(maximum(y_true, EPSILON) + 1.0)), axis=-1)


_LOG2 = math.log(2.0)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis, as x + softplus(-2 x) - log(2).

    >>> tk.losses.log_cosh(tk.constant([[0.0, 0.0]]), tk.constant([[1.0, -1.0]]))   # log(cosh(1))
    tk.Tensor([0.43378085], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    x = y_pred - y_true
    return reduce_mean(x + softplus(x * -2.0) - _LOG2, axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    """-sum(l2_normalize(y_true) * l2_normalize(y_pred)) along `axis`: -1 when they point the
    same way. A norm below 1e-7 is taken as 1e-7 (Keras's normalize), so zeros give 0.

    >>> tk.losses.cosine_similarity(tk.constant([[1.0, 0.0]]), tk.constant([[2.0, 2.0]]))   # -cos(45 deg)
    tk.Tensor([-0.70710677], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    # Keras's normalize: x / max(norm(x), 1e-7), that is x * rsqrt(max(sum(x ** 2), 1e-14))
    unit_true, unit_pred = (l2_normalize(v, axis, EPSILON ** 2) for v in (y_true, y_pred))
    return -reduce_sum(unit_true * unit_pred, axis=axis)


def sigmoid_cross_entropy_with_logits(labels, logits):
    """TensorFlow's stable form: max(x, 0) - x * z + log(1 + exp(-abs(x)))."""
    positive = logits >= 0
    relu_logits = where(positive, logits, 0)
    neg_abs_logits = where(positive, -logits, logits)
    return relu_logits - logits * labels + log(1 + exp(neg_abs_logits))


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0):
    """-(y log p + (1 - y) log(1 - p)), averaged over the last axis.

    label_smoothing s moves each label toward 1/2, as Keras: y * (1 - s) + s / 2.

    >>> tk.losses.binary_crossentropy(tk.constant([[1.0, 0.0]]), tk.constant([[0.5, 0.5]]))   # log 2
    tk.Tensor([0.6931472], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    y_pred, from_logits = _logits(y_pred, from_logits, "binary_crossentropy", "sigmoid")
    if y_true.shape != y_pred.shape:   # Keras refuses to broadcast here; (N,) against (N, 1) matched above
        raise ValueError(f"binary_crossentropy: y_true and y_pred must have the same shape, got "
                         f"{y_true.shape} and {y_pred.shape}; give one label per prediction")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        per_entry = sigmoid_cross_entropy_with_logits(y_true, y_pred)
    else:
        p = clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        per_entry = -(y_true * log(p) + (1 - y_true) * log(1 - p))
    return reduce_mean(per_entry, axis=-1)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0):
    """-sum(y_true * log p) over the last axis; y_true is one-hot (or a distribution).

    label_smoothing s moves each label toward 1/K over K classes, as Keras: y * (1 - s) + s / K.

    >>> tk.losses.categorical_crossentropy(tk.constant([[0.0, 1.0]]), tk.constant([[0.5, 0.5]]))
    tk.Tensor([0.6931472], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred, same_rank=False)
    y_pred, from_logits = _logits(y_pred, from_logits, "categorical_crossentropy", "softmax")
    if y_true.shape != y_pred.shape:
        raise ValueError(f"categorical_crossentropy: y_true and y_pred must have the same shape, "
                         f"got {y_true.shape} and {y_pred.shape} (integer labels? use "
                         f"SparseCategoricalCrossentropy)")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_pred.shape[-1]
    if from_logits:
        return softmax_cross_entropy_with_logits(y_true, y_pred, axis=-1)
    p = y_pred / reduce_sum(y_pred, axis=-1, keepdims=True)  # rows must sum to 1
    p = clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return -reduce_sum(y_true * log(p), axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    """Cross-entropy with integer class ids: -log p[label].

    >>> tk.losses.sparse_categorical_crossentropy(tk.constant([1]), tk.constant([[0.0, 0.0]]), from_logits=True)
    tk.Tensor([0.6931472], shape=(1,), dtype=float32)
    """
    y_pred, from_logits = _logits(as_float(y_pred), from_logits, "sparse_categorical_crossentropy",
                                  "softmax")
    labels = convert_to_tensor(y_true)
    if labels.dtype.kind not in "iu":
        labels = cast(labels, "int64")   # Keras accepts float labels such as 2.0
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = squeeze(labels, axis=-1)
    n_classes = y_pred.shape[-1]
    if labels.shape != y_pred.shape[:-1]:
        raise ValueError(f"sparse_categorical_crossentropy: labels of shape {labels.shape} do not "
                         f"match y_pred of shape {y_pred.shape} (expected {y_pred.shape[:-1]})")
    # Checked by an op, so that tk.function replays check the labels too.
    labels = check_class_ids(labels, n_classes=n_classes, caller="sparse_categorical_crossentropy")
    logits = y_pred if from_logits else log(clip_by_value(y_pred, EPSILON, 1.0 - EPSILON))
    # One-hot built with recorded ops (equal, cast), so tk.function replays it with new labels.
    one_hot = cast(equal(expand_dims(labels, -1), range(n_classes, dtype=labels.dtype)), y_pred.dtype)
    return softmax_cross_entropy_with_logits(one_hot, logits, axis=-1)


def _logits(y_pred, from_logits, caller, activation):
    """Keras 3: predictions made by its sigmoid or softmax carry their logits, and the loss is
    read from them (from_logits=True, as it said, is then a mistake: warned, and still read)."""
    logits = keras_logits(y_pred)
    if logits is None:
        return y_pred, from_logits
    if from_logits:
        warnings.warn(f"{caller} received from_logits=True, but the predictions come from a "
                      f"{activation} activation and are not logits; their logits are used",
                      stacklevel=3)
    logits = convert_to_tensor(logits)
    return (logits if logits.dtype == y_pred.dtype else cast(logits, y_pred.dtype)), True


def check_label_smoothing(value, caller):
    """label_smoothing as a float in [0, 1] (the range Keras documents), else a clear error."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{caller}: label_smoothing must be a number in [0, 1], got {value!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{caller}: label_smoothing must be in [0, 1] (0: no smoothing), got {value}")
    return value


# --- the loss classes -----------------------------------------------------------------------
class MeanSquaredError(Loss):
    """mean((y_true - y_pred) ** 2) (`tf.keras.losses.MeanSquaredError`).

    >>> mse = tk.losses.MeanSquaredError()
    >>> mse(tk.constant([[0.0], [1.0]]), tk.constant([[1.0], [1.0]]))     # mean of 1 and 0
    tk.Tensor(0.5, shape=(), dtype=float32)
    """

    fn = staticmethod(mean_squared_error)


class MeanAbsoluteError(Loss):
    """mean(abs(y_true - y_pred)) (`keras.losses.MeanAbsoluteError`).

    >>> mae = tk.losses.MeanAbsoluteError()
    >>> mae(tk.constant([[0.0], [1.0]]), tk.constant([[2.0], [1.0]]))     # mean of 2 and 0
    tk.Tensor(1.0, shape=(), dtype=float32)
    """

    fn = staticmethod(mean_absolute_error)


class Huber(Loss):
    """Quadratic for errors up to `delta`, linear beyond (`keras.losses.Huber`).

    >>> tk.losses.Huber()(tk.constant([[0.0], [0.0]]), tk.constant([[0.5], [3.0]]))
    tk.Tensor(1.3125, shape=(), dtype=float32)
    """

    fn = staticmethod(huber)

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss"):
        super().__init__(reduction, name, delta=delta)


class MeanAbsolutePercentageError(Loss):
    """100 * mean(abs(y_true - y_pred) / abs(y_true)) (`keras.losses.MeanAbsolutePercentageError`).

    >>> tk.losses.MeanAbsolutePercentageError()(tk.constant([[2.0], [4.0]]), tk.constant([[1.0], [5.0]]))
    tk.Tensor(37.5, shape=(), dtype=float32)
    """

    fn = staticmethod(mean_absolute_percentage_error)


class MeanSquaredLogarithmicError(Loss):
    """mean((log(y_pred + 1) - log(y_true + 1)) ** 2) (`keras.losses.MeanSquaredLogarithmicError`).

    >>> tk.losses.MeanSquaredLogarithmicError()(tk.constant([[0.0], [1.0]]), tk.constant([[0.0], [3.0]]))
    tk.Tensor(0.2402265, shape=(), dtype=float32)
    """

    fn = staticmethod(mean_squared_logarithmic_error)


class LogCosh(Loss):
    """mean(log(cosh(y_pred - y_true))): about x ** 2 / 2 near 0, abs(x) - log 2 far (`keras.losses.LogCosh`).

    >>> tk.losses.LogCosh()(tk.constant([[0.0], [0.0]]), tk.constant([[1.0], [-1.0]]))   # log(cosh(1))
    tk.Tensor(0.43378085, shape=(), dtype=float32)
    """

    fn = staticmethod(log_cosh)


class CosineSimilarity(Loss):
    """-cos of the angle between y_true and y_pred along `axis` (`keras.losses.CosineSimilarity`).

    >>> tk.losses.CosineSimilarity()(tk.constant([[1.0, 0.0], [0.0, 1.0]]), tk.constant([[2.0, 0.0], [0.0, -1.0]]))
    tk.Tensor(0.0, shape=(), dtype=float32)
    """

    fn = staticmethod(cosine_similarity)

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity"):
        super().__init__(reduction, name, axis=axis)


class BinaryCrossentropy(Loss):
    """Cross-entropy of 0/1 labels and probabilities (or logits with from_logits=True).

    >>> bce = tk.losses.BinaryCrossentropy(from_logits=True)
    >>> bce(tk.constant([[1.0], [0.0]]), tk.constant([[0.0], [0.0]]))     # log 2
    tk.Tensor(0.6931472, shape=(), dtype=float32)
    """

    fn = staticmethod(binary_crossentropy)

    def __init__(self, from_logits=False, label_smoothing=0.0, reduction="sum_over_batch_size",
                 name=None):
        super().__init__(reduction, name, from_logits=from_logits,
                         label_smoothing=check_label_smoothing(label_smoothing, "BinaryCrossentropy"))


class CategoricalCrossentropy(Loss):
    """Cross-entropy of one-hot labels and class probabilities (or logits).

    >>> cce = tk.losses.CategoricalCrossentropy()
    >>> cce(tk.constant([[0.0, 1.0]]), tk.constant([[0.75, 0.25]]))       # -log 0.25
    tk.Tensor(1.3862944, shape=(), dtype=float32)
    """

    fn = staticmethod(categorical_crossentropy)

    def __init__(self, from_logits=False, label_smoothing=0.0, reduction="sum_over_batch_size",
                 name=None):
        super().__init__(reduction, name, from_logits=from_logits,
                         label_smoothing=check_label_smoothing(label_smoothing, "CategoricalCrossentropy"))


class SparseCategoricalCrossentropy(Loss):
    """Cross-entropy of integer labels and class probabilities (or logits).

    >>> loss = tk.losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> loss(tk.constant([0, 1]), tk.constant([[0.0, 0.0], [0.0, 0.0]]))   # log 2
    tk.Tensor(0.6931472, shape=(), dtype=float32)
    """

    fn = staticmethod(sparse_categorical_crossentropy)

    def __init__(self, from_logits=False, reduction="sum_over_batch_size", name=None):
        super().__init__(reduction, name, from_logits=from_logits)
