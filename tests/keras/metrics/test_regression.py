"""MeanAbsolutePercentageError: by hand, weighted, and with a zero label (Keras's 1e-7 floor)."""
import numpy as np
import pytest

import tapekit as tk


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
