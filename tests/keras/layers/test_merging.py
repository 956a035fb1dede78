"""Merge layers and their functional forms (layers/merging.py), values derived with NumPy."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.testing import check_grads


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_merge_layers_and_their_functional_forms():
    a, b, c = (np.random.default_rng(i).normal(size=(2, 3)) for i in range(3))
    f64 = {"dtype": tk.float64}
    np.testing.assert_allclose(layers.Add(**f64)([a, b, c]).numpy(), a + b + c)
    np.testing.assert_allclose(layers.Subtract(**f64)([a, b]).numpy(), a - b)
    np.testing.assert_allclose(layers.Multiply(**f64)([a, b]).numpy(), a * b)
    np.testing.assert_allclose(layers.Average(**f64)([a, b, c]).numpy(), (a + b + c) / 3)
    np.testing.assert_allclose(layers.Maximum(**f64)([a, b]).numpy(), np.maximum(a, b))
    np.testing.assert_allclose(layers.Minimum(**f64)([a, b]).numpy(), np.minimum(a, b))
    np.testing.assert_allclose(layers.concatenate([a, b], **f64).numpy(), np.concatenate([a, b], -1))
    np.testing.assert_allclose(layers.dot([a, b], axes=1, **f64).numpy(), (a * b).sum(1, keepdims=True))
    cos = layers.Dot(axes=1, normalize=True, **f64)([a, b]).numpy()
    np.testing.assert_allclose(cos[:, 0], (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1))
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        layers.Subtract()([a, b, c])
    check_grads(lambda x, y: layers.Multiply(**f64)([x, y]), a, b)
