"""tapekit/ops/reductions.py: reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod: values,
dtypes, gradients by hand (ties share, a zero factor), and the axis checks.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops.reductions import reduction_axes
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def test_gradients_by_hand_ties_share_and_a_zero_factor():
    x = tk.Variable([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]])
    with tk.GradientTape(persistent=True) as tape:
        top, prod, mean = tk.reduce_max(x, axis=1), tk.reduce_prod(x, axis=1), tk.reduce_mean(x)
    np.testing.assert_array_equal(tape.gradient(top, x).numpy(), [[0, 0.5, 0.5], [0, 0, 1]])   # TF: ties share
    np.testing.assert_array_equal(tape.gradient(prod, x).numpy(), [[9, 3, 3], [0, 10, 0]])     # product of the others
    np.testing.assert_array_equal(tape.gradient(mean, x).numpy(), np.full((2, 3), 1 / 6, np.float32))


@pytest.mark.parametrize("f", [tk.reduce_sum, tk.reduce_mean, tk.reduce_max, tk.reduce_min, tk.reduce_prod])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), ([0, 2], True), (-1, True)])
def test_gradients_match_finite_differences_to_second_order(f, axis, keepdims):
    x = np.random.default_rng(6).permutation(24).reshape(2, 3, 4) * 0.1 + 0.5     # no ties
    check_grads(lambda a: f(a, axis=axis, keepdims=keepdims), x, order=2)


def test_reduction_axes_are_sorted_negative_and_checked():
    assert reduction_axes(None, 3) == (-3, -2, -1)
    assert reduction_axes([2, 0], 3) == (-3, -1)
    assert reduction_axes(tk.constant(1), 2) == (-1,)
    with pytest.raises(IAE, match=r"reduce_sum: axis = 2 is out of range for a tensor of rank 2"):
        tk.reduce_sum(tk.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match=r"reduce_mean: axis must be an integer, got 1\.5"):
        tk.reduce_mean(tk.ones((2, 3)), axis=1.5)


def test_integer_reductions_keep_the_dtype_and_mean_truncates():
    i = tk.constant([1, 2, 4])
    for f in (tk.reduce_sum, tk.reduce_prod, tk.reduce_max, tk.reduce_min, tk.reduce_mean):
        assert f(i).dtype == tk.int32, f
    assert int(tk.reduce_sum(i)) == 7 and int(tk.reduce_prod(i)) == 8
    assert int(tk.reduce_mean(i)) == 2                        # 7 / 3 truncated, as TensorFlow
    assert int(tk.reduce_mean(tk.constant([-1, -2]))) == -1   # toward zero, not down
    assert tk.reduce_sum(tk.constant(np.array([1, 2], np.int64))).dtype == tk.int64


@pytest.mark.parametrize("reduce", [tk.reduce_sum, tk.reduce_mean, tk.reduce_max, tk.reduce_min,
                                    tk.reduce_prod])
@pytest.mark.parametrize("axis", [[0, 0], (1, -1)])
def test_duplicate_reduction_axes_raise(reduce, axis):
    with pytest.raises(IAE, match=rf"{reduce.__name__}: axis \[{axis[0]}, {axis[1]}\] names axis \d twice"):
        reduce(tk.ones((2, 3)), axis=axis)


def test_integer_reductions_of_a_full_reduction_keep_int32():
    # Found by tools/tf_diff: reduce_max over every axis leaves a NumPy scalar, and the next
    # reduction took it for a non-array: TF 2.21 gives int32 3 for each, tapekit gave float64
    # (reduce_mean) and int64 (reduce_sum, reduce_prod).
    m = tk.reduce_max(tk.constant([[1, 3]]))
    for f in (tk.reduce_mean, tk.reduce_sum, tk.reduce_prod, tk.reduce_max):
        r = f(m)
        assert r.dtype == np.int32 and r.numpy() == 3, f.__name__
    assert tk.reduce_mean(tk.reduce_min(tk.constant([-7, 3])), keepdims=True).dtype == np.int32


def test_max_and_min_over_an_empty_axis_give_the_identity():
    # Found by tools/tf_diff: TF 2.21 gives [-inf -inf] for reduce_max of a (2, 0) tensor over
    # axis 1 and [inf inf] for reduce_min; the int32 extremes for int32. tapekit raised.
    x = tk.constant(np.zeros((2, 0), np.float32))
    with tk.GradientTape() as tape:
        tape.watch(x)
        hi, lo = tk.reduce_max(x, axis=1), tk.reduce_min(x, axis=-1, keepdims=True)
    np.testing.assert_array_equal(hi.numpy(), [-np.inf, -np.inf])
    np.testing.assert_array_equal(lo.numpy(), [[np.inf], [np.inf]])
    assert hi.dtype == np.float32 and lo.shape == (2, 1)
    assert tape.gradient([hi, lo], x).shape == (2, 0)
    empty = tk.constant(np.zeros((0,), np.int32))
    assert tk.reduce_max(empty).numpy() == np.iinfo(np.int32).min
    assert tk.reduce_min(empty).numpy() == np.iinfo(np.int32).max
    assert tk.reduce_max(tk.constant([[2.0, -1.0]]), axis=1).numpy() == 2.0   # non-empty unchanged


def test_reduce_any_and_all_match_tensorflow_and_take_bools_only():
    b = tk.constant([[True, False], [False, False]])
    assert tk.reduce_any(b, axis=1).numpy().tolist() == [True, False]      # TF: [ True False]
    got = tk.math.reduce_all(tk.constant([[True, False], [True, True]]), axis=0, keepdims=True)
    assert got.dtype == tk.bool and got.numpy().tolist() == [[True, False]]   # TF: [[ True False]]
    assert tk.reduce_any(b).numpy() and not tk.reduce_all(b).numpy()
    empty = tk.constant(np.zeros((0,), bool))
    assert tk.reduce_all(empty).numpy() and not tk.reduce_any(empty).numpy()   # TF: True, False
    # TF: InvalidArgumentError "expected to be a bool tensor but is a float tensor"
    with pytest.raises(IAE, match="reduce_any: input_tensor must be a bool tensor, got dtype float32"):
        tk.reduce_any(tk.constant([1.0]))
    with pytest.raises(IAE, match="reduce_all: input_tensor must be a bool tensor, got dtype int32"):
        tk.reduce_all(tk.constant([1]))
    w = tk.Variable([1.0, -2.0])
    with tk.GradientTape() as tape:
        y = tk.cast(tk.reduce_any(w > 0), tk.float32) * w
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [1, 1])   # no gradient through any
