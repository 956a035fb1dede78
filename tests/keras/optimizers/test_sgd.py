"""SGD steps against Keras 3's update formulas written out in NumPy."""
import numpy as np
import pytest

from tapekit import optimizers

from .steps import GRADS, START, lr32, run


def sgd_reference(lr, momentum=0.0, nesterov=False):
    w, m, lr = START.copy(), np.zeros(3), lr32(lr)
    for g in GRADS:
        if momentum == 0:
            w = w - g * lr
            continue
        m = m * momentum - g * lr
        w = w + (m * momentum - g * lr if nesterov else m)
    return w


@pytest.mark.parametrize("kwargs", [{}, {"momentum": 0.9}, {"momentum": 0.5, "nesterov": True}])
def test_sgd_steps(kwargs):
    np.testing.assert_allclose(run(optimizers.SGD(0.1, **kwargs)), sgd_reference(0.1, **kwargs),
                               rtol=1e-13)


def test_defaults_and_bad_momentum():
    assert optimizers.SGD().learning_rate.numpy() == np.float32(0.01)
    with pytest.raises(ValueError, match="momentum"):
        optimizers.SGD(momentum=1.5)
