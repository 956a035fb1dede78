"""tapekit/ops/inputs.py: how an op call converts its inputs (TensorFlow's dtype rules for
Python numbers and arrays), keeps values private from later writes, and the checked integer
arguments (as_int, as_axis, python_value).
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops.inputs import as_axis, as_int, python_value


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


@pytest.mark.parametrize("expr", [lambda t, f: t + t, lambda t, f: t * f, lambda t, f: t / t,
                                  lambda t, f: t + True, lambda t, f: tk.add(t, t),
                                  lambda t, f: tk.maximum(t, f), lambda t, f: tk.add([True], [True])])
def test_arithmetic_on_bools_is_refused(expr):
    # TF 2.21 raises for each (bool is not an allowed dtype of AddV2, Mul, RealDiv, Maximum);
    # tapekit returned NumPy's answers: True + True = True (a logical or), True * False =
    # False, True / True = 1.0 (float64)
    t, f = tk.constant([True, True]), tk.constant([False, True])
    with pytest.raises(TypeError, match="cannot apply to bools"):
        expr(t, f)


def test_bools_still_concatenate_stack_select_and_count():
    t, f = tk.constant([True]), tk.constant([False])
    assert tk.concat([t, f], 0).numpy().tolist() == [True, False]
    assert tk.stack([t, f]).numpy().tolist() == [[True], [False]]
    assert tk.where(t, t, f).numpy().tolist() == [True]
    assert int(tk.reduce_sum(tk.cast(tk.constant([True, True, False]), tk.int32))) == 2


def test_an_op_error_with_thousands_of_inputs_summarises_them():
    # A variadic op's forward that fails: the message named every one of 5,001 inputs (100 KB)
    from tapekit.ops.shapes import stack_op
    values = [tk.ones(2) for _ in range(5001)]
    values[4217] = tk.ones(3)
    with pytest.raises(tk.errors.InvalidArgumentError) as info:
        stack_op(*values, axis=-2)
    message = str(info.value)
    assert len(message) < 1000 and message.startswith("stack: cannot apply to 5,001 inputs (input "
                                                      "4,217 has shape (3,) float32; the other "
                                                      "5,000 have shape (2,) float32), axis=-2")
    with pytest.raises(TypeError) as info:
        tk.add_n([tk.constant([True, False])] * 5001)
    assert len(str(info.value)) < 1000
    assert "cannot apply to bools: 5,001 inputs, each of shape (2,) bool" in str(info.value)
    with pytest.raises(tk.errors.InvalidArgumentError,       # a few inputs: each one, in order
                       match=r"cannot apply to inputs shape \(2,\) float32, shape \(3,\) float32"):
        stack_op(tk.ones(2), tk.ones(3), axis=-2)


def test_odd_inputs_counts_what_it_does_not_list():
    from tapekit.ops.inputs import odd_inputs
    keys = ["a"] * 10 + ["b", "c", "d", "e", "f"]
    assert odd_inputs(keys, lambda k: f"is {keys[k]}", "are a") == (
        "input 10 is b, input 11 is c, input 12 is d and 2 more; the other 10 are a")
    assert odd_inputs(list("xyz"), lambda k: "is " + "xyz"[k], "-", most=2) == (
        "input 0 is x, input 1 is y and 1 more, no two alike")


def test_as_int_refuses_floats_and_bools_naming_the_argument():
    assert as_int(np.int64(3), "n") == 3 and type(as_int(np.int64(3), "n")) is int
    assert as_int(tk.constant(4), "n") == 4
    with pytest.raises(TypeError, match=r"reduce_sum: axis must be an integer, got 1\.5 \(float\).*truncate"):
        as_int(1.5, "reduce_sum: axis")
    with pytest.raises(TypeError, match="n must be an integer, got the bool True"):
        as_int(True, "n")


def test_as_axis_checks_the_range_for_the_rank():
    assert as_axis(-1, 3, "op: axis") == -1 and as_axis(2, 3, "op: axis") == 2
    assert as_axis(0, 0, "op: axis") == 0                       # a scalar has axis 0 (TensorFlow)
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"op: axis = 3 is out of range for a tensor of rank 2 "
                                                             r"\(valid: -2 to 1\)"):
        as_axis(3, 2, "op: axis")


def test_python_value_reads_a_tensors_array_and_passes_anything_else():
    assert python_value(tk.constant([1, 2])).tolist() == [1, 2]
    assert python_value([3, 4]) == [3, 4] and python_value(5) == 5
