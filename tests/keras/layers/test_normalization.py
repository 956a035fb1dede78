"""BatchNormalization (layers/normalization.py): batch statistics in training, moving ones at inference, gradients."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.testing import check_grads

from .weight_grads import weight_grads_match


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_batch_normalization_training_uses_and_updates_batch_statistics():
    x = np.array([[1.0, 10.0], [3.0, 10.0], [5.0, 16.0]])
    bn = layers.BatchNormalization(momentum=0.9, epsilon=0.01, dtype=tk.float64)
    y = bn(x, training=True).numpy()
    mean, var = x.mean(0), x.var(0)                     # (3, 12), (8/3, 8)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 0.01), rtol=1e-12)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-12)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-12)
    bn.gamma.assign([2.0, 1.0])
    bn.beta.assign([0.5, 0.0])
    for training in (False, None):                      # inference: the moving statistics
        y = bn(x, training=training).numpy()
        mm, mv = 0.1 * mean, 0.9 + 0.1 * var
        np.testing.assert_allclose(y, (x - mm) / np.sqrt(mv + 0.01) * [2, 1] + [0.5, 0], rtol=1e-12)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-12)   # not updated
    assert [v.path for v in bn.weights] == [
        "batch_normalization/gamma", "batch_normalization/beta",
        "batch_normalization/moving_mean", "batch_normalization/moving_variance"]
    assert len(bn.trainable_weights) == 2


def test_batch_normalization_gradients_and_other_axis():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3))
    bn = layers.BatchNormalization(dtype=tk.float64)
    bn(x)
    bn.gamma.assign(rng.normal(size=3))
    check_grads(lambda t: bn(t, training=True) * tk.constant(np.arange(12.0).reshape(4, 3)), x,
                modes=("rev",))
    weight_grads_match(bn, tk.constant(x), training=True)
    images = rng.normal(size=(2, 3, 2, 2))
    channels_first = layers.BatchNormalization(axis=1, epsilon=0.0, dtype=tk.float64)
    y = channels_first(images, training=True).numpy()
    m, v = images.mean((0, 2, 3), keepdims=True), images.var((0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y, (images - m) / np.sqrt(v), rtol=1e-10)
