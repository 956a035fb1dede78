"""tapekit/ops/selection.py: where, maximum, minimum: the gradient goes where the value came from."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads


def test_where_sends_each_gradient_to_the_branch_it_took():
    c = tk.constant([True, False, True])
    x, y = tk.Variable([1.0, 2.0, 3.0]), tk.Variable([10.0, 20.0, 30.0])
    with tk.GradientTape() as tape:
        z = tk.reduce_sum(tk.where(c, x, y) * tk.constant([1.0, 2.0, 3.0]))
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [1.0, 0.0, 3.0])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 2.0, 0.0])


def test_where_of_one_argument_gives_the_indices_and_of_two_raises():
    np.testing.assert_array_equal(tk.where(tk.constant([[True, False], [False, True]])).numpy(), [[0, 0], [1, 1]])
    with pytest.raises(ValueError, match=r"where: give both x and y, or neither"):
        tk.where(tk.constant([True]), 1.0)


def test_maximum_and_minimum_ties_send_the_gradient_to_the_first_argument():
    x, y = tk.Variable([1.0, 2.0, 3.0]), tk.Variable([3.0, 2.0, 1.0])
    with tk.GradientTape(persistent=True) as tape:
        hi, lo = tk.maximum(x, y), tk.minimum(x, y)
    for out, gx, gy in ((hi, [0, 1, 1], [1, 0, 0]), (lo, [1, 1, 0], [0, 0, 1])):
        got = tape.gradient(out, [x, y])
        np.testing.assert_array_equal(got[0].numpy(), gx)
        np.testing.assert_array_equal(got[1].numpy(), gy)


def test_gradients_match_finite_differences_away_from_ties():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    check_grads(tk.maximum, a, b, order=2)
    check_grads(tk.minimum, a, b, order=2)
    check_grads(lambda x, y: tk.where(a > 0, x * y, x - y), a, b, order=2)


def test_where_of_two_python_numbers_has_tensorflows_dtypes():
    # np.where(c, 1.0, 0.2) is float64; TensorFlow makes float32 constants, and refuses to
    # mix an int with a float.
    c = tk.constant([1.0, -1.0]) > 0
    out = tk.where(c, 1.0, 0.2)
    assert out.dtype == np.float32 and np.allclose(out, [1.0, 0.2])
    with pytest.raises(TypeError, match=r"where: x and y must have one dtype.*int32.*float32"):
        tk.where(c, 1, 0.2)


def test_where_refuses_branches_of_two_dtypes():
    # Found by tools/tf_diff: TF 2.21 raises (InvalidArgumentError: SelectV2 expected a float
    # tensor) for float32 and float64 branches; tapekit returned a float64 tensor.
    c = tk.constant([True, False])
    x, y = tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0], tk.float64)
    with pytest.raises(TypeError, match=r"where: x and y must have one dtype; got float32 \(2,\) and float64"):
        tk.where(c, x, y)
    with pytest.raises(TypeError, match="tk.cast"):
        tk.where(c, tk.constant([1, 2]), x)
    np.testing.assert_array_equal(tk.where(c, x, tk.cast(y, tk.float32)).numpy(), [1.0, 4.0])
    np.testing.assert_array_equal(tk.where(c, x, 0.0).numpy(), [1.0, 0.0])   # a Python number still fits
