"""Reverse mode (tapekit/backprop.py): the front doors of gradient, jacobian and batch_jacobian
(what they check and warn about in their arguments, how they give results back), and the
backward walk lesson 23 prints: short, and its rule callers built once by defop."""
import inspect
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit import backprop
from tapekit.ops import registry
from tapekit.ops.registry import defop


@pytest.fixture(autouse=True)
def _ops_defined_here_are_forgotten(monkeypatch):
    # These tests define throwaway ops; the op table (tests/contracts/test_ops_table.py) must not see them.
    monkeypatch.setattr(registry, "OPS", dict(registry.OPS))


def test_backward_is_short_enough_to_print_in_a_lesson():
    lines = inspect.getsource(backprop.backward).splitlines()
    assert len(lines) <= 60, f"backprop.backward is {len(lines)} lines; lesson 12 prints it"


def test_defop_builds_the_rule_caller_once():
    with_rules = defop("test_walk_square", lambda x: x * x, save="x",
                       vjp=[lambda g, ans, x: 2 * x * g])
    without = defop("test_walk_floor", np.floor)
    assert callable(with_rules.call_vjp)
    assert without.call_vjp is None


def test_two_input_rule_with_attributes_gets_them():
    # x * y * scale: the rules must see `scale` (an attribute, not an input).
    op = defop("test_walk_scaled_mul", lambda x, y, scale: x * y * scale, args="x y", save="x y",
               vjp=[lambda g, ans, x, y, scale: g * y * scale,
                    lambda g, ans, x, y, scale: g * x * scale])
    x, y = tk.Variable([1.0, 2.0]), tk.Variable([3.0, -1.0])
    with tk.GradientTape() as tape:
        z = tk.reduce_sum(op(x, y, scale=3.0))
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_allclose(gx.numpy(), [9.0, -3.0])   # y * 3
    np.testing.assert_allclose(gy.numpy(), [3.0, 6.0])    # x * 3


def test_only_inputs_on_a_path_to_a_source_have_their_rule_called():
    calls = []
    op = defop("test_walk_pair", lambda x, y: x * y, args="x y", save="x y",
               vjp=[lambda g, ans, x, y: calls.append("x") or g * y,
                    lambda g, ans, x, y: calls.append("y") or g * x])
    x, c = tk.Variable(2.0), tk.constant(5.0)
    with tk.GradientTape() as tape:
        z = op(x, c)
    assert float(tape.gradient(z, x)) == 5.0
    assert calls == ["x"]


def test_an_input_used_twice_gets_the_sum_of_its_cotangents():
    x = tk.Variable(3.0)
    with tk.GradientTape() as tape:
        y = tk.sin(x) * x
    expected = np.cos(3.0) * 3.0 + np.sin(3.0)
    np.testing.assert_allclose(float(tape.gradient(y, x)), expected, rtol=1e-6)
    eps = 1e-3
    fd = ((3 + eps) * np.sin(3 + eps) - (3 - eps) * np.sin(3 - eps)) / (2 * eps)
    np.testing.assert_allclose(expected, fd, rtol=1e-5)


def test_an_exploding_gradient_is_silent_like_tensorflow():
    x = tk.Variable(np.float32(1e30))
    with tk.GradientTape() as tape, np.errstate(over="ignore"):
        y = x * x * x                     # inf forward too: that warning is NumPy's own
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = tape.gradient(y, x)
    assert np.isinf(float(g))


def test_reachable_can_stop_at_integer_values():
    x = tk.constant([1.5, 2.5])
    with tk.GradientTape() as tape:
        tape.watch(x)
        i = tk.cast(x, tk.int32)
        y = tk.cast(i, tk.float32) * 2.0
    records = tape.records
    assert y._tid in backprop.reachable(records, [x._tid])
    through = backprop.reachable(records, [x._tid], floating_only=True)
    assert i._tid not in through and y._tid not in through


# --- the front doors: what gradient and jacobian check in their arguments -----------------------

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
    assert backprop._as_result(None) is None
    t = tk.constant(1.0)
    assert backprop._as_result(t) is t
    r = backprop._as_result(np.float32(2.5))
    assert isinstance(r, tk.Tensor) and float(r) == 2.5 and r.dtype == np.float32
    assert backprop._reshape_result(np.arange(6.0), (2, 3)).shape == (2, 3)
    assert backprop._reshape_result(tk.range(6), (3, 2)).numpy().tolist() == [[0, 1], [2, 3], [4, 5]]
    a = np.ones(2)
    assert backprop._reshape_result(a, (2,)) is a


def test_a_second_call_is_refused_saying_whether_the_first_one_raised():
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = x * 2.0
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"GradientTape.jacobian: a non-persistent .*\(persistent=True\) to call"):
        tape.jacobian(y, x)

    def bad_rule(g, ans, x):
        raise ValueError("bad shape\nmore lines")
    op = defop("test_walk_bad_rule", lambda x: x, save="x", vjp=[bad_rule])
    with tk.GradientTape() as tape:
        y = op(x)
    with pytest.raises(ValueError, match="bad shape"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"GradientTape.gradient: .* first gradient call raised "
                                           r"ValueError: bad shape\. That call already released"):
        tape.gradient(y, x)


def test_a_used_tape_refuses_before_it_looks_at_the_arguments():
    # TensorFlow 2.21 raises its RuntimeError first too (tf.GradientTape.gradient on a used
    # non-persistent tape with unconnected_gradients="ones": RuntimeError, not ValueError).
    x = tk.Variable(1.0)
    with tk.GradientTape() as tape:
        y = x * 2.0
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x, unconnected_gradients="ones")


@pytest.mark.parametrize("t, s, message", [
    ((3,), (3, 2), r"rank 2 or more .* \(3,\) and \(3, 2\)\. For a vector, use tape.jacobian"),
    ((3, 1), (4, 2), r"the same first \(batch\) dimension, got shapes \(3, 1\) and \(4, 2\)")])
def test_batch_jacobian_shapes_are_checked_with_both_shapes_named(t, s, message):
    with pytest.raises(ValueError, match=message):
        with tk.GradientTape() as tape:
            tape.batch_jacobian(tk.zeros(t), tk.zeros(s))
    with tk.GradientTape() as tape:
        x = tk.zeros((3, 2, 2))
        tape.watch(x)
        y = tk.reduce_sum(x, axis=[2])
    assert tape.batch_jacobian(y, x).shape == (3, 2, 2, 2)   # the same batch: no error
