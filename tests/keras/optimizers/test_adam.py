"""Adam steps against Keras 3's update formulas written out in NumPy."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import optimizers

from .steps import GRADS, START, lr32, run


def adam_reference(lr=0.001, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False):
    w, m, v, v_hat, lr = START.copy(), np.zeros(3), np.zeros(3), np.zeros(3), lr32(lr)
    for t, g in enumerate(GRADS, start=1):
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        v_hat = np.maximum(v_hat, v)           # Keras 3: divide by the largest v so far
        w = w - m * alpha / (np.sqrt(v_hat if amsgrad else v) + eps)
    return w


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate": 0.05, "beta_1": 0.8, "epsilon": 1e-3}])
def test_adam_steps(kwargs):
    ref = adam_reference(**{{"learning_rate": "lr", "beta_1": "b1", "beta_2": "b2",
                             "epsilon": "eps"}[k]: v for k, v in kwargs.items()})
    np.testing.assert_allclose(run(optimizers.Adam(**kwargs)), ref, rtol=1e-13)
    np.testing.assert_allclose(run(optimizers.Adam(**kwargs), np.float32), ref, rtol=1e-5, atol=1e-6)


def test_defaults_match_keras():
    adam = optimizers.Adam()
    assert (adam.learning_rate.numpy(), adam.beta_1, adam.beta_2, adam.epsilon) == (
        np.float32(0.001), 0.9, 0.999, 1e-7)


def test_adam_amsgrad_steps():
    # the fourth gradient is smaller than the ones before: v falls, v_hat keeps the maximum
    ref = adam_reference(lr=0.05, amsgrad=True)
    assert not np.allclose(ref, adam_reference(lr=0.05))
    np.testing.assert_allclose(run(optimizers.Adam(0.05, amsgrad=True)), ref, rtol=1e-13)


def test_adam_amsgrad_keeps_keras_3s_slots_and_config():
    adam = optimizers.Adam(amsgrad=True)
    var = tk.Variable([1.0, 2.0], name="w")
    adam.apply_gradients([(tk.constant([0.5, 0.5]), var)])
    assert [v.name for v in adam.variables][2:] == ["Adam/w/momentum:0", "Adam/w/velocity:0",
                                                    "Adam/w/velocity_hat:0"]
    assert adam.get_config()["amsgrad"] is True
    assert optimizers.Adam.from_config(adam.get_config()).amsgrad is True
    with pytest.raises(TypeError, match="amsgrad must be True or False"):
        optimizers.Adam(amsgrad="yes")
