"""Precision, Recall and AUC: counts of true/false positives and negatives, kept in Variables.

    p = tk.metrics.Precision()
    p.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    p.result()                      # 2 true positives of 3 predicted: 0.6666667

A prediction counts as positive when it is strictly above `thresholds` (0.5); a label is
positive when it is non-zero. Each entry is counted (the arrays are read as flat lists).
As Keras's: a list of thresholds gives one result per threshold; `top_k` keeps each row's k
largest predictions (the others count as negative); `class_id` reads that column only.
"""
import numpy as np

from ...convert import convert_to_tensor
from ...ops import (broadcast_to, cast, clip_by_value, equal, expand_dims, greater, less,
                    logical_and, logical_not, logical_or, not_equal, reduce_sum, reshape,
                    sigmoid, where)
from .base import Metric, divide_no_nan

__all__ = ["Precision", "Recall", "AUC"]


class _Confusion(Metric):
    """true_positives plus one other count (false_positives or false_negatives)."""

    _other = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        kind = type(self).__name__
        for arg, value in (("top_k", top_k), ("class_id", class_id)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < (1 if arg == "top_k" else 0)):
                raise ValueError(f"tk.metrics.{kind}: {arg} must be an integer "
                                 f"{'>= 1' if arg == 'top_k' else '>= 0'}, got {value!r}")
        self.top_k, self.class_id = top_k, class_id
        many = isinstance(thresholds, (list, tuple))
        if many and len(thresholds) == 1:   # Keras: [0.5] reads as one threshold (a scalar result)
            many, thresholds = False, thresholds[0]
        if thresholds is None:   # Keras: with top_k, every one of the top k counts as positive
            thresholds = 0.5 if top_k is None else _NEG_INF
        elif any(not 0 <= t <= 1 for t in (thresholds if many else [thresholds])):
            raise ValueError(f"tk.metrics.{kind}: thresholds must be in [0, 1], got {thresholds!r}")
        # One threshold: scalar counts and result; a list: one count and result per threshold.
        self.thresholds = [float(t) for t in thresholds] if many else float(thresholds)
        shape = (len(thresholds),) if many else ()
        self.true_positives = self.add_variable(shape, name="true_positives")
        setattr(self, self._other, self.add_variable(shape, name=self._other))

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = convert_to_tensor(y_pred)
        if y_pred.dtype != self.dtype:      # compared with the thresholds in float32, as Keras
            y_pred = cast(y_pred, self.dtype)
        y_true = convert_to_tensor(y_true)
        if y_true.size != y_pred.size:
            raise ValueError(f"{type(self).__name__}: y_true has {y_true.size} values and y_pred "
                             f"{y_pred.size} ({y_true.shape} vs {y_pred.shape}); one prediction "
                             f"per label is expected")
        if y_true.shape != y_pred.shape:     # (N,) labels for (N, 1) predictions
            y_true = reshape(y_true, y_pred.shape)
        if self.top_k is not None:
            y_pred = _keep_top_k(y_pred, self.top_k)
        if self.class_id is not None:       # Keras: y[..., class_id, None]
            y_true = y_true[..., self.class_id:self.class_id + 1]
            y_pred = y_pred[..., self.class_id:self.class_id + 1]
        label = not_equal(y_true, 0)
        if isinstance(self.thresholds, list):
            label = expand_dims(label, -1)
            y_pred = expand_dims(y_pred, -1)
        predicted = greater(y_pred, np.asarray(self.thresholds, y_pred.dtype))
        weight = 1.0
        if sample_weight is not None:
            weight = convert_to_tensor(sample_weight)
            weight = cast(weight, self.dtype)
            if weight.ndim < y_pred.ndim and weight.ndim:
                weight = reshape(weight, weight.shape + (1,) * (y_pred.ndim - weight.ndim))
            weight = broadcast_to(weight, y_pred.shape)
        axes = list(range(predicted.ndim - 1)) if isinstance(self.thresholds, list) else None
        count = lambda mask: reduce_sum(cast(mask, self.dtype) * weight, axis=axes)   # noqa: E731
        self.true_positives.assign_add(count(logical_and(label, predicted)))
        other = (logical_and(logical_not(label), predicted) if self._other == "false_positives"
                 else logical_and(label, logical_not(predicted)))
        getattr(self, self._other).assign_add(count(other))

    def result(self):
        tp = self.true_positives
        return divide_no_nan(tp, tp + getattr(self, self._other))


_NEG_INF = -1e10   # Keras's metrics_utils.NEG_INF: the threshold with top_k and no thresholds


def _keep_top_k(y_pred, k):
    """y_pred with all but each row's k largest entries set to -1e10 (Keras's _filter_top_k);
    ties go to the lower index, as TensorFlow's top_k. Recorded ops, for tk.function."""
    y_pred = convert_to_tensor(y_pred)
    n = y_pred.shape[-1]
    earlier = np.tril(np.ones((n, n), bool), -1)   # [i, j]: j comes before i
    other, this = expand_dims(y_pred, -2), expand_dims(y_pred, -1)
    ahead = logical_or(greater(other, this), logical_and(equal(other, this), earlier))
    rank = reduce_sum(cast(ahead, "int32"), axis=-1)   # how many entries come before each
    return where(less(rank, k), y_pred, cast(_NEG_INF, y_pred.dtype))


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
    """Area under the ROC (or precision-recall) curve, from counts at `num_thresholds`
    thresholds (`keras.metrics.AUC`).

    Predictions are probabilities (or logits with `from_logits=True`). At each threshold t
    (0 - 1e-7, then evenly spaced, then 1 + 1e-7) a prediction above t is a positive; the
    true/false positives/negatives there are kept in four Variables, so the area covers every
    batch seen. The ROC area sums the trapezoids under (false positive rate, true positive
    rate); `summation_method="minoring"`/`"majoring"` takes the lower/upper rectangles, and
    `curve="PR"` interpolates precision as Davis & Goadrich do, as Keras.

    >>> m = tk.metrics.AUC()
    >>> m.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> m.result()                            # 3 of the 4 (positive, negative) pairs in order
    tk.Tensor(0.75, shape=(), dtype=float32)
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        super().__init__(name=name or "auc", dtype=dtype)
        if multi_label or label_weights is not None:
            raise NotImplementedError("tk.metrics.AUC: multi_label and label_weights are not "
                                      "supported; make one AUC per label column")
        self.curve = str(curve).upper()
        if self.curve not in ("ROC", "PR"):
            raise ValueError(f"AUC: curve must be 'ROC' or 'PR', got {curve!r}")
        self.summation_method = str(summation_method).lower()
        if self.summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f"AUC: summation_method must be 'interpolation', 'minoring' or "
                             f"'majoring', got {summation_method!r}")
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            if any(not 0 <= t <= 1 for t in inner):
                raise ValueError(f"AUC: thresholds must be in [0, 1], got {list(thresholds)}")
        else:
            if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) \
                    or num_thresholds <= 1:
                raise ValueError(f"AUC: num_thresholds must be an integer > 1, got {num_thresholds!r}")
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._thresholds = np.array([0.0 - 1e-7] + inner + [1.0 + 1e-7])
        # Evenly spaced thresholds (the default): Keras counts by buckets, so a prediction
        # below 0 counts as 0 and one above 1 as 1 (a logit fed to AUC without from_logits).
        even = np.arange(len(inner) + 2) / (len(inner) + 1)
        self._clip = len(inner) >= 1 and np.allclose([0.0] + inner + [1.0], even, atol=1e-7)
        self.num_thresholds = len(self._thresholds)
        self.multi_label, self.label_weights, self.from_logits = False, None, bool(from_logits)
        n = (self.num_thresholds,)
        self.true_positives = self.add_variable(n, name="true_positives")
        self.false_positives = self.add_variable(n, name="false_positives")
        self.true_negatives = self.add_variable(n, name="true_negatives")
        self.false_negatives = self.add_variable(n, name="false_negatives")

    @property
    def thresholds(self):
        return self._thresholds.tolist()

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = cast(convert_to_tensor(y_pred), self.dtype)
        y_true = cast(convert_to_tensor(y_true), self.dtype)
        if y_true.size != y_pred.size:
            raise ValueError(f"AUC: y_true has {y_true.size} values and y_pred {y_pred.size} "
                             f"({y_true.shape} vs {y_pred.shape}); one prediction per label is "
                             f"expected")
        if self.from_logits:
            y_pred = sigmoid(y_pred)
        if self._clip:
            y_pred = clip_by_value(y_pred, 0.0, 1.0)
        pred = reshape(y_pred, (-1, 1))
        label = cast(not_equal(reshape(y_true, (-1, 1)), 0), self.dtype)   # as Keras: any nonzero is 1
        weight = 1.0
        if sample_weight is not None:
            weight = cast(convert_to_tensor(sample_weight), self.dtype)
            if weight.size != y_pred.size:   # one weight per example (or one in all): spread it
                if weight.ndim:
                    weight = reshape(weight, tuple(weight.shape) + (1,) * (y_pred.ndim - weight.ndim))
                weight = broadcast_to(weight, y_pred.shape)
            weight = reshape(weight, (-1, 1))   # one weight per prediction, (N,) or (N, 1) alike
        above = cast(greater(pred, self._thresholds.astype(self.dtype)[None, :]), self.dtype)
        # A positive counts with its weight, a negative too (Keras casts the labels to bool first:
        # a soft label such as 0.3 is a whole positive).
        pos, neg = label * weight, (1.0 - label) * weight
        self.true_positives.assign_add(reduce_sum(above * pos, axis=0))
        self.false_positives.assign_add(reduce_sum(above * neg, axis=0))
        self.false_negatives.assign_add(reduce_sum((1.0 - above) * pos, axis=0))
        self.true_negatives.assign_add(reduce_sum((1.0 - above) * neg, axis=0))

    def result(self):
        tp, fp = self.true_positives.numpy(), self.false_positives.numpy()
        tn, fn = self.true_negatives.numpy(), self.false_negatives.numpy()
        return convert_to_tensor(np.asarray(_area(tp, fp, tn, fn, self.curve,
                                                  self.summation_method), self.dtype))


def _div(a, b):
    b = np.asarray(b, np.float64)
    return np.where(b == 0, 0.0, np.asarray(a, np.float64) / np.where(b == 0, 1.0, b))


def _area(tp, fp, tn, fn, curve, method):
    """Keras 3's AUC.result() on the counts at each threshold (in float64, then cast)."""
    if curve == "PR" and method == "interpolation":
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = _div(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        ratio = np.where((p[:-1] > 0) & (p[1:] > 0), _div(p[:-1], np.maximum(p[1:], 0)), 1.0)
        return float(np.sum(_div(slope * (dtp + intercept * np.log(ratio)),
                                 np.maximum(tp[1:] + fn[1:], 0))))
    recall = _div(tp, tp + fn)
    if curve == "ROC":
        x, y = _div(fp, fp + tn), recall
    else:
        x, y = recall, _div(tp, tp + fp)
    if method == "interpolation":
        heights = (y[:-1] + y[1:]) / 2
    elif method == "minoring":
        heights = np.minimum(y[:-1], y[1:])
    else:
        heights = np.maximum(y[:-1], y[1:])
    return float(np.sum((x[:-1] - x[1:]) * heights))
