"""The base of every Keras loss: `Loss`, which computes one value per example with its
function and reduces them as Keras 3 does (`reduction="sum_over_batch_size"` by default).

    class MyLoss(tk.losses.Loss):
        fn = staticmethod(my_per_example_loss)     # (y_true, y_pred) -> one value per example

tapekit/keras/losses.py and the modules beside it (hinge_losses.py, probabilistic_losses.py)
define the losses on it; `tk.losses` gathers them.
"""
from ..convert import convert_to_tensor
from ..module import snake_case   # MeanSquaredError -> mean_squared_error, as Keras names them
from ..namespaces import public_dir
from ..ops import broadcast_to, cast, divide_no_nan, logical_and, reduce_sum, where
from .masking import keras_mask
from .targets import squeeze_or_expand

EPSILON = 1e-7  # keras.backend.epsilon(): the clipping of probabilities and denominators


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
        float64 predictions give a float32 loss (their gradient stays float64). A prediction
        that carries a mask (`_keras_mask`: an LSTM's sequence after Embedding(mask_zero=True))
        counts only its steps with data: a mean over those (Keras 3's weights total/valid)."""
        mask = keras_mask(y_pred)
        y_pred = convert_to_tensor(y_pred)
        if y_pred.dtype.kind == "f" and y_pred.dtype != "float32":
            y_pred = cast(y_pred, "float32")
        values = self.call(y_true, y_pred)
        if keras_mask(values) is not None:          # a loss may mask its own values
            mask = keras_mask(values) if mask is None else logical_and(mask, keras_mask(values))
        if mask is not None:
            sample_weight = mask_weights(sample_weight, mask, values.dtype, self.reduction)
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


# --- helpers --------------------------------------------------------------------------------
REDUCTIONS = ("sum_over_batch_size", "mean", "mean_with_sample_weight", "sum", "none", None)


def mask_weights(sample_weight, mask, dtype, reduction):
    """Keras 3's apply_mask: the mask as weights, times `sample_weight` if given. For the
    mean reductions a step with data weighs total / valid (steps / steps with data), so the
    mean over every step is the mean over those with data (0 when none has: divide_no_nan);
    otherwise 1. The sample weights meet the mask's shape as Keras matches them (a trailing
    axis of 1 squeezed or added; then broadcast from the right)."""
    if reduction in ("mean", "sum_over_batch_size"):
        valid = reduce_sum(cast(mask, dtype))
        weight = divide_no_nan(convert_to_tensor(float(mask.size), dtype=dtype), valid)
        float_mask = where(cast(mask, "bool"), weight, convert_to_tensor(0.0, dtype=dtype))
    else:
        float_mask = cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = convert_to_tensor(sample_weight)
    if sample_weight.dtype != dtype:
        sample_weight = cast(sample_weight, dtype)
    float_mask, sample_weight = squeeze_or_expand(float_mask, sample_weight)
    try:
        return sample_weight * float_mask
    except ValueError:
        raise ValueError(f"sample_weight of shape {sample_weight.shape} does not broadcast to "
                         f"the mask of the prediction, shape {float_mask.shape} (one entry per "
                         f"step): give one weight per step, shape {float_mask.shape}") from None


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


__all__ = ["Loss", "REDUCTIONS", "EPSILON"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
