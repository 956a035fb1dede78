"""The base of every Keras loss (Keras 3's keras/src/losses/loss.py): `Loss`, which computes
one value per example with its function and reduces them as Keras 3 does
(`reduction="sum_over_batch_size"` by default), and `LossFunctionWrapper`, the Loss that a
plain function becomes (compile(loss="mse") makes one around mean_squared_error).

    class MyLoss(tk.losses.Loss):
        fn = staticmethod(my_per_example_loss)     # (y_true, y_pred) -> one value per example

Also what makes labels and predictions comparable before a loss or a metric compares them, as
Keras does: predictions as floats, labels in the predictions' dtype, ranks that differ by a
trailing axis of size 1 matched (`prepare`, `squeeze_or_expand`). losses.py, hinge_losses.py and
probabilistic_losses.py define the losses on this; the metrics use its helpers too.

>>> from tapekit.keras.losses.loss import prepare
>>> y_true, y_pred = prepare([1, 0], [[0.8], [0.3]])      # labels (2,), predictions (2, 1)
>>> y_true.shape, y_true.dtype
((2, 1), dtype('float32'))
"""
from ...convert import convert_to_tensor
from ...module import snake_case   # MeanSquaredError -> mean_squared_error, as Keras names them
from ...namespaces import no_attribute
from ...ops import broadcast_to, cast, divide_no_nan, expand_dims, logical_and, reduce_sum, squeeze, where
from ..masking import keras_mask


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

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

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


class LossFunctionWrapper(Loss):
    """A function fn(y_true, y_pred) -> one value per example, reduced like a Loss (Keras 3's
    LossFunctionWrapper): what compile makes of a loss given by name ("mse") or as a function.

    >>> from tapekit.keras.losses.loss import LossFunctionWrapper
    >>> mse = LossFunctionWrapper(tk.losses.mean_squared_error)
    >>> mse.name
    'mean_squared_error'
    >>> mse([1.0, 2.0], [[1.0], [4.0]])     # labels (2,) meet predictions (2, 1): one column
    tk.Tensor(2.0, shape=(), dtype=float32)
    """

    def __init__(self, fn):
        super().__init__(name=getattr(fn, "__name__", "loss"))
        self._fn = fn

    def call(self, y_true, y_pred):
        # Keras 3's LossFunctionWrapper: the labels in the loss's dtype (float32), and ranks
        # that differ by a trailing 1 matched: labels (N,) against predictions (N, 1) are one
        # column, not an (N, N) grid
        y_true = convert_to_tensor(y_true)
        if y_true.dtype != "float32":
            y_true = cast(y_true, "float32")
        return self._fn(*squeeze_or_expand(y_true, y_pred))


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


# --- labels and predictions made comparable (losses and metrics) -----------------------------
def as_float(y):
    """`y` as a tensor, cast to float32 unless it is a float already."""
    y = convert_to_tensor(y)
    return y if y.dtype.kind == "f" else cast(y, "float32")


def prepare(y_true, y_pred, same_rank=True):
    """y_pred as a float tensor, y_true in its dtype; ranks matched as Keras does."""
    y_pred = as_float(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.dtype != y_pred.dtype:
        y_true = cast(y_true, y_pred.dtype)
    if same_rank:
        y_true, y_pred = squeeze_or_expand(y_true, y_pred)
    return y_true, y_pred


def squeeze_or_expand(a, b):
    """Keras: when the ranks differ by one and the longer ends in 1, make them match."""
    if a.ndim == b.ndim + 1 and a.shape[-1] == 1:
        if b.ndim == 1:
            b = expand_dims(b, -1)
        else:
            a = squeeze(a, axis=-1)
    elif b.ndim == a.ndim + 1 and b.shape[-1] == 1:
        if a.ndim == 1:
            a = expand_dims(a, -1)
        else:
            b = squeeze(b, axis=-1)
    return a, b
