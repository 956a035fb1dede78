"""tk.shape, tk.size, tk.rank, TensorShape, tk.broadcast_to (with its gradient) and tk.split."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def test_shape_size_rank_are_int32_tensors():
    x = tk.zeros((2, 3, 4))
    assert tk.shape(x).numpy().tolist() == [2, 3, 4] and tk.shape(x).dtype == np.int32
    assert int(tk.size(x)) == 24 and tk.size(x).dtype == np.int32
    assert int(tk.rank(x)) == 3
    assert tk.shape(x, out_type=tk.int64).dtype == np.int64
    assert tk.shape([[1, 2, 3]]).numpy().tolist() == [1, 3]        # a nested list works too
    with pytest.raises(TypeError, match="out_type must be tk.int32 or tk.int64"):
        tk.shape(x, out_type=tk.float32)


def test_tensor_shape_methods():
    s = tk.TensorShape([None, 3])
    assert repr(s) == "TensorShape([None, 3])" and str(s) == "(None, 3)"
    assert s.as_list() == [None, 3] and s.rank == 2 and s.ndims == 2
    assert not s.is_fully_defined() and s.num_elements() is None
    assert tk.TensorShape([2, 3]).num_elements() == 6
    assert s.concatenate([5]) == (None, 3, 5)
    assert repr(s[1:]) == "TensorShape([3])"
    with pytest.raises(TypeError, match="a dimension must be an integer >= 0 or None"):
        tk.TensorShape([2, 1.5])


def test_a_tensors_shape_is_a_tensor_shape_that_prints_as_a_tuple():
    shape = tk.ones((2, 3)).shape
    assert isinstance(shape, tk.TensorShape) and isinstance(shape, tuple)
    assert shape.as_list() == [2, 3] and shape == (2, 3) and repr(shape) == "(2, 3)"
    assert shape[0] == 2 and repr(shape[1:]) == "(3,)"
    assert np.zeros(shape).shape == (2, 3)


def test_broadcast_to_values_and_gradient():
    x = tk.constant([[1.0], [2.0]])                  # (2, 1) -> (3, 2, 4)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.broadcast_to(x, [3, 2, 4])
        loss = tk.reduce_sum(y * np.arange(24.0).reshape(3, 2, 4))
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(x.numpy(), (3, 2, 4)))
    want = np.arange(24.0).reshape(3, 2, 4).sum(axis=(0, 2))[:, None]   # summed over the copies
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), want)
    theoretical, numerical = tk.test.compute_gradient(
        lambda v: tk.broadcast_to(v, (2, 3)), [np.array([1.0, 2.0, 3.0])])
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=1e-6)


def test_broadcast_to_bad_shape_names_both():
    with pytest.raises(ValueError, match=r"broadcast_to: cannot broadcast an input of shape \(3,\) to \(2, 2\)"):
        tk.broadcast_to(tk.ones((3,)), (2, 2))
    with pytest.raises(ValueError, match=r"cannot broadcast an input of shape \(2, 3\) to \(3,\)"):
        tk.broadcast_to(tk.ones((2, 3)), (3,))


def _five_thousand_and_one(odd):
    """5,001 inputs of shape (2,), the one at position 4,217 replaced by `odd`."""
    values = [tk.ones(2) for _ in range(5001)]
    values[4217] = odd
    return values


def test_stack_of_5001_names_the_odd_input_in_a_short_message():
    # TF 2.21: "Shapes of all inputs must match: values[0].shape = [2] != values[4217].shape
    # = [3]"; tapekit listed all 5,001 shapes (100 KB) without saying which one differed
    with pytest.raises(tk.errors.InvalidArgumentError) as info:
        tk.stack(_five_thousand_and_one(tk.ones(3)))
    message = str(info.value)
    assert len(message) < 1000
    assert "input 4,217 has shape (3,); the other 5,000 have shape (2,)" in message
    assert message.startswith("stack: inputs must all have the same shape") and "tk.reshape" in message
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"got shapes \(2,\), \(3,\)\. Give"):
        tk.stack([tk.ones(2), tk.ones(3)])          # a short list: every shape, in order
    with pytest.raises(TypeError, match="stack: input 4,217 is None; did a gradient come back None"):
        tk.stack(_five_thousand_and_one(None))


def test_concat_of_5001_names_the_input_of_another_rank_or_size():
    # TF 2.21: "Ranks of all input tensors should match: shape[0] = [2] vs. shape[4217] = [2,2]"
    with pytest.raises(tk.errors.InvalidArgumentError) as info:
        tk.concat(_five_thousand_and_one(tk.ones((2, 2))), axis=0)
    message = str(info.value)
    assert len(message) < 1000
    assert "same rank: input 4,217 has shape (2, 2); the other 5,000 have rank 1" in message
    values = [tk.ones((1, 3)) for _ in range(5001)]
    values[4217] = tk.ones((1, 4))
    with pytest.raises(tk.errors.InvalidArgumentError) as info:
        tk.concat(values, axis=0)
    assert len(str(info.value)) < 1000 and ("but the axis joined (axis 0): input 4,217 has shape "
                                             "(1, 4); the other 5,000 have shape (?, 3)") in str(info.value)
    assert tk.concat(values, axis=1).shape == (1, 15004)    # sizes may differ along the axis joined
    assert tk.concat([tk.ones((2, 3)), tk.ones((1, 3))], axis=-2).shape == (3, 3)


def test_a_list_with_a_float64_among_5001_float32_names_it():
    # TF 2.21: "cannot compute Pack as input #4217(zero-based) was expected to be a float
    # tensor but is a double tensor"
    for join in (tk.stack, tk.add_n, lambda v: tk.concat(v, 0)):
        with pytest.raises(TypeError) as info:
            join(_five_thousand_and_one(tk.ones(2, tk.float64)))
        assert len(str(info.value)) < 1000
        assert ("inputs have different dtypes float32 and float64 (input 4,217 is float64; "
                "the other 5,000 are float32)") in str(info.value) and "tk.cast" in str(info.value)


# --- split (values and errors checked against TensorFlow 2.21) -----------------------------------
def _values(pieces):
    return [p.numpy().tolist() for p in pieces]


def test_split_equal_pieces_and_listed_sizes_match_tensorflow():
    x = tk.reshape(tk.range(12.0), (3, 4))
    two = tk.split(tk.reshape(tk.range(12.0), (2, 6)), 3, axis=1)
    # TF: [[0,1],[6,7]], [[2,3],[8,9]], [[4,5],[10,11]], float32
    assert _values(two) == [[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [10, 11]]]
    assert all(p.dtype == tk.float32 for p in two)
    # a list with -1 (the rest), a negative axis: TF [[0],[4],[8]], [[1],[5],[9]], [[2,3],[6,7],[10,11]]
    assert _values(tk.split(x, [1, -1, 2], axis=-1)) == [[[0], [4], [8]], [[1], [5], [9]],
                                                       [[2, 3], [6, 7], [10, 11]]]
    assert [p.shape for p in tk.split(x, [0, 4], axis=1)] == [(3, 0), (3, 4)]
    assert [p.shape for p in tk.split(x, tk.constant([2, 2]), axis=1, num=2)] == [(3, 2), (3, 2)]
    ints = tk.split([0, 1, 2, 3, 4, 5], 2)                  # a list: int32, axis 0
    assert _values(ints) == [[0, 1, 2], [3, 4, 5]] and ints[0].dtype == tk.int32
    assert isinstance(tk.split(x, 1), list)


def test_split_refuses_what_tensorflow_refuses():
    x = tk.zeros((3, 4))
    with pytest.raises(IAE, match=r"split: 3 pieces do not divide axis 1 \(size 4\) evenly"):
        tk.split(x, 3, axis=1)                              # TF: InvalidArgumentError
    with pytest.raises(IAE, match=r"sizes \[1, 2\] add up to 3, but axis 1 has size 4"):
        tk.split(x, [1, 2], axis=1)                         # TF: InvalidArgumentError (SplitV)
    with pytest.raises(IAE, match="one -1"):
        tk.split(x, [-1, -1, 2], axis=1)
    with pytest.raises(IAE, match="split: axis = 2 is out of range"):
        tk.split(x, 2, axis=2)
    with pytest.raises(ValueError, match="num=3 but num_or_size_splits lists 2 sizes"):
        tk.split(x, [1, 3], axis=1, num=3)
    with pytest.raises(ValueError, match="cannot split a scalar"):
        tk.split(tk.constant(1.0), 1)
    with pytest.raises(TypeError, match="must be an integer, got 1.5"):
        tk.split(x, [1.5, 2.5], axis=1)


def test_split_gradient_goes_back_to_each_slice():
    x = tk.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tk.GradientTape() as tape:
        a, b = tk.split(x, [1, 2], axis=1)
        y = tk.reduce_sum(a * 10.0) + tk.reduce_sum(b * b)
    # by hand: 10 on column 0, 2 x elsewhere
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[10, 4, 6], [10, 10, 12]])


@pytest.mark.parametrize("sizes, axis", [(2, 0), ([1, -1], 1), ([2, 0, 1], -1)])
def test_split_gradients_match_finite_differences(sizes, axis):
    x = np.random.default_rng(2).uniform(-1, 1, (4, 3))
    weights = [np.random.default_rng(k).uniform(-1, 1) for k in range(3)]

    def f(a):
        pieces = tk.split(a * a, sizes, axis=axis)
        return tk.add_n([tk.reduce_sum(p) * w for p, w in zip(pieces, weights)])
    check_grads(f, x, order=2)


def test_concat_undoes_split():
    x = tk.reshape(tk.range(24.0), (2, 3, 4))
    for sizes, axis in [(2, 0), ([1, 2], 1), ([3, -1], -1)]:
        np.testing.assert_array_equal(tk.concat(tk.split(x, sizes, axis=axis), axis=axis).numpy(),
                                      x.numpy())
