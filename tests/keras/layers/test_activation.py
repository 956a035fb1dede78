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


X6 = np.linspace(-1, 2, 12).reshape(2, 6).astype("float32")


def test_softmax_layer_as_keras():
    # Keras 3.15 gives these (axis -1, axis 0, and with a mask)
    np.testing.assert_allclose(tk.layers.Softmax()(X6).numpy().ravel()[:3],
                               [0.07579963654279709, 0.09956599771976471, 0.13078410923480988],
                               rtol=1e-6)
    np.testing.assert_allclose(tk.layers.Softmax(axis=0)(X6).numpy()[:, 0],
                               [0.162960484623909, 0.837039589881897], rtol=1e-6)
    mask = np.array([[1, 1, 0, 1, 0, 1], [0, 0, 0, 0, 0, 0]], bool)
    np.testing.assert_allclose(tk.layers.Softmax()(X6, mask=mask).numpy(), [
        [0.11778141558170319, 0.1547108143568039, 0, 0.26693689823150635, 0,
         0.46057090163230896], [0] * 6], rtol=1e-6, atol=1e-12)
    both = tk.layers.Softmax(axis=[0, 1])(X6).numpy()
    assert both.sum() == pytest.approx(1.0, rel=1e-6)


def test_softmax_layer_gradient_and_config():
    layer = tk.layers.Softmax()
    w = np.cos(np.arange(12)).reshape(2, 6)
    theoretical, numerical = tk.test.compute_gradient(
        lambda v: tk.reduce_sum(layer(v) * w), [tk.constant(X6)])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-3, atol=1e-3)
    config = tk.layers.Softmax(axis=0, name="softmax_1").get_config()
    assert {k: v for k, v in config.items() if k != "dtype"} == {    # Keras 3.15's config
        "name": "softmax_1", "trainable": True, "axis": 0}
    assert tk.layers.Softmax.from_config(config).axis == 0
