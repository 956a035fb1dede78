"""Precision and Recall: counts of true/false positives and negatives, kept in Variables.

    p = tk.metrics.Precision()
    p.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    p.result()                      # 2 true positives of 3 predicted: 0.6666667

A prediction counts as positive when it is strictly above `thresholds` (0.5); a label is
positive when it is non-zero. Each entry is counted (the arrays are read as flat lists).
"""
from ...convert import convert_to_tensor
from ...ops import (broadcast_to, cast, greater, logical_and, logical_not, not_equal, reduce_sum,
                    reshape)
from .base import Metric, divide_no_nan

__all__ = ["Precision", "Recall", "AUC"]


class _Confusion(Metric):
    """true_positives plus one other count (false_positives or false_negatives)."""

    _other = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        kind = type(self).__name__
        if top_k is not None or class_id is not None:
            raise NotImplementedError(f"tk.metrics.{kind}: top_k and class_id are not supported; "
                                      f"slice the class yourself, e.g. y_pred[:, k]")
        if thresholds is None:
            thresholds = 0.5
        if isinstance(thresholds, (list, tuple)):
            raise NotImplementedError(f"tk.metrics.{kind}: one threshold only, got {thresholds!r}; "
                                      f"make one metric per threshold")
        if not 0 <= thresholds <= 1:
            raise ValueError(f"tk.metrics.{kind}: thresholds must be in [0, 1], got {thresholds!r}")
        self.thresholds = float(thresholds)
        self.true_positives = self.add_variable((), name="true_positives")
        setattr(self, self._other, self.add_variable((), name=self._other))

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = convert_to_tensor(y_pred)
        y_true = convert_to_tensor(y_true)
        if y_true.size != y_pred.size:
            raise ValueError(f"{type(self).__name__}: y_true has {y_true.size} values and y_pred "
                             f"{y_pred.size} ({y_true.shape} vs {y_pred.shape}); one prediction "
                             f"per label is expected")
        if y_true.shape != y_pred.shape:     # (N,) labels for (N, 1) predictions
            y_true = reshape(y_true, y_pred.shape)
        label = not_equal(y_true, 0)
        predicted = greater(y_pred, self.thresholds)
        weight = 1.0
        if sample_weight is not None:
            weight = convert_to_tensor(sample_weight)
            weight = cast(weight, self.dtype)
            if weight.ndim < y_pred.ndim and weight.ndim:
                weight = reshape(weight, weight.shape + (1,) * (y_pred.ndim - weight.ndim))
            weight = broadcast_to(weight, y_pred.shape)
        count = lambda mask: reduce_sum(cast(mask, self.dtype) * weight)   # noqa: E731
        self.true_positives.assign_add(count(logical_and(label, predicted)))
        other = (logical_and(logical_not(label), predicted) if self._other == "false_positives"
                 else logical_and(label, logical_not(predicted)))
        getattr(self, self._other).assign_add(count(other))

    def result(self):
        tp = self.true_positives
        return divide_no_nan(tp, tp + getattr(self, self._other))


class Precision(_Confusion):
    """Of the entries predicted positive, the fraction that are: tp / (tp + fp).

    >>> m = tk.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> m.result()
    tk.Tensor(0.6666667, shape=(), dtype=float32)
    """

    _other = "false_positives"

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="precision", dtype=None):
        super().__init__(thresholds, top_k, class_id, name, dtype)


class Recall(_Confusion):
    """Of the positive entries, the fraction predicted positive: tp / (tp + fn).

    >>> m = tk.metrics.Recall()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> m.result()
    tk.Tensor(0.6666667, shape=(), dtype=float32)
    """

    _other = "false_negatives"

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="recall", dtype=None):
        super().__init__(thresholds, top_k, class_id, name, dtype)


class AUC(Metric):
    """Not implemented in tapekit (Keras's keras.metrics.AUC: area under the ROC curve)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("tk.metrics.AUC is not implemented in tapekit: use "
                                  "Precision/Recall at a few thresholds, or compute the ROC curve "
                                  "from model.predict(x) with NumPy")
