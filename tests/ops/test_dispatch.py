"""tapekit/ops/dispatch.py: how an op call converts its inputs (TensorFlow's dtype rules for
Python numbers and arrays), keeps values private from later writes, and records.
"""
import numpy as np
import pytest

import tapekit as tk


def test_python_numbers_take_a_numpy_arrays_dtype():
    out = tk.multiply(np.ones([2]), 42)
    assert out.dtype == tk.float64 and out.numpy().tolist() == [42.0, 42.0]
    assert tk.add(2, np.ones([2], np.float32)).dtype == tk.float32
    with pytest.raises(TypeError, match="int64 with the Python float 1.5"):
        tk.add(np.array([1, 2]), 1.5)


def test_a_python_number_that_would_change_the_tensors_dtype_is_refused():
    with pytest.raises(TypeError, match=r"add: cannot combine a tensor of dtype int32 with the Python "
                                        r"float 1\.5.*tk\.cast"):
        tk.constant([1, 2]) + 1.5
    assert (tk.constant([1.5]) + 2).dtype == tk.float32         # an int fits a float tensor


def test_an_op_is_recorded_on_every_active_tape():
    x = tk.Variable(3.0)
    with tk.GradientTape() as outer, tk.GradientTape() as inner:
        y = x * x
    assert [r.op.name for r in outer.records] == [r.op.name for r in inner.records] == ["multiply"]
    assert float(inner.gradient(y, x)) == 6.0 and float(outer.gradient(y, x)) == 6.0


def test_a_read_only_view_of_a_writable_array_is_copied():
    b = np.arange(3.0)
    a = b.view()
    a.flags.writeable = False
    c, v = tk.constant(a), tk.Variable(a)
    with tk.GradientTape() as tape:
        tape.watch(c)
        y = tk.reduce_sum(c * a)          # `a` as an op input, saved by the tape
    b[:] = 100.0
    np.testing.assert_array_equal(c.numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(tape.gradient(y, c).numpy(), [0.0, 1.0, 2.0])
