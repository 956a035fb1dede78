"""tapekit/ops/registry.py: defop and its shortcuts unary/binary, NO_GRADIENT, and the one way
into an op (Op.__call__ and Op.run: inputs given by name). Every registered op is checked
against finite differences in tests/contracts/test_ops_table.py.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import registry
from tapekit.ops.registry import NO_GRADIENT, binary, defop, unary
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


# --- one way into an op: Op.__call__ (raw mode, keywords) and Op.run (everything else) ---------

# What TensorFlow 2.21 gives for the same calls with inputs given by name (measured):
# tf.add(x=1., y=2.) is float32 3.0, tf.sin(x=1.) float32 0.84147096, tf.nn.relu(features=-1.)
# float32 0.0, tf.identity(input=3.) float32 3.0, tf.math.pow(x=2., y=3.) 8.0,
# tf.math.atan2(y=1., x=2.) 0.4636476, tf.add(x=tf.constant(1), y=2) int32 3,
# tf.add(x=[1., 2.], y=1.) float32 [2., 3.], tf.add(x=np.float64(1.), y=2.) float64 3.0,
# tf.multiply(1., y=2.) float32 2.0.
@pytest.mark.parametrize("call, dtype, value", [
    (lambda: tk.add(x=1.0, y=2.0), np.float32, 3.0),
    (lambda: tk.multiply(1.0, y=2.0), np.float32, 2.0),
    (lambda: tk.sin(x=1.0), np.float32, np.float32(0.84147096)),
    (lambda: tk.nn.relu(features=-1.0), np.float32, 0.0),
    (lambda: tk.identity(input=3.0), np.float32, 3.0),
    (lambda: tk.math.pow(x=2.0, y=3.0), np.float32, 8.0),
    (lambda: tk.atan2(y=1.0, x=2.0), np.float32, np.float32(0.4636476)),
    (lambda: tk.add(x=tk.constant(1), y=2), np.int32, 3),
    (lambda: tk.add(y=1.0, x=[1.0, 2.0]), np.float32, [2.0, 3.0]),
    (lambda: tk.add(x=np.float64(1.0), y=2.0), np.float64, 3.0),
    (lambda: tk.add(x=1.0, y=2.0, name="sum"), np.float32, 3.0),
])
def test_inputs_given_by_name_convert_as_tensorflow_converts_them(call, dtype, value):
    # tk.add(x=1., y=2.) gave a float64 tensor (the keywords reached NumPy as they were), and
    # tk.sin(x=1.) an unclear TypeError; the names now bind to the op's inputs first.
    got = call()
    assert isinstance(got, tk.Tensor) and got.dtype == dtype
    np.testing.assert_allclose(got.numpy(), np.asarray(value, dtype), rtol=1e-6)   # sin: 1 ulp apart


def test_inputs_given_by_name_are_recorded_and_differentiate():
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.multiply(y=x, x=tk.sin(x=x)))       # sin(x) * x
    want = np.cos([1.0, 2.0]) * [1.0, 2.0] + np.sin([1.0, 2.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("call, message", [
    (lambda: tk.add(1.0, x=2.0), r"add: got input 'x' twice, by position and by name \(its inputs are x, y\)"),
    (lambda: tk.add(x=1.0), r"add: input 'y' is missing \(its inputs are x, y\)"),
    (lambda: tk.sin(y=1.0), r"sin: input 'x' is missing \(its inputs are x; 'y' is none of them\)"),
])
def test_inputs_given_by_name_wrongly_raise_typeerror_naming_the_op_and_its_inputs(call, message):
    # TensorFlow 2.21 raises TypeError for all three ("Got multiple values for argument 'x'",
    # "Missing required positional argument", "Got an unexpected keyword argument").
    with pytest.raises(TypeError, match=message):
        call()
