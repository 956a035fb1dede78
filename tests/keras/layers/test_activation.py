"""Activation, ReLU and LeakyReLU layers (layers/activation.py)."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.testing import check_grads


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_relu_and_leaky_relu_values_and_gradients():
    x = np.array([-2.0, -0.3, 0.7, 3.0])
    assert layers.LeakyReLU().negative_slope == 0.3
    np.testing.assert_allclose(layers.LeakyReLU(dtype=tk.float64)(x).numpy(), [-0.6, -0.09, 0.7, 3.0])
    relu = layers.ReLU(max_value=2.0, negative_slope=0.1, threshold=0.5, dtype=tk.float64)
    np.testing.assert_allclose(relu(x).numpy(), [-0.25, -0.08, 0.7, 2.0])   # 0.1 (x - 0.5), x, cap 2
    check_grads(layers.LeakyReLU(0.2, dtype=tk.float64), x)
    check_grads(relu, x)
    np.testing.assert_allclose(layers.Activation("elu", dtype=tk.float64)(x).numpy(),
                               np.where(x > 0, x, np.expm1(x)))
    with pytest.raises(ValueError, match="negative_slope"):
        layers.LeakyReLU(alpha=0.2)
