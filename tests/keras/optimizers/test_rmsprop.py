"""RMSprop steps against Keras 3's update formulas written out in NumPy, and Keras's own example."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import optimizers

from .steps import GRADS, START, lr32, run


def rmsprop_reference(lr=0.001, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
    w, vel, mom, avg, lr = START.copy(), np.zeros(3), np.zeros(3), np.zeros(3), lr32(lr)
    for g in GRADS:
        vel = rho * vel + (1 - rho) * g * g
        if centered:
            avg = rho * avg + (1 - rho) * g
            denominator = vel - avg ** 2 + eps
        else:
            denominator = vel + eps
        increment = lr * g / np.sqrt(denominator)
        if momentum > 0:
            mom = momentum * mom + increment
            w = w - mom
        else:
            w = w - increment
    return w


@pytest.mark.parametrize("kwargs", [{}, {"momentum": 0.9}, {"centered": True},
                                    {"momentum": 0.5, "centered": True, "rho": 0.8}])
def test_rmsprop_steps(kwargs):
    opt = optimizers.RMSprop(learning_rate=0.01, **kwargs)
    np.testing.assert_allclose(run(opt), rmsprop_reference(lr=0.01, **kwargs), rtol=1e-13)


def test_rmsprop_keras_docstring_example():
    var = tk.Variable(10.0)
    opt = optimizers.RMSprop(learning_rate=0.1)
    with tk.GradientTape() as tape:
        loss = var ** 2 / 2.0
    opt.apply_gradients(zip([tape.gradient(loss, var)], [var]))
    np.testing.assert_allclose(var.numpy(), 9.683772, rtol=1e-6)


def test_defaults_match_keras():
    rms = optimizers.RMSprop()
    assert (rms.rho, rms.momentum, rms.epsilon, rms.centered) == (0.9, 0.0, 1e-7, False)
