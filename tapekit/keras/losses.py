"""Keras losses: MeanSquaredError, MeanAbsoluteError, Huber, BinaryCrossentropy,
CategoricalCrossentropy, SparseCategoricalCrossentropy.

    loss_fn = tk.losses.MeanSquaredError()
    loss_fn([[1.0], [2.0]], [[1.5], [2.0]])      # tk.Tensor(0.125, shape=(), dtype=float32)

Each loss computes one value per example (the functions below, averaged over the last
axis as Keras does), then reduces them as Keras's default "sum_over_batch_size": the
sum divided by the number of values. Probabilities are clipped to [1e-7, 1 - 1e-7]
before the log, as Keras does; `from_logits=True` uses the fused, stable log-sum-exp
ops of `tk.nn` (or TensorFlow's stable formula for the sigmoid). Predictions made by Keras's
`sigmoid` or `softmax` activation are read from their logits, as Keras 3 reads them.
"""
import warnings

from ..ops import (abs, broadcast_to, cast, clip_by_value, divide_no_nan, equal, exp, expand_dims, log,
                  minimum, range, reduce_mean, reduce_sum, softmax_cross_entropy_with_logits,
                  square, squeeze, where)
from ..ops.cross_entropy import check_class_ids
from ..convert import convert_to_tensor
from ..module import snake_case   # MeanSquaredError -> mean_squared_error, as Keras names them
from .activations import keras_logits
from .identifiers import resolve
from .targets import as_float, prepare, squeeze_or_expand
from ..namespaces import public_dir

EPSILON = 1e-7  # keras.backend.epsilon()


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
class Loss:
    """Base class: `loss(y_true, y_pred)` -> the reduced loss (a scalar by default).

    >>> class MeanAbsoluteError(tk.losses.Loss):
    ...     fn = staticmethod(lambda y_true, y_pred: tk.reduce_mean(tk.abs(y_true - y_pred), axis=-1))
    >>> mae = MeanAbsoluteError()
    >>> mae(tk.constant([[0.0, 2.0], [1.0, 1.0]]), tk.constant([[1.0, 1.0], [1.0, 1.0]]))
    tk.Tensor(0.5, shape=(), dtype=float32)
    >>> MeanAbsoluteError(reduction="none")(tk.constant([[0.0, 2.0], [1.0, 1.0]]), tk.constant([[1.0, 1.0], [1.0, 1.0]]))
    tk.Tensor([1. 0.], shape=(2,), dtype=float32)
    """

    fn = None

    def __init__(self, reduction="sum_over_batch_size", name=None, **fn_kwargs):
        if reduction not in REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be one of "
                             f"{', '.join(map(repr, REDUCTIONS))}, got {reduction!r}")
        self.reduction = reduction
        self.name = name or snake_case(type(self).__name__)
        self._fn_kwargs = fn_kwargs

    def __call__(self, y_true, y_pred, sample_weight=None):
        """The per-example losses, times `sample_weight` (one weight per example), reduced.

        Float predictions are cast to float32 first, as Keras 3's losses (dtype "float32") do:
        float64 predictions give a float32 loss (their gradient stays float64)."""
        y_pred = convert_to_tensor(y_pred)
        if y_pred.dtype.kind == "f" and y_pred.dtype != "float32":
            y_pred = cast(y_pred, "float32")
        values = self.call(y_true, y_pred)
        weights = None
        if sample_weight is not None:
            values, weights = _weigh(values, sample_weight)
        return _reduce(values, self.reduction, weights)

    def call(self, y_true, y_pred):
        """One loss value per example (Keras's override point)."""
        return type(self).fn(y_true, y_pred, **self._fn_kwargs)

    def __repr__(self):
        args = "".join(f", {k}={v!r}" for k, v in self._fn_kwargs.items())
        return f"{type(self).__name__}(reduction={self.reduction!r}{args})"


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


# --- by name, as compile(loss="mse") takes them ----------------------------------------------
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error

# The loss functions a config may name (Keras writes {"module": "builtins", "class_name":
# "function", "config": "mean_squared_error"}): these and no other function of this module.
FUNCTIONS = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
    "huber": huber, "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
}
_BY_NAME = {**FUNCTIONS, **{cls.__name__: cls for cls in (MeanSquaredError, MeanAbsoluteError, Huber,
                                               BinaryCrossentropy, CategoricalCrossentropy,
                                               SparseCategoricalCrossentropy)}}


def get(identifier):
    """A loss from its name ("mse", "sparse_categorical_crossentropy", "MeanSquaredError"),
    or the loss itself when given a Loss instance or a function (`keras.losses.get`).

    >>> tk.losses.get("mse") is tk.losses.mean_squared_error
    True
    """
    return resolve(identifier, _BY_NAME, "loss", base=Loss, none=True,
                   accepts="a tk.losses.Loss or a function loss(y_true, y_pred)")


# --- helpers --------------------------------------------------------------------------------
REDUCTIONS = ("sum_over_batch_size", "mean", "mean_with_sample_weight", "sum", "none", None)


def _weigh(values, sample_weight):
    """values * sample_weight, the weights matched to the values' rank as Keras does."""
    weights = convert_to_tensor(sample_weight)
    if weights.dtype != values.dtype:
        weights = cast(weights, values.dtype)
    values, weights = squeeze_or_expand(values, weights)
    given = weights   # Keras's "mean_with_sample_weight" divides by these, before broadcasting
    if weights.shape != values.shape:
        try:
            weights = broadcast_to(weights, values.shape)
        except ValueError:
            hint = ("; the loss averages the last axis, so 1-D labels and predictions are one "
                    "example: for one label per example give them shape (N, 1)"
                    if values.ndim == 0 else "")   # Keras 3 would scale the one loss by mean(w)
            raise ValueError(f"sample_weight of shape {weights.shape} does not broadcast to the "
                             f"per-example losses of shape {values.shape}: give one weight per "
                             f"example{hint}") from None
    return values * weights, given


def _reduce(values, reduction, weights=None):
    """Keras 3's reductions: "sum"; "sum_over_batch_size" and "mean", the sum over the number
    of values; "mean_with_sample_weight", the sum over the sum of the weights as given (a
    scalar weight, or one per sample of per-entry losses, counts once, as in Keras), 0 when
    they sum to 0 (Keras's divide_no_nan); "none"."""
    if reduction in ("none", None) or values.ndim == 0 or values.size == 0:
        return values
    total = reduce_sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and weights is not None:
        return divide_no_nan(total, reduce_sum(weights))
    return total / values.size


__all__ = ["Loss", "MeanSquaredError", "MeanAbsoluteError", "Huber", "BinaryCrossentropy",
           "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "mean_squared_error",
           "mean_absolute_error", "huber", "binary_crossentropy", "categorical_crossentropy",
           "sparse_categorical_crossentropy", "mse", "mae", "MSE", "MAE", "get"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
