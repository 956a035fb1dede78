"""tapekit/ops/tiling.py: tile's values against TensorFlow 2.21, its checks of multiples, and
its gradient (the copies summed) by hand and against finite differences."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def test_values_match_tensorflow():
    x = tk.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    got = tk.tile(x, [2, 1])
    # TF: [[1. 2. 3.] [4. 5. 6.] [1. 2. 3.] [4. 5. 6.]], shape=(4, 3), float32
    assert got.dtype == tk.float32
    np.testing.assert_array_equal(got.numpy(), [[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]])
    n = tk.tile(tk.constant([1, 2]), [3])                # TF: [1 2 1 2 1 2], int32
    assert n.dtype == tk.int32 and n.numpy().tolist() == [1, 2, 1, 2, 1, 2]
    assert tk.tile(x, tk.constant([1, 0])).shape == (2, 0)
    assert tk.tile(tk.constant([True]), [2]).numpy().tolist() == [True, True]


def test_multiples_one_integer_per_axis():
    x = tk.ones((2, 3))
    # TF: InvalidArgumentError "Expected multiples argument to be a vector of length 2 but got length 3"
    with pytest.raises(IAE, match=r"a vector of length 2\), got \[1, 2, 3\]"):
        tk.tile(x, [1, 2, 3])
    with pytest.raises(TypeError, match="tile: multiples must be an integer, got 1.5"):
        tk.tile(x, [1.5, 2])
    with pytest.raises(IAE, match="multiples must be >= 0"):
        tk.tile(x, [1, -1])


def test_gradient_sums_the_copies():
    a = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.tile(a, [2, 3]) * tk.reshape(tk.range(24.0), (4, 6)))
    # TF: [[48. 54.] [84. 90.]]
    np.testing.assert_array_equal(tape.gradient(y, a).numpy(), [[48, 54], [84, 90]])


@pytest.mark.parametrize("shape, multiples", [((3,), [2]), ((2, 3), [2, 1]), ((2, 1, 3), [1, 3, 2]), ((), [])])
def test_gradients_match_finite_differences_to_second_order(shape, multiples):
    x = np.random.default_rng(5).uniform(-1, 1, shape)
    check_grads(lambda a: tk.tile(a * a, multiples) * tk.tile(a, multiples), x, order=2)
