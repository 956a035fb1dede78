"""tapekit/ops/statistics.py: argmax/argmin, count_nonzero, reduce_variance, reduce_std and
reduce_logsumexp: values and gradients by hand, dtypes, errors.
"""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads


def test_variance_and_logsumexp_gradients_by_hand():
    x = tk.Variable([1.0, 2.0, 3.0, 6.0], dtype=tk.float64)
    with tk.GradientTape(persistent=True) as tape:
        var, lse = tk.math.reduce_variance(x), tk.math.reduce_logsumexp(x)
    np.testing.assert_allclose(tape.gradient(var, x).numpy(), 2 * np.array([-2.0, -1.0, 0.0, 3.0]) / 4)
    e = np.exp([1.0, 2.0, 3.0, 6.0])
    np.testing.assert_allclose(tape.gradient(lse, x).numpy(), e / e.sum(), rtol=1e-14)    # softmax


@pytest.mark.parametrize("f", [tk.math.reduce_variance, tk.math.reduce_std, tk.math.reduce_logsumexp])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (0, True)])
def test_gradients_match_finite_differences_to_second_order(f, axis, keepdims):
    x = np.random.default_rng(8).standard_normal((3, 4))
    check_grads(lambda a: f(a, axis=axis, keepdims=keepdims), x, order=2)


def test_argmax_defaults_to_axis_zero_and_int64_and_has_no_gradient():
    x = tk.constant([[1.0, 9.0, 3.0], [4.0, 2.0, 3.0]])
    np.testing.assert_array_equal(tk.argmax(x).numpy(), [1, 0, 0])      # ties: the first
    assert tk.argmax(x).dtype == tk.int64
    np.testing.assert_array_equal(tk.math.argmin(x, axis=-1, output_type=tk.int32).numpy(), [0, 1])
    assert tk.math.argmin(x, 1, output_type=tk.int32).dtype == tk.int32
    v = tk.Variable([1.0, 3.0])
    with tk.GradientTape() as tape:
        i = tk.argmax(v)
    with pytest.warns(tk.GradientDtypeWarning):
        assert tape.gradient(i, v) is None
    with pytest.raises(ValueError, match="argmax: axis = 2 is out of range"):
        tk.argmax(x, axis=2)


def test_variance_std_logsumexp_by_hand():
    x = tk.constant([[1.0, 2.0, 3.0, 6.0]])
    assert float(tk.math.reduce_variance(x)) == pytest.approx(3.5)          # deviations -2 -1 0 3
    assert float(tk.math.reduce_std(x)) == pytest.approx(math.sqrt(3.5))
    big = tk.constant([1000.0, 1000.0, -np.inf], tk.float64)
    assert float(tk.math.reduce_logsumexp(big)) == pytest.approx(1000 + math.log(2), abs=1e-12)
    assert float(tk.math.reduce_logsumexp(tk.constant([-np.inf, -np.inf]))) == -np.inf
    with pytest.raises(TypeError, match="reduce_variance: needs a floating input"):
        tk.math.reduce_variance(tk.constant([1, 2]))
    assert int(tk.math.count_nonzero(tk.constant([[0.0, 1.0], [2.0, 0.0]]))) == 2
