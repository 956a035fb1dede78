"""Assigning to a slice of a Variable (v[0, 0].assign(...)) with TensorFlow's gradient semantics."""
import numpy as np
import pytest

import tapekit as tk


def test_slice_assign_writes_into_the_variable():
    v = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert v[0, 0].assign(5.0) is v
    v[1].assign([7.0, 8.0])
    v[:, 1].assign_add([1.0, 1.0])
    v[0:1, 0].assign_sub([0.5])
    np.testing.assert_array_equal(v.numpy(), [[4.5, 3.0], [7.0, 9.0]])
    v[...].assign(0.0)                                          # a scalar broadcast to the slice
    np.testing.assert_array_equal(v.numpy(), np.zeros((2, 2)))


def test_slice_read_is_recorded_and_assign_is_not_differentiable():
    v = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        s = v[0, 1] * 3.0                                       # a read: gradient 3 at [0, 1]
    np.testing.assert_array_equal(tape.gradient(s, v).numpy(), [[0, 3], [0, 0]])
    x = tk.Variable(2.0)
    with tk.GradientTape(persistent=True) as tape:
        w = x * 3.0
        v[0, 0].assign(w)                                       # TensorFlow: no gradient to x
        total = tk.reduce_sum(v)
    assert tape.gradient(total, x) is None
    np.testing.assert_array_equal(tape.gradient(total, v).numpy(), np.ones((2, 2)))
    assert v.numpy()[0, 0] == 6.0


def test_slice_assign_checks_shape_and_dtype():
    v = tk.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    with pytest.raises(ValueError, match=r"'w'\[0\]\.assign: the slice has shape \(2,\), got a value of shape \(3,\)"):
        v[0].assign([1.0, 2.0, 3.0])
    n = tk.Variable([1, 2, 3])
    with pytest.raises(TypeError, match="drop the fraction"):
        n[0].assign(1.5)
    np.testing.assert_array_equal(v.numpy(), [[1, 2], [3, 4]])     # unchanged after the errors
