"""AUC: the ROC/PR areas from threshold counts, against a NumPy re-computation of Keras 3's
rule (Keras 3.15 gave the same numbers to 1e-7) and hand values."""
import numpy as np
import pytest

import tapekit as tk


def value(m):
    r = m.result()
    assert r.dtype == tk.float32 and r.shape == ()
    return float(r)


def counts(y, p, w, thresholds):
    above = p[:, None] > thresholds[None, :]
    return ((above * (y * w)[:, None]).sum(0), (above * ((1 - y) * w)[:, None]).sum(0),
            ((~above) * ((1 - y) * w)[:, None]).sum(0), ((~above) * (y * w)[:, None]).sum(0))


def div(a, b):
    return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def roc_area(tp, fp, tn, fn):
    tpr, fpr = div(tp, tp + fn), div(fp, fp + tn)
    return np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)


def test_auc_matches_the_threshold_rule():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.4).astype(np.float64)
    p = np.clip(y * 0.3 + rng.random(300) * 0.7, 0, 1)
    w = rng.random(300)
    n = 200
    thresholds = np.array([-1e-7] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + 1e-7])
    m = tk.metrics.AUC()
    m.update_state(y[:150], p[:150])
    m.update_state(y[150:], p[150:], sample_weight=w[150:])
    weights = np.r_[np.ones(150), w[150:]]
    want = roc_area(*counts(y, p, weights, thresholds))
    assert float(m.result()) == pytest.approx(want, abs=1e-6)
    assert float(m.result()) == pytest.approx(0.8363942, abs=1e-6)    # Keras 3.15's number
    m.reset_state()
    assert float(m.result()) == 0.0


def test_auc_by_hand_and_its_variants():
    m = tk.metrics.AUC()
    m.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert float(m.result()) == pytest.approx(0.75)       # 3 of 4 (pos, neg) pairs ordered
    perfect = tk.metrics.AUC()
    perfect.update_state([0, 1], [0.2, 0.9])
    assert float(perfect.result()) == pytest.approx(1.0)
    logits = tk.metrics.AUC(from_logits=True)
    logits.update_state([0, 0, 1, 1], [-2.0, 0.4, 0.3, 3.0])
    assert float(logits.result()) == pytest.approx(0.75)
    y, p = [0, 1, 1, 0, 1], [0.2, 0.9, 0.6, 0.7, 0.4]
    lo, hi = tk.metrics.AUC(summation_method="minoring"), tk.metrics.AUC(summation_method="majoring")
    mid = tk.metrics.AUC()
    for metric in (lo, hi, mid):
        metric.update_state(y, p)
    assert float(lo.result()) <= float(mid.result()) <= float(hi.result())
    pr = tk.metrics.AUC(curve="PR")
    pr.update_state([0, 1], [0.2, 0.9])                   # precision 1 at every recall
    assert float(pr.result()) == pytest.approx(1.0, abs=1e-6)


def test_auc_counts_any_nonzero_label_as_a_whole_positive():
    # Keras casts the labels to bool: a soft label 0.5 is a positive. Then the positive at 0.6
    # is above both negatives (0.1, 0.4) and so is the one at 0.8; the one at 0.35 above 0.1
    # only: 5 of the 6 (positive, negative) pairs are in order. TF 2.21 gives 0.8333334
    m = tk.metrics.AUC()
    m.update_state([0, 0, 1, 1, 0.5], [0.1, 0.4, 0.35, 0.8, 0.6])
    assert value(m) == pytest.approx(5 / 6, abs=1e-6)
    soft, hard = tk.metrics.AUC(thresholds=[0.5]), tk.metrics.AUC(thresholds=[0.5])
    soft.update_state([0.3, 0.0], [0.6, 0.2])
    hard.update_state([1.0, 0.0], [0.6, 0.2])
    assert float(soft.true_positives[1]) == float(hard.true_positives[1]) == 1.0
    assert value(soft) == value(hard)


def test_auc_bad_arguments():
    with pytest.raises(ValueError, match="AUC: curve must be 'ROC' or 'PR'"):
        tk.metrics.AUC(curve="DET")
    with pytest.raises(ValueError, match="AUC: num_thresholds must be an integer > 1"):
        tk.metrics.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match="AUC: y_true has 2 values and y_pred 3"):
        tk.metrics.AUC().update_state([0, 1], [0.1, 0.2, 0.3])
    assert isinstance(tk.metrics.get("auc"), tk.metrics.AUC)


def test_precision_recall():
    y, p = [0, 1, 1, 1, 0], [0.9, 0.2, 0.7, 0.8, 0.3]   # tp 2, fp 1, fn 1
    prec, rec = tk.metrics.Precision(), tk.metrics.Recall()
    prec.update_state(y, p)
    rec.update_state(y, p)
    assert value(prec) == pytest.approx(2 / 3) and value(rec) == pytest.approx(2 / 3)
    w = tk.metrics.Precision()
    w.update_state(y, p, sample_weight=[3.0, 1, 1, 1, 1])   # the false positive weighs 3
    assert value(w) == pytest.approx(2 / 5)


def test_auc_takes_one_weight_per_example_for_column_predictions():
    # (N,) sample weights with (N, 1) labels and predictions, as fit passes them: Keras takes
    # them; tapekit raised a broadcast error. An integer weight counts as that many copies.
    y = np.array([[1.0], [0.0], [1.0], [0.0], [1.0], [0.0], [1.0]], "float32")
    p = np.array([[0.9], [0.6], [0.35], [0.3], [0.8], [0.1], [0.55]], "float32")
    w = np.array([1, 3, 2, 1, 1, 2, 3])
    for curve in ("ROC", "PR"):
        weighted = tk.metrics.AUC(curve=curve)
        weighted.update_state(y, p, sample_weight=w)
        repeated = tk.metrics.AUC(curve=curve)
        repeated.update_state(np.repeat(y, w, axis=0), np.repeat(p, w, axis=0))
        assert float(weighted.result()) == pytest.approx(float(repeated.result()), rel=1e-6)
        column = tk.metrics.AUC(curve=curve)
        column.update_state(y, p, sample_weight=w[:, None])
        assert float(column.result()) == pytest.approx(float(weighted.result()), rel=1e-6)


def test_auc_counts_predictions_outside_0_1_as_0_and_1():
    # A model's logits given to AUC without from_logits. Keras 3.15 on TF 2.21 gives 0.25 (ROC)
    # and 0.25 (num_thresholds=5): it counts by buckets, so -0.5 and -1 count as 0, 2 and 1.5
    # as 1. By hand on [0, 1, 0.3, 1, 0]: positives {0, 1, 0}, negatives {0.3, 1}: of the 6
    # pairs one is in order and one tied (1 against 1, half): 1.5 / 6.
    y = np.array([[1.0], [1.0], [0.0], [0.0], [1.0]], "float32")
    p = np.array([[-0.5], [2.0], [0.3], [1.5], [-1.0]], "float32")
    for kw in ({}, {"num_thresholds": 5}):
        m = tk.metrics.AUC(**kw)
        m.update_state(y, p)
        assert float(m.result()) == pytest.approx(0.25, rel=1e-6)
        clipped = tk.metrics.AUC(**kw)
        clipped.update_state(y, np.clip(p, 0, 1))
        assert float(clipped.result()) == float(m.result())
    # Explicit thresholds that are not evenly spaced compare as given (no clipping), as Keras.
    m = tk.metrics.AUC(thresholds=[0.2, 0.7])
    m.update_state([[1.0], [0.0]], [[-3.0], [5.0]])
    assert m.true_positives.numpy().tolist() == [0.0, 0.0, 0.0, 0.0]


Y3 = np.array([[0, 1, 1], [1, 0, 0], [0, 0, 1]], "float32")
P3 = np.array([[0.2, 0.9, 0.4], [0.6, 0.6, 0.1], [0.3, 0.8, 0.7]], "float32")
W3 = np.array([1.0, 2.0, 0.5], "float32")


@pytest.mark.parametrize("kw, precision, recall", [
    # Keras 3.15 on TF 2.21 gives these (tapekit raised NotImplementedError). By hand, with
    # per-row weights [1, 2, 0.5] and 4.5 of positive weight in all:
    # top_k=1 keeps 0.9 (a positive), the first 0.6 of the tie (positive; ties go to the lower
    # index), 0.8 (a negative): precision 3 / 3.5, recall 3 / 4.5.
    ({"top_k": 1}, 3 / 3.5, 3 / 4.5),
    ({"top_k": 2}, 4.5 / 7.0, 1.0),
    # class_id=2 reads column 2 only: labels [1, 0, 1], predictions [0.4, 0.1, 0.7] > 0.5.
    ({"class_id": 2}, 1.0, 0.5 / 1.5),
    ({"top_k": 1, "class_id": 0}, 1.0, 1.0),
    # one count per threshold: above 0.25, tp 4.5 and fp 3; above 0.5, 3.5 and 2.5; above
    # 0.85, 1 and 0.
    ({"thresholds": [0.25, 0.5, 0.85]}, [0.6, 3.5 / 6, 1.0], [1.0, 3.5 / 4.5, 1 / 4.5]),
    ({"thresholds": [0.5]}, 3.5 / 6, 3.5 / 4.5),            # a list of one: a scalar result
])
def test_precision_and_recall_top_k_class_id_and_several_thresholds(kw, precision, recall):
    for cls, want in ((tk.metrics.Precision, precision), (tk.metrics.Recall, recall)):
        m = cls(**kw)
        m.update_state(Y3, P3, sample_weight=W3)
        got = m.result()
        assert got.shape == np.shape(want) and got.dtype == tk.float32
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="Precision: top_k must be an integer >= 1"):
        tk.metrics.Precision(top_k=0)


def test_precision_top_k_inside_tk_function():
    m = tk.metrics.Precision(top_k=1)
    step = tk.function(lambda y, p: m.update_state(y, p))
    step(tk.constant(Y3), tk.constant(P3))
    step(tk.constant(Y3[:1]), tk.constant(P3[:1]))     # a replay with other values
    assert float(m.result()) == pytest.approx(3 / 4)
