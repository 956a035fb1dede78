"""Issue 14, core integrity part 2: derivative correctness, tape semantics, custom gradients,
tk.function replay checks, forward mode.

Every expected number is derived by hand (in the comments) or checked against central finite
differences (tapekit.testing); none needs TensorFlow.
"""
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit.context import state
from tapekit.testing import check_grads, numerical_jacobian


def second_derivative(f, x):
    """d2 f / dx2 for a scalar x, through two nested tapes."""
    x = tk.constant(x)
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return outer.gradient(g, x)


def hessian(f, x):
    """The Hessian of a scalar f at x (an array), through two nested tapes."""
    x = tk.constant(x)
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return outer.jacobian(g, x)


# --- 1. a persistent tape records its own gradient() calls -------------------------------------

def test_persistent_tape_differentiates_its_own_gradients():
    # y = x^3 at x = 3: y' = 3x^2 = 27, y'' = 6x = 18, y''' = 6
    x = tk.constant(3.0)
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 3
        g1 = tape.gradient(y, x)
        g2 = tape.gradient(g1, x)
        g3 = tape.gradient(g2, x)
    assert [float(g) for g in (g1, g2, g3)] == [27.0, 18.0, 6.0]


def test_persistent_tape_gradient_of_an_expression_using_a_gradient():
    # z = y' * x = 3x^3, dz/dx = 9x^2 = 81 at x = 3 (27 if y' were a constant)
    x = tk.constant(3.0)
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 3
        z = tape.gradient(y, x) * x
    assert float(tape.gradient(z, x)) == 81.0


def test_persistent_tape_outside_its_block_does_not_record():
    x = tk.constant(3.0)
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 3
    g1 = tape.gradient(y, x)
    assert float(g1) == 27.0
    assert tape.gradient(g1, x) is None   # computed after the block: not recorded


def test_non_persistent_tape_stops_recording_at_its_gradient():
    x = tk.constant(3.0)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = x ** 3
        g = tape.gradient(y, x)
        assert tape not in state.tapes
        z = g * x
    assert float(g) == 27.0
    assert len(tape._records) == 0   # neither the backward pass nor z was recorded
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(z, x)


def test_nested_tapes_still_give_second_derivatives():
    assert float(second_derivative(lambda x: x ** 3, 3.0)) == 18.0


# --- 6. TensorFlow behaviours -----------------------------------------------------------------

def test_nested_forward_accumulators_give_second_directional_derivatives():
    # y = x^3 at x = 3, tangents 1 and 2: outer.jvp(inner.jvp(y)) = 6x * 1 * 2 = 36
    x = tk.constant(3.0)
    with tk.ForwardAccumulator(x, tk.constant(2.0)) as outer:
        with tk.ForwardAccumulator(x, tk.constant(1.0)) as inner:
            y = x ** 3
        first = inner.jvp(y)
        assert float(first) == 27.0
        assert float(outer.jvp(y)) == 54.0
        assert float(outer.jvp(first)) == 36.0
        assert inner.jvp(outer.jvp(y)) is None


def test_nested_forward_accumulators_match_finite_differences():
    # d2/dx2 (sin(x) x) = 2 cos(x) - x sin(x)
    x = tk.constant(np.array([0.3, -1.2, 2.0]))
    one = tk.constant(np.ones(3))
    with tk.ForwardAccumulator(x, one) as outer:
        with tk.ForwardAccumulator(x, one) as inner:
            y = tk.sin(x) * x
        second = outer.jvp(inner.jvp(y))
    v = x.numpy()
    np.testing.assert_allclose(second.numpy(), 2 * np.cos(v) - v * np.sin(v), rtol=1e-12)


@pytest.mark.parametrize("target_shape, source_shape", [((3,), (3, 2)), ((3, 2), (3,)), ((3,), (3,))])
def test_batch_jacobian_needs_rank_two(target_shape, source_shape):
    x = tk.constant(np.ones(source_shape, np.float32))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.reduce_sum(x * 2.0) * tk.ones(target_shape)
    with pytest.raises(ValueError, match="rank 2"):
        tape.batch_jacobian(y, x)


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
