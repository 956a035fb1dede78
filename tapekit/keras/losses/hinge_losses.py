"""Keras's hinge losses, for classifiers that output scores (not probabilities): Hinge,
SquaredHinge (labels -1 or 1, or 0 or 1) and CategoricalHinge (one-hot labels).

    loss_fn = tk.losses.Hinge()
    loss_fn([[1.0], [0.0]], [[0.5], [-2.0]])      # tk.Tensor(0.25, shape=(), dtype=float32)

As Keras does, labels that are all 0 or 1 are read as -1 or 1 (2 y - 1); any other labels
are used as they are. Reached as `tk.losses.Hinge`, `keras.losses.hinge`, `loss="hinge"`.
"""
from ...ops import cast, equal, logical_or, maximum, reduce_max, reduce_mean, reduce_min, reduce_sum, square
from .loss import Loss, prepare


def binary_labels_to_hinge(y_true):
    """2 y - 1 when every label is 0 or 1 (Keras's convert_binary_labels_to_hinge), else y.

    The test is made of recorded ops, so a `tk.function` replay checks its new labels too.

    >>> from tapekit.keras.losses.hinge_losses import binary_labels_to_hinge
    >>> binary_labels_to_hinge(tk.constant([1.0, 0.0])), binary_labels_to_hinge(tk.constant([1.0, -1.0]))
    (tk.Tensor([ 1. -1.], shape=(2,), dtype=float32), tk.Tensor([ 1. -1.], shape=(2,), dtype=float32))
    """
    zero_or_one = logical_or(equal(y_true, 0.0), equal(y_true, 1.0))
    all_binary = reduce_min(cast(zero_or_one, y_true.dtype))       # 1 when every label is 0 or 1
    return y_true + all_binary * (y_true - 1.0)                    # 2 y - 1 then, else y


def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)) over the last axis; labels -1/1 (0/1 converted).

    >>> tk.losses.hinge(tk.constant([[1.0, 0.0]]), tk.constant([[0.5, -2.0]]))   # (0.5 + 0) / 2
    tk.Tensor([0.25], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    y_true = binary_labels_to_hinge(y_true)
    return reduce_mean(maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0) ** 2) over the last axis; labels -1/1 (0/1 converted).

    >>> tk.losses.squared_hinge(tk.constant([[1.0, 0.0]]), tk.constant([[0.5, 1.0]]))   # (0.25 + 4) / 2
    tk.Tensor([2.125], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    y_true = binary_labels_to_hinge(y_true)
    return reduce_mean(square(maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """max(neg - pos + 1, 0): pos, the score of the true class (sum(y_true * y_pred)); neg, the
    highest score of the other classes (max((1 - y_true) * y_pred)). y_true is one-hot.

    >>> tk.losses.categorical_hinge(tk.constant([[0.0, 1.0, 0.0]]), tk.constant([[0.2, 0.5, 0.1]]))   # 0.2 - 0.5 + 1
    tk.Tensor([0.7], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    pos = reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(neg - pos + 1.0, 0.0)


class Hinge(Loss):
    """mean(max(1 - y_true * y_pred, 0)) (`keras.losses.Hinge`); labels -1/1 or 0/1.

    >>> tk.losses.Hinge()(tk.constant([[1.0], [0.0]]), tk.constant([[0.5], [-2.0]]))   # (0.5 + 0) / 2
    tk.Tensor(0.25, shape=(), dtype=float32)
    """

    fn = staticmethod(hinge)


class SquaredHinge(Loss):
    """mean(max(1 - y_true * y_pred, 0) ** 2) (`keras.losses.SquaredHinge`); labels -1/1 or 0/1.

    >>> tk.losses.SquaredHinge()(tk.constant([[1.0], [0.0]]), tk.constant([[0.5], [1.0]]))   # (0.25 + 4) / 2
    tk.Tensor(2.125, shape=(), dtype=float32)
    """

    fn = staticmethod(squared_hinge)


class CategoricalHinge(Loss):
    """max(neg - pos + 1, 0) of one-hot labels and class scores (`keras.losses.CategoricalHinge`).

    >>> tk.losses.CategoricalHinge()(tk.constant([[0.0, 1.0], [1.0, 0.0]]), tk.constant([[0.2, 0.5], [0.0, 2.0]]))
    tk.Tensor(1.85, shape=(), dtype=float32)
    """

    fn = staticmethod(categorical_hinge)
