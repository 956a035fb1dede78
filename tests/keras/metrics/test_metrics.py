"""tk.metrics: values derived by hand, sample weights, reset, and state that counts inside
a tk.function step (Variables read and assigned at every replay)."""
import numpy as np
import pytest

import tapekit as tk

LOGITS = np.array([[0.1, 0.2, 0.7],    # argmax 2
                   [0.3, 0.6, 0.1],    # argmax 1
                   [0.5, 0.5, 0.0],    # tie: argmax is the first, 0
                   [0.2, 0.3, 0.5]], np.float32)
LABELS = np.array([2, 0, 0, 1])          # right, wrong, right (tie -> 0), wrong


def value(m):
    r = m.result()
    assert r.dtype == tk.float32 and r.shape == ()
    return float(r)


def test_mean_and_sum_weights_and_reset():
    m = tk.metrics.Mean()
    assert value(m) == 0.0                              # empty: 0, not NaN
    m.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1, 1, 0, 0])
    assert value(m) == 2.0
    m.update_state([[10.0, 20.0]], sample_weight=[2.0])  # the row's mean 15, weight 2
    assert value(m) == pytest.approx((4 + 30) / 4)
    m.reset_state()
    assert value(m) == 0.0 and [float(v) for v in m.variables] == [0.0, 0.0]
    s = tk.metrics.Sum()
    s.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1, 1, 0, 0])
    assert value(s) == 4.0
    assert all(isinstance(v, tk.Variable) and not v.trainable for v in m.variables + s.variables)


@pytest.mark.parametrize("labels", [LABELS, LABELS[:, None], LABELS.astype(np.float32)])
def test_sparse_categorical_accuracy_label_shapes(labels):
    m = tk.metrics.SparseCategoricalAccuracy()
    assert m.name == "sparse_categorical_accuracy"
    m.update_state(labels, LOGITS)
    assert value(m) == 0.5
    per_sample = tk.metrics.sparse_categorical_accuracy(labels, LOGITS)
    np.testing.assert_array_equal(per_sample.numpy(), [1, 0, 1, 0])
    m.update_state(labels, LOGITS, sample_weight=[0.0, 1.0, 0.0, 1.0])   # only the wrong ones
    assert value(m) == pytest.approx(2 / 6)


def test_categorical_binary_and_exact_accuracy():
    one_hot = np.eye(3, dtype=np.float32)[LABELS]
    m = tk.metrics.CategoricalAccuracy()
    m.update_state(one_hot, LOGITS)
    assert value(m) == 0.5
    b = tk.metrics.BinaryAccuracy()
    b.update_state([[1], [1], [0], [0]], [[0.98], [0.5], [0.0], [0.6]])   # 0.5 is not > 0.5
    assert value(b) == 0.5                                  # right: rows 0 and 2
    b2 = tk.metrics.BinaryAccuracy(threshold=0.4)
    b2.update_state([[1], [1], [0], [0]], [[0.98], [0.5], [0.0], [0.6]])
    assert value(b2) == 0.75                                # row 1 right now
    a = tk.metrics.Accuracy()
    a.update_state([1, 2, 3, 4], [0, 2, 3, 4])
    assert value(a) == 0.75


def test_top_k():
    m = tk.metrics.SparseTopKCategoricalAccuracy(k=2)
    m.update_state(LABELS, LOGITS)   # ranks of the label: 1st, 2nd, tie for 1st, 2nd
    assert value(m) == 1.0
    m1 = tk.metrics.SparseTopKCategoricalAccuracy(k=1)
    m1.update_state(LABELS, LOGITS)  # the tie counts as top-1 for both tied classes (in_top_k)
    assert value(m1) == 0.5
    t = tk.metrics.TopKCategoricalAccuracy(k=1)
    t.update_state(np.eye(3, dtype=np.float32)[[0, 1, 1, 0]], LOGITS)
    assert value(t) == 0.5     # row 2 (tie 0/1) and row 1 (argmax 1) right; rows 0 and 3 wrong


def test_regression_metrics():
    y, p = np.array([[0.0, 1.0], [2.0, 2.0]]), np.array([[1.0, 1.0], [0.0, 2.0]])
    mse = tk.metrics.MeanSquaredError()
    mse.update_state(y, p)
    assert value(mse) == pytest.approx((0.5 + 2.0) / 2)
    mae = tk.metrics.MeanAbsoluteError()
    mae.update_state(y, p, sample_weight=[3.0, 1.0])
    assert value(mae) == pytest.approx((3 * 0.5 + 1 * 1.0) / 4)
    rmse = tk.metrics.RootMeanSquaredError()
    rmse.update_state([[0.0]], [[3.0]])
    rmse.update_state([[0.0]], [[4.0]])
    assert value(rmse) == pytest.approx(np.sqrt(12.5))


def test_crossentropy_metrics():
    m = tk.metrics.SparseCategoricalCrossentropy(from_logits=True)
    m.update_state(LABELS, LOGITS)
    z = LOGITS.astype(np.float64)
    expected = np.mean(np.log(np.exp(z).sum(1)) - z[np.arange(4), LABELS])
    assert value(m) == pytest.approx(expected, rel=1e-6)
    b = tk.metrics.BinaryCrossentropy()
    b.update_state([[1.0], [0.0]], [[0.8], [0.4]])
    assert value(b) == pytest.approx(-(np.log(0.8) + np.log(0.6)) / 2, rel=1e-6)


def test_precision_recall():
    y, p = [0, 1, 1, 1, 0], [0.9, 0.2, 0.7, 0.8, 0.3]   # tp 2, fp 1, fn 1
    prec, rec = tk.metrics.Precision(), tk.metrics.Recall()
    prec.update_state(y, p)
    rec.update_state(y, p)
    assert value(prec) == pytest.approx(2 / 3) and value(rec) == pytest.approx(2 / 3)
    w = tk.metrics.Precision()
    w.update_state(y, p, sample_weight=[3.0, 1, 1, 1, 1])   # the false positive weighs 3
    assert value(w) == pytest.approx(2 / 5)


def test_get_by_name():
    assert tk.metrics.get("mae") is tk.metrics.mean_absolute_error
    assert isinstance(tk.metrics.get("Precision"), tk.metrics.Precision)
    with pytest.raises(ValueError, match="Could not interpret metric identifier: 'acuracy'"):
        tk.metrics.get("acuracy")


def test_state_counts_inside_tk_function():
    """A compiled step updates the metric at every replay, and matches the eager metric."""
    compiled, eager = tk.metrics.SparseCategoricalAccuracy(), tk.metrics.SparseCategoricalAccuracy()
    loss_c, loss_e = tk.metrics.Mean(), tk.metrics.Mean()

    @tk.function
    def step(y, logits):
        compiled.update_state(y, logits)
        loss_c.update_state(tk.reduce_sum(logits, axis=-1))
        return compiled.result()

    rng = np.random.default_rng(0)
    for k in range(4):
        logits = rng.normal(size=(6, 3)).astype(np.float32)
        y = rng.integers(0, 3, size=6)
        got = step(tk.constant(y), tk.constant(logits))
        eager.update_state(y, logits)
        loss_e.update_state(logits.sum(-1))
        assert float(got) == pytest.approx(value(eager))
        assert value(compiled) == pytest.approx(value(eager))
        assert value(loss_c) == pytest.approx(value(loss_e), rel=1e-6)
    assert step.trace_count == 1
    compiled.reset_state()
    assert value(compiled) == 0.0
