"""tapekit/ops/tiling.py: tile's, repeat's and roll's values against TensorFlow 2.21, their
checks, and their gradients (the copies summed, the shift undone) by hand and against finite
differences."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --- repeat and roll (values and errors checked against TensorFlow 2.21) --------------------------
def test_repeat_matches_tensorflow():
    flat = tk.repeat([[1, 2], [3, 4]], 2)                  # TF: [1 1 2 2 3 3 4 4], int32
    assert flat.dtype == tk.int32 and flat.numpy().tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    rows = tk.repeat([[1, 2], [3, 4]], [1, 2], axis=0)     # TF: [[1 2] [3 4] [3 4]]
    assert rows.numpy().tolist() == [[1, 2], [3, 4], [3, 4]]
    cols = tk.repeat(tk.constant([[1.0, 2.0], [3.0, 4.0]]), 3, axis=-1)
    assert cols.dtype == tk.float32
    assert cols.numpy().tolist() == [[1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4]]
    assert tk.repeat(3.0, 3).numpy().tolist() == [3, 3, 3]             # TF: a scalar: [3. 3. 3.]
    assert tk.repeat(3.0, 3, axis=0).shape == (3,)
    assert tk.repeat([1, 2], [0, 2]).numpy().tolist() == [2, 2]


def test_repeat_refuses_bad_counts():
    with pytest.raises(ValueError, match=r"one count per slice along axis 0 \(2 of them\), got \[1, 2, 3\]"):
        tk.repeat([[1, 2], [3, 4]], [1, 2, 3], axis=0)     # TF: ValueError (incompatible dimensions)
    with pytest.raises(IAE, match="repeats must be >= 0"):
        tk.repeat([1, 2], -1)                              # TF: InvalidArgumentError
    with pytest.raises(TypeError, match="repeats must be integers"):
        tk.repeat([1, 2], 1.5)
    with pytest.raises(IAE, match="repeat: axis = 2 is out of range"):
        tk.repeat([[1, 2]], 2, axis=2)


def test_repeat_gradient_sums_the_copies():
    x = tk.Variable([1.0, 2.0, 3.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.repeat(x, [2, 0, 3]) * tk.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
    # by hand: x0 copied to places 0, 1 (1 + 2); x1 nowhere; x2 to 2, 3, 4 (3 + 4 + 5)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3, 0, 12])


def test_roll_matches_tensorflow():
    assert tk.roll([0, 1, 2, 3, 4], 2, 0).numpy().tolist() == [3, 4, 0, 1, 2]
    x = tk.reshape(tk.range(12.0), (3, 4))
    # TF: [[9 10 11 8] [1 2 3 0] [5 6 7 4]]
    assert tk.roll(x, [1, -1], [0, 1]).numpy().tolist() == [[9, 10, 11, 8], [1, 2, 3, 0], [5, 6, 7, 4]]
    # one axis twice: the shifts add up (TF: [[2 3 0 1] ...])
    assert tk.roll(x, [1, 1], [1, 1]).numpy().tolist()[0] == [2, 3, 0, 1]
    assert tk.roll(x, -5, -1).numpy().tolist()[0] == [1, 2, 3, 0]      # TF: -5 is -1 on 4
    same = tk.roll(x, 4, 1)
    assert same is not x and np.array_equal(same.numpy(), x.numpy()) and same.dtype == tk.float32


def test_roll_refuses_what_tensorflow_refuses():
    x = tk.zeros((3, 4))
    with pytest.raises(IAE, match="roll: axis = 2 is out of range"):
        tk.roll(x, 1, 2)
    with pytest.raises(IAE, match="shift and axis must have the same size"):
        tk.roll(x, [1, 2], [0])


def test_roll_gradient_shifts_back():
    x = tk.Variable([1.0, 2.0, 3.0, 4.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.roll(x, 1, 0) * tk.constant([10.0, 20.0, 30.0, 40.0]))
    # rolled[i] = x[i - 1], so x[j] meets weight j + 1: [20, 30, 40, 10]
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [20, 30, 40, 10])


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
@settings(max_examples=25, deadline=None)
def test_repeat_and_roll_gradients_match_finite_differences(shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    counts = data.draw(st.lists(st.integers(0, 3), min_size=shape[axis], max_size=shape[axis]))
    shift = data.draw(st.integers(-6, 6))
    x = np.random.default_rng(len(shape)).uniform(-1, 1, shape)
    check_grads(lambda a: tk.repeat(a * a, counts, axis=axis), x, order=2)
    check_grads(lambda a: tk.roll(a, shift, axis) * a, x, order=2)
