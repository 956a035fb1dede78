"""tk.shape, tk.size, tk.rank, TensorShape and tk.broadcast_to (with its gradient)."""
import numpy as np
import pytest

import tapekit as tk


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
