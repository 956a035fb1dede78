"""Labels and predictions made comparable, as Keras does before a loss or a metric compares
them: predictions as floats, labels in the predictions' dtype, ranks that differ by a
trailing axis of size 1 matched. Losses and metrics both use it.

>>> from tapekit.keras.targets import prepare
>>> y_true, y_pred = prepare([1, 0], [[0.8], [0.3]])      # labels (2,), predictions (2, 1)
>>> y_true.shape, y_true.dtype
((2, 1), dtype('float32'))
"""
from ..convert import convert_to_tensor
from ..ops import cast, expand_dims, squeeze


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
