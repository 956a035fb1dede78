"""MeanAbsolutePercentageError: by hand, weighted, and with a zero label (Keras's 1e-7 floor)."""
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


def test_mape_by_hand():
    m = tk.metrics.MeanAbsolutePercentageError()
    m.update_state([[2.0, 4.0], [1.0, 1.0]], [[1.0, 5.0], [1.0, 2.0]])
    assert float(m.result()) == pytest.approx((37.5 + 50.0) / 2)
    w = tk.metrics.MeanAbsolutePercentageError()
    w.update_state([[2.0, 4.0], [1.0, 1.0]], [[1.0, 5.0], [1.0, 2.0]], sample_weight=[1.0, 3.0])
    assert float(w.result()) == pytest.approx((37.5 + 3 * 50.0) / 4)


def test_mape_zero_label_uses_the_epsilon_floor():
    got = tk.metrics.mean_absolute_percentage_error(np.array([[0.0]]), np.array([[1.0]]))
    assert float(got[0]) == pytest.approx(100 * 1 / 1e-7, rel=1e-6)    # Keras 3 prints 1e9 too
    assert tk.metrics.get("mape") is tk.metrics.mean_absolute_percentage_error


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


def test_cross_entropy_metrics_take_label_smoothing_like_the_losses():
    y, p = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]]
    for metric, loss in [(tk.metrics.CategoricalCrossentropy, tk.losses.CategoricalCrossentropy),
                         (tk.metrics.BinaryCrossentropy, tk.losses.BinaryCrossentropy)]:
        m = metric(label_smoothing=0.1)
        m.update_state(y, p)
        assert float(m.result()) == pytest.approx(float(loss(label_smoothing=0.1)(y, p)), rel=1e-6)
        assert float(m.result()) != pytest.approx(float(loss()(y, p)), rel=1e-3)
