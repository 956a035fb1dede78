"""tapekit/ops/numpy_dispatch.py: NumPy functions and ufuncs called on tensors are answered by
tapekit's ops (recorded, differentiable), or refused where that would break the gradient path.
"""
import numpy as np
import pytest

import tapekit as tk


def test_numpy_ufuncs_and_functions_on_tensors_are_recorded_ops():
    x = tk.Variable([0.5, 2.0])
    with tk.GradientTape() as tape:
        y = np.sum(np.sin(x) * np.exp(x))
    assert isinstance(y, tk.Tensor)
    v = np.array([0.5, 2.0], np.float32)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), (np.cos(v) + np.sin(v)) * np.exp(v), rtol=1e-6)


def test_a_numpy_function_without_a_tapekit_op_says_what_to_do():
    with pytest.raises(TypeError, match=r"numpy\.eig is not supported on tapekit tensors.*x\.numpy\(\)"):
        np.linalg.eig(tk.constant([[1.0]]))


@pytest.mark.parametrize("func", [np.sort, np.unique, np.round])
def test_numpy_functions_tapekit_does_not_record_raise_inside_a_tape(func):
    x = tk.Variable([3.0, 1.0, 2.0])
    with tk.GradientTape():
        y = x * 2.0
        with pytest.raises(TypeError, match=rf"numpy\.{func.__name__}.*gradient path.*x\.numpy\(\)"):
            func(y)
    np.testing.assert_array_equal(func(tk.constant([3.0, 1.0])), func(np.array([3.0, 1.0], np.float32)))


def test_numpy_function_on_a_trainable_variable_inside_a_tape_raises():
    # A trainable Variable is watched as soon as an op reads it; np.sort would have read it
    # past the tape and returned a plain array (the path to v broken, silently).
    v = tk.Variable([2.0, 1.0])
    with tk.GradientTape():
        with pytest.raises(TypeError, match="numpy.sort"):
            np.sort(v)
    with tk.GradientTape(watch_accessed_variables=False):
        assert np.sort(v).tolist() == [1.0, 2.0]     # nothing watches v here
    assert np.sort(v).tolist() == [1.0, 2.0]         # and outside any tape
