"""Accuracy metrics: the fraction of predictions that match the labels.

    acc = tk.metrics.SparseCategoricalAccuracy()
    acc.update_state([2, 0], [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]])
    acc.result()                    # tk.Tensor(0.5, ...): the first is right, the second not

Each function returns one 0/1 value per sample (float32); the classes average them with
`MeanMetricWrapper`. The predicted class is `tk.math.argmax` on the last axis (the
first index of the largest score), an op, so a `tk.function` replay recomputes it.
"""
from ...convert import convert_to_tensor
from ...ops import (argmax, cast, equal, expand_dims, greater, less, range, reduce_sum, squeeze, where)
from ..losses.loss import squeeze_or_expand
from .base import MeanMetricWrapper

__all__ = ["accuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
           "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy", "Accuracy",
           "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy",
           "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy"]


def _argmax(x):
    """The index of the largest value on the last axis (the first one on ties), as int64."""
    return argmax(x, axis=-1)


def _float_pred(y_pred):
    y_pred = convert_to_tensor(y_pred)
    return y_pred if y_pred.dtype.kind == "f" else cast(y_pred, "float32")


def _sparse_labels(y_true, y_pred, caller, keep_float=False):
    """Integer labels of shape y_pred.shape[:-1]: (N,) or (N, 1) both work for (N, classes)."""
    labels = convert_to_tensor(y_true)
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = squeeze(labels, axis=-1)
    if labels.shape != y_pred.shape[:-1]:
        raise ValueError(f"{caller}: labels of shape {labels.shape} do not match predictions of "
                         f"shape {y_pred.shape}: expected class ids of shape {y_pred.shape[:-1]} "
                         f"(or {y_pred.shape[:-1] + (1,)}); one-hot labels? use the categorical "
                         f"form")
    return labels if labels.dtype.kind in "iu" or keep_float else cast(labels, "int64")


def _matches(a, b):
    return cast(equal(a, b), "float32")


def accuracy(y_true, y_pred):
    """1 where y_true == y_pred exactly (`keras.metrics.Accuracy`'s function)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.dtype != y_pred.dtype:
        y_true = cast(y_true, y_pred.dtype)
    return _matches(*squeeze_or_expand(y_true, y_pred))


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1 where (y_pred > threshold) equals the 0/1 label, per entry (Mean averages a row).

    >>> tk.metrics.binary_accuracy([1.0, 0.0], [0.7, 0.6])
    tk.Tensor([1. 0.], shape=(2,), dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = squeeze_or_expand(y_true, y_pred)
    return _matches(y_true, cast(greater(y_pred, threshold), y_pred.dtype))


def categorical_accuracy(y_true, y_pred):
    """1 where the largest prediction is at the one-hot label's class.

    >>> tk.metrics.categorical_accuracy([[0, 0, 1], [0, 1, 0]], [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]])
    tk.Tensor([1. 0.], shape=(2,), dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"categorical_accuracy: one-hot labels of shape {y_true.shape} do not "
                         f"match predictions of shape {y_pred.shape}; integer labels? use "
                         f"sparse_categorical_accuracy")
    return _matches(_argmax(y_true), _argmax(y_pred))


def sparse_categorical_accuracy(y_true, y_pred):
    """1 where the largest prediction is at the integer label (labels (N,) or (N, 1)).

    >>> tk.metrics.sparse_categorical_accuracy([2, 0], [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]])
    tk.Tensor([1. 0.], shape=(2,), dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    labels = convert_to_tensor(y_true)
    if labels.dtype.kind == "f":
        # Keras compares float labels as floats, in the predictions' dtype: 0.9 is no class
        # (int64 would truncate it to class 0)
        labels = _sparse_labels(cast(labels, y_pred.dtype), y_pred, "sparse_categorical_accuracy",
                                keep_float=True)
        return _matches(labels, cast(_argmax(y_pred), y_pred.dtype))
    labels = _sparse_labels(labels, y_pred, "sparse_categorical_accuracy")
    return _matches(labels, _argmax(y_pred))


def _in_top_k(labels, y_pred, k):
    """1 where fewer than k classes score strictly higher than the label's class
    (`tf.math.in_top_k`: classes tied at the boundary all count as in the top k)."""
    one_hot = equal(expand_dims(labels, -1), range(y_pred.shape[-1], dtype=labels.dtype))
    label_score = reduce_sum(where(one_hot, y_pred, 0.0), axis=-1, keepdims=True)
    higher = reduce_sum(cast(greater(y_pred, label_score), "float32"), axis=-1)
    return cast(less(higher, float(k)), "float32")


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1 where the one-hot label's class is among the k largest predictions."""
    y_pred = _float_pred(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"top_k_categorical_accuracy: one-hot labels of shape {y_true.shape} "
                         f"do not match predictions of shape {y_pred.shape}; integer labels? "
                         f"use sparse_top_k_categorical_accuracy")
    return _in_top_k(_argmax(y_true), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1 where the integer label is among the k largest predictions.

    >>> tk.metrics.sparse_top_k_categorical_accuracy([2, 0], [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]], k=2)
    tk.Tensor([1. 1.], shape=(2,), dtype=float32)
    """
    y_pred = _float_pred(y_pred)
    return _in_top_k(_sparse_labels(y_true, y_pred, "sparse_top_k_categorical_accuracy"), y_pred, k)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly (`keras.metrics.Accuracy`).

    >>> m = tk.metrics.Accuracy()
    >>> m.update_state([1, 2, 3, 4], [0, 2, 3, 4])
    >>> m.result()
    tk.Tensor(0.75, shape=(), dtype=float32)
    """

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often (y_pred > threshold) matches the 0/1 labels (`keras.metrics.BinaryAccuracy`).

    >>> m = tk.metrics.BinaryAccuracy()
    >>> m.update_state([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]])
    >>> m.result()
    tk.Tensor(0.75, shape=(), dtype=float32)
    """

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the top prediction is the one-hot label's class."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the top prediction is the integer label (`keras.metrics.SparseCategoricalAccuracy`).

    >>> m = tk.metrics.SparseCategoricalAccuracy()
    >>> m.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]])
    >>> m.result()
    tk.Tensor(0.5, shape=(), dtype=float32)
    """

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the k top predictions."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the k top predictions."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k
