"""Regression and probabilistic metrics: the mean of a loss over every sample seen.

    m = tk.metrics.MeanSquaredError()
    m.update_state([[0.0], [1.0]], [[1.0], [1.0]])
    m.result()                      # tk.Tensor(0.5, ...)

These reuse the per-sample loss functions of `tk.losses`, averaged over all samples since
the last `reset_state` (a loss averages one batch; a metric averages the epoch).
"""
from ...ops import sqrt
from .. import losses
from ..losses import mean_absolute_percentage_error   # Keras's own: the loss is the metric
from ..losses.losses import check_label_smoothing
from ..losses.loss import prepare
from .base import Mean, MeanMetricWrapper, divide_no_nan

__all__ = ["MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError",
           "RootMeanSquaredError", "mean_absolute_percentage_error",
           "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy"]


class MeanSquaredError(MeanMetricWrapper):
    """The mean of (y_true - y_pred) ** 2 over every value seen."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(losses.mean_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean of abs(y_true - y_pred) over every value seen.

    >>> m = tk.metrics.MeanAbsoluteError()
    >>> m.update_state([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]])
    >>> m.result()
    tk.Tensor(0.5, shape=(), dtype=float32)
    """

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(losses.mean_absolute_error, name=name, dtype=dtype)


class RootMeanSquaredError(Mean):
    """sqrt of the mean squared error over every sample seen (not the mean of per-batch roots).

    >>> m = tk.metrics.RootMeanSquaredError()
    >>> m.update_state([[0.0], [0.0]], [[3.0], [4.0]])      # sqrt((9 + 16) / 2)
    >>> round(float(m.result()), 4)
    3.5355
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = prepare(y_true, y_pred)
        super().update_state((y_true - y_pred) ** 2, sample_weight)

    def result(self):
        return sqrt(divide_no_nan(self.total, self.count))


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean binary cross-entropy over every sample seen (probabilities, or logits)."""

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0.0):
        super().__init__(losses.binary_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=check_label_smoothing(label_smoothing, "BinaryCrossentropy"))


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean categorical cross-entropy over every sample seen (one-hot labels)."""

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0.0):
        super().__init__(losses.categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=check_label_smoothing(label_smoothing, "CategoricalCrossentropy"))


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean cross-entropy over every sample seen, with integer labels.

    >>> m = tk.metrics.SparseCategoricalCrossentropy(from_logits=True)
    >>> m.update_state([0, 1], [[0.0, 0.0], [0.0, 0.0]])    # log 2 each
    >>> round(float(m.result()), 6)
    0.693147
    """

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False):
        super().__init__(losses.sparse_categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The mean over samples of `mean_absolute_percentage_error` (in percent).

    >>> m = tk.metrics.MeanAbsolutePercentageError()
    >>> m.update_state([[2.0, 4.0], [1.0, 1.0]], [[1.0, 5.0], [1.0, 2.0]])   # (37.5 + 50) / 2
    >>> m.result()
    tk.Tensor(43.75, shape=(), dtype=float32)
    """

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name=name, dtype=dtype)
