"""tapekit/ops/registry.py: defop and its shortcuts unary/binary, NO_GRADIENT, and the checked
integer arguments (as_int, as_axis, python_value). Every registered op is checked against
finite differences in tests/contracts/test_ops_table.py.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import registry
from tapekit.ops.registry import NO_GRADIENT, as_axis, as_int, binary, defop, python_value, unary
from tapekit.testing import check_grads


@pytest.fixture(autouse=True)
def _ops_defined_here_are_forgotten(monkeypatch):
    # The throwaway ops below must not reach the op table the contracts suite walks.
    monkeypatch.setattr(registry, "OPS", dict(registry.OPS))
    ufuncs = dict(registry.UFUNCS)        # numpy_dispatch holds this dict itself: restore it in place
    yield
    registry.UFUNCS.clear()
    registry.UFUNCS.update(ufuncs)


def test_unary_multiplies_the_cotangent_and_the_tangent_by_its_derivative():
    cube = unary("test_registry_cube", lambda x: x ** 3, deriv=lambda ans, x: 3 * x * x, save="x")
    x = tk.Variable([2.0, -1.0], dtype=tk.float64)
    with tk.GradientTape() as tape:
        y = cube(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [12.0, 3.0])
    with tk.ForwardAccumulator(x, tk.constant([1.0, 2.0], tk.float64)) as acc:
        y = cube(x)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), [12.0, 6.0])
    check_grads(cube, np.array([0.5, -1.5]), order=2)
    with pytest.raises(TypeError, match="test_registry_cube: needs a floating input"):
        cube(tk.constant([1, 2]))          # float_only by default


def test_binary_gives_each_input_its_partial_derivative():
    # f(x, y) = x * y^2: df/dx = y^2, df/dy = 2 x y
    f = binary("test_registry_xy2", lambda x, y: x * y * y, dx=lambda ans, x, y: y * y,
               dy=lambda ans, x, y: 2 * x * y, save="x y")
    x, y = tk.Variable([3.0]), tk.Variable([2.0])
    with tk.GradientTape() as tape:
        z = f(x, y)
    gx, gy = tape.gradient(z, [x, y])
    assert (float(gx[0]), float(gy[0])) == (4.0, 12.0)
    check_grads(f, np.array([0.5, 1.5]), np.array([-1.0, 2.0]), order=2)
    with pytest.raises(TypeError, match="test_registry_xy2: inputs have different dtypes"):
        f(tk.constant([1.0]), tk.constant([1.0], tk.float64))            # same_dtype


def test_defop_refuses_a_second_op_of_one_name_and_float_only_with_two_inputs():
    with pytest.raises(ValueError, match="op 'add' is defined twice"):
        defop("add", np.add)
    with pytest.raises(ValueError, match="defop 'test_registry_two': float_only is checked for one-input ops only"):
        defop("test_registry_two", np.add, args="x y", float_only=True)


def test_an_op_without_a_registered_gradient_raises_only_when_a_gradient_must_pass():
    op = defop("test_registry_nograd", lambda x: x * 2.0, vjp=NO_GRADIENT)
    x = tk.Variable([1.0])
    with tk.GradientTape() as tape:
        y = op(x)
    with pytest.raises(LookupError, match="No gradient defined for operation 'test_registry_nograd'.*stop_gradient"):
        tape.gradient(y, x)
    with tk.GradientTape() as tape:
        y = tk.stop_gradient(op(x)) + x
    assert float(tape.gradient(y, x)[0]) == 1.0


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


def test_an_op_registered_with_a_ufunc_answers_numpys_call():
    op = defop("test_registry_cbrt", np.cbrt, ufunc=np.cbrt, save="ans",
               vjp=[lambda g, ans, x: g / (3 * ans * ans)])
    x = tk.Variable([8.0, 27.0], dtype=tk.float64)
    with tk.GradientTape() as tape:
        y = np.cbrt(x)                           # NumPy's ufunc, answered by the op
    assert isinstance(y, tk.Tensor)
    np.testing.assert_allclose(y.numpy(), [2.0, 3.0], rtol=1e-15)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1 / 12, 1 / 27])
    assert op.name == "test_registry_cbrt"
