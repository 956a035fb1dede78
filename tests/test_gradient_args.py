"""What GradientTape.gradient and jacobian check and warn about in their arguments, and how
they give results back (tapekit/gradient_args.py)."""
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit.gradient_args import as_result, check_batch_shapes, refuse_second_call, reshape_result


def test_watch_of_an_integer_tensor_warns_at_the_call():
    tape = tk.GradientTape()
    with tape:
        with pytest.warns(tk.GradientDtypeWarning, match="watch.*int32"):
            tape.watch(tk.constant(1))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tape.watch(tk.constant(1.0))   # a float: no warning


@pytest.mark.parametrize("og", [np.array([1.0, 1.0]), np.array([1, 1]), tk.constant([1.0, 1.0], tk.float64)])
def test_output_gradients_of_another_dtype_raise(og):
    x = tk.constant([1.0, 2.0])
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(TypeError, match="output_gradients has dtype .* float32"):
        tape.gradient(y, x, output_gradients=og)


def test_output_gradients_of_the_target_dtype_and_python_numbers_work():
    x = tk.constant([1.0, 2.0])
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
        s = tk.reduce_sum(y)
    g = tape.gradient(y, x, output_gradients=np.array([1.0, 3.0], np.float32))
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g.numpy(), [2.0, 6.0])
    np.testing.assert_array_equal(tape.gradient(s, x, output_gradients=3.0).numpy(), [6.0, 6.0])


def test_unconnected_gradients_takes_the_enum_or_its_name():
    x, y = tk.Variable(1.0), tk.Variable(2.0)
    with tk.GradientTape() as tape:
        z = x * 3.0
    assert float(tape.gradient(z, y, unconnected_gradients="zero")) == 0.0
    with tk.GradientTape() as tape:
        z = x * 3.0
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(z, y, unconnected_gradients="ones")


def test_targets_and_sources_must_be_tensors():
    x = tk.Variable(1.0)
    with tk.GradientTape(persistent=True) as tape:
        y = x * 2.0
    with pytest.raises(TypeError, match="source"):
        tape.gradient(y, [x, 3.0])
    with pytest.raises(TypeError, match="target"):
        tape.gradient(None, x)


def test_results_are_tensors_in_the_asked_shape():
    assert as_result(None) is None
    t = tk.constant(1.0)
    assert as_result(t) is t
    r = as_result(np.float32(2.5))
    assert isinstance(r, tk.Tensor) and float(r) == 2.5 and r.dtype == np.float32
    assert reshape_result(np.arange(6.0), (2, 3)).shape == (2, 3)
    assert reshape_result(tk.range(6), (3, 2)).numpy().tolist() == [[0, 1], [2, 3], [4, 5]]
    a = np.ones(2)
    assert reshape_result(a, (2,)) is a


def test_a_second_call_is_refused_saying_whether_the_first_one_raised():
    with pytest.raises(RuntimeError, match=r"GradientTape.jacobian: a non-persistent .*\(persistent=True\) to call"):
        refuse_second_call("jacobian", None)
    with pytest.raises(RuntimeError, match=r"GradientTape.gradient: .* first gradient call raised "
                                           r"ValueError: bad shape\. That call already released"):
        refuse_second_call("gradient", ValueError("bad shape\nmore lines"))


@pytest.mark.parametrize("t, s, message", [
    ((3,), (3, 2), r"rank 2 or more .* \(3,\) and \(3, 2\)\. For a vector, use tape.jacobian"),
    ((3, 1), (4, 2), r"the same first \(batch\) dimension, got shapes \(3, 1\) and \(4, 2\)")])
def test_batch_jacobian_shapes_are_checked_with_both_shapes_named(t, s, message):
    with pytest.raises(ValueError, match=message):
        check_batch_shapes(tk.zeros(t), tk.zeros(s))
    check_batch_shapes(tk.zeros((3, 1)), tk.zeros((3, 2, 2)))   # the same batch: no error
