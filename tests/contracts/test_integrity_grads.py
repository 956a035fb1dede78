"""Issue 14, core integrity part 2: derivative correctness, tape semantics, tk.function replay
checks. (Its custom_gradient tests are in test_custom.py, forward mode in test_forward.py, the
gradient arguments in test_gradient_args.py.)

Every expected number is derived by hand (in the comments) or checked against central finite
differences (tapekit.testing); none needs TensorFlow.
"""
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit.context import state
from tapekit.testing import check_grads


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



@pytest.mark.parametrize("target_shape, source_shape", [((3,), (3, 2)), ((3, 2), (3,)), ((3,), (3,))])
def test_batch_jacobian_needs_rank_two(target_shape, source_shape):
    x = tk.constant(np.ones(source_shape, np.float32))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.reduce_sum(x * 2.0) * tk.ones(target_shape)
    with pytest.raises(ValueError, match="rank 2"):
        tape.batch_jacobian(y, x)




# --- 4. no underflow in the derivative rules -------------------------------------------------

def grad(f, x, dtype=np.float32):
    x = tk.constant(np.asarray(x, dtype))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def test_division_by_a_tiny_float32_does_not_underflow():
    # d(c / x)/dx = -c / x^2 = -1e23 at c = x = 1e-23 (x * x = 1e-46 is 0 in float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no divide-by-zero on the way
        g = grad(lambda x: 1e-23 / x, 1e-23)
    np.testing.assert_allclose(float(g), -1e23, rtol=1e-5)
    # and through the forward mode too
    x = tk.constant(np.float32(1e-23))
    with tk.ForwardAccumulator(x, tk.constant(np.float32(1.0))) as acc:
        y = 1e-23 / x
    np.testing.assert_allclose(float(acc.jvp(y)), -1e23, rtol=1e-5)


def test_division_rule_does_not_overflow_either():
    # g * x would be 1e40 (inf in float32); the answer -(g / y) * (x / y) is -1
    x = tk.constant(np.float32(1e20))
    y = tk.constant(np.float32(1e20))
    with tk.GradientTape() as tape:
        tape.watch(y)
        z = x / y
    g = tape.gradient(z, y, output_gradients=tk.constant(np.float32(1e20)))
    np.testing.assert_allclose(float(g), -1.0, rtol=1e-6)


def test_log_of_a_subnormal_float32():
    # d log(x)/dx = 1/x: 1e-39 is subnormal in float32; g * (1/x) was g * inf
    g = grad(lambda x: tk.log(x) * 1e-10, 1e-39)
    np.testing.assert_allclose(float(g), 1e29, rtol=1e-3)


# --- 5. second derivatives ---------------------------------------------------------------------

def test_reduce_prod_hessian_is_exact_where_an_input_is_zero():
    # prod = x0 x1 x2: H_ij = product of the third element (i != j), 0 on the diagonal
    h = hessian(tk.reduce_prod, np.array([0.0, 2.0, 3.0]))
    np.testing.assert_array_equal(h.numpy(), [[0, 3, 2], [3, 0, 0], [2, 0, 0]])


@pytest.mark.parametrize("axis", [None, 1, (0, 2), -1])
def test_reduce_prod_second_derivatives_with_zeros_match_finite_differences(axis):
    x = np.random.default_rng(0).uniform(0.5, 1.5, (2, 3, 4))
    x[0, 1, 2] = x[1, 0, 0] = x[1, 2, 1] = 0.0
    check_grads(lambda t: tk.reduce_prod(t, axis=axis), x, order=2, modes=("rev", "fwd"))


def test_hessian_through_reduce_sum_over_an_axis():
    # f = sum_i (sum_j x_ij)^2: H = 2 within a row, 0 across rows (was an IndexError)
    h = hessian(lambda x: tk.reduce_sum(tk.reduce_sum(x, axis=1) ** 2), np.ones((2, 3)))
    expected = 2 * np.kron(np.eye(2), np.ones((3, 3)))
    np.testing.assert_array_equal(h.numpy().reshape(6, 6), expected)


def test_hessian_through_broadcasting():
    # f = sum over (2, 3) of (x broadcast from (2, 1))^3 = 3 sum_i x_i^3: f'' = 18 x_i (diagonal)
    x = np.array([[0.3], [-0.7]])
    h = hessian(lambda t: tk.reduce_sum((t * tk.ones((2, 3), tk.float64)) ** 3), x)
    np.testing.assert_allclose(h.numpy().reshape(2, 2), np.diag(18 * x[:, 0]), rtol=1e-12)


def test_rpow_second_derivative_keeps_float32():
    # d2/dx2 2^x = ln(2)^2 2^x
    h = second_derivative(lambda x: 2.0 ** x, np.float32(1.5))
    assert h.dtype == np.float32
    np.testing.assert_allclose(float(h), np.log(2) ** 2 * 2 ** 1.5, rtol=1e-6)


def test_sign_has_a_zero_derivative():
    g = grad(tk.sign, [1.0, -2.0, 0.5])
    assert g is not None
    np.testing.assert_array_equal(g.numpy(), [0, 0, 0])


@pytest.mark.parametrize("f", [tk.nn.relu, tk.abs], ids=["relu", "abs"])
def test_relu_and_abs_second_derivatives_are_zero(f):
    h = second_derivative(f, np.float32(1.5))
    assert h is not None and float(h) == 0.0
    x = tk.constant(np.array([1.5, -0.5]))
    with tk.ForwardAccumulator(x, tk.constant(np.ones(2))) as outer:
        with tk.ForwardAccumulator(x, tk.constant(np.ones(2))) as inner:
            y = f(x)
        second = outer.jvp(inner.jvp(y))
    np.testing.assert_array_equal(second.numpy(), [0.0, 0.0])


# --- 3. tk.function replays check what eager calls check ---------------------------------------

def sparse_xent(labels, logits):
    return tk.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)


def sparse_loss(labels, logits):
    return tk.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)


def sparse_xent_unused(labels, logits):
    sparse_xent(labels, logits)   # the result is not used: the check must still run
    return logits * 2.0


@pytest.mark.parametrize("fn", [sparse_xent, sparse_loss, sparse_xent_unused])
@pytest.mark.parametrize("bad", [[0, 3], [0, -1]], ids=["too-large", "negative"])
@pytest.mark.parametrize("recorded", [False, True], ids=["replay", "replay-under-tape"])
def test_out_of_range_labels_raise_in_replays_as_eagerly(fn, bad, recorded):
    logits = tk.constant(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"labels must be in \[0, 3\)"):
        fn(tk.constant(bad), logits)                   # eager
    f = tk.function(fn)
    f(tk.constant([0, 1]), logits)                    # the trace, with good labels
    with pytest.raises(ValueError, match=r"labels must be in \[0, 3\)"):
        if recorded:
            with tk.GradientTape() as tape:
                tape.watch(logits)
                f(tk.constant(bad), logits)
        else:
            f(tk.constant(bad), logits)
    assert f.experimental_get_tracing_count() == 1      # it was a replay, not a new trace
    np.testing.assert_allclose(np.ravel(f(tk.constant([2, 0]), logits).numpy())[:2],
                               [np.log(3)] * 2 if fn is not sparse_xent_unused else [0, 0], rtol=1e-6)


@pytest.mark.parametrize("shape, axis", [((0,), None), ((2, 0), None), ((2, 0), -1), ((0, 3), None)])
def test_reduce_prod_of_an_empty_group_has_a_gradient_of_the_input_shape(shape, axis):
    # was shape (1,) for a (0,) input, or a reshape error
    g = grad(lambda x: tk.reduce_sum(tk.reduce_prod(x, axis=axis)), np.ones(shape))
    assert g.shape == shape


def test_reduce_prod_of_a_scalar():
    assert float(grad(tk.reduce_prod, 2.0)) == 1.0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy's log(-1)
@pytest.mark.parametrize("recorded", [False, True], ids=["replay", "replay-under-tape"])
def test_check_numerics_runs_in_replays(recorded):
    @tk.function
    def f(x):
        tk.debugging.check_numerics(tk.log(x), "after log")   # checked, result unused
        return x * 2.0

    np.testing.assert_array_equal(f(tk.constant([1.0])).numpy(), [2.0])   # the trace
    x = tk.constant([-1.0])
    with pytest.raises(tk.debugging.NumericsError, match="after log : Tensor had NaN"):
        if recorded:
            with tk.GradientTape() as tape:
                tape.watch(x)
                f(x)
        else:
            f(x)
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(f(tk.constant([3.0])).numpy(), [6.0])
