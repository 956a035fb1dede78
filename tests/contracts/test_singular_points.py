"""Gradients at singular points, as TensorFlow 2.21 gives them (issue 30).

Each value here is derived by hand from the op's derivative rule; tools/tf_sweep/ checked the
same points against TensorFlow itself (it is a dev tool: no test needs TensorFlow).
The rule that matters most: sqrt, rsqrt and reciprocal give 0 wherever the arriving
gradient is 0, even where their derivative is inf (x = 0) or NaN (x < 0). Other ops
multiply as they are, so log at 0 with g = 0 is 0 * inf = NaN, as in TensorFlow.
"""
import math

import numpy as np
import pytest

import tapekit as tk

INF, NAN = math.inf, math.nan


def grad(f, x, g=1.0):
    """d sum(g * f(x)) / dx at the float32 points x."""
    x = tk.constant(np.array(x, np.float32))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, output_gradients=tk.ones_like(y) * g).numpy()


def same(actual, expected):
    np.testing.assert_array_equal(actual, np.array(expected, np.float32))


def test_sqrt_under_where_has_gradient_zero_at_zero():
    # where() sends g = 0 to sqrt's branch at s = 0, and sqrt's rule gives 0 for g = 0.
    same(grad(lambda s: tk.where(s > 0, tk.sqrt(s), 0.0), [0.0, 0.0]), [0.0, 0.0])
    same(grad(lambda s: tk.where(s > 0, tk.sqrt(s), 0.0), [-1.0, 4.0]), [0.0, 0.25])


@pytest.mark.parametrize("g, expected", [
    (0.0, [0.0, 0.0, 0.0, 0.0, 0.0]),             # a zero g gives 0 even at 0, below 0 and at NaN
    (1.0, [INF, -INF, NAN, 0.25, NAN]),          # 0.5 / sqrt(x): sqrt(-0) = -0, NaN below 0
])
def test_sqrt(g, expected):
    same(grad(tk.sqrt, [0.0, -0.0, -1.0, 4.0, NAN], g), expected)


@pytest.mark.parametrize("g, expected", [
    (0.0, [0.0, 0.0, 0.0]),
    (1.0, [-INF, NAN, -0.0625]),                 # -0.5 x^(-3/2): -0.5 / 8 at x = 4
])
def test_rsqrt(g, expected):
    same(grad(tk.math.rsqrt, [0.0, -1.0, 4.0], g), expected)


@pytest.mark.parametrize("g, expected", [
    (0.0, [0.0, 0.0, 0.0]),
    (1.0, [-INF, NAN, -0.25]),                   # -1 / x^2
])
def test_reciprocal(g, expected):
    same(grad(tk.math.reciprocal, [0.0, NAN, 2.0], g), expected)


def test_norm_of_zeros_with_a_zero_arriving_gradient_is_zero():
    # norm = sqrt(sum x^2): sqrt's rule at 0 with g = 0 gives 0 (it gave NaN before)
    same(grad(lambda x: tk.norm(x), [0.0, 0.0], g=0.0), [0.0, 0.0])


def test_log_keeps_nan_and_the_double_where_fixes_it():
    # log's rule is g / x: at x = 0 with g = 0 that is 0 / 0 = NaN (TensorFlow too)
    same(grad(lambda x: tk.where(x > 0, tk.math.log(x), 0.0), [0.0, 2.0]), [NAN, 0.5])
    # the safe form: log never sees x <= 0, so its rule never divides by 0
    safe = lambda x: tk.where(x > 0, tk.math.log(tk.where(x > 0, x, 1.0)), 0.0)  # noqa: E731
    same(grad(safe, [0.0, -1.0, 2.0]), [0.0, 0.0, 0.5])


def test_elu_and_selu_pass_the_gradient_at_nan_and_take_the_right_branch_at_zero():
    # TensorFlow's EluGrad/SeluGrad test ans < 0: NaN < 0 and 0 < 0 are false
    same(grad(tk.nn.elu, [NAN, 0.0]), [1.0, 1.0])
    scale = np.float32(1.0507009873554805)
    same(grad(tk.nn.selu, [NAN, 0.0, 1.0]), [scale, scale, scale])


def test_elu_second_derivative_at_zero_is_zero():
    x = tk.constant(np.float32([0.0, -1.0]))
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            y = tk.nn.elu(x)
        d = inner.gradient(y, x)
    np.testing.assert_allclose(outer.gradient(d, x).numpy(), [0.0, math.exp(-1.0)], rtol=1e-6)   # e^x below 0


def test_det_gradient_at_a_singular_matrix_raises_invalid_argument():
    x = tk.Variable(np.diag(np.float32([0.0, 1.0, 2.0])))
    with tk.GradientTape() as tape:
        y = tk.linalg.det(x)
    assert float(y) == 0.0
    with pytest.raises(tk.errors.InvalidArgumentError, match="singular"):
        tape.gradient(y, x)


def test_asin_acos_at_the_edges():
    # d asin/dx = 1 / sqrt(1 - x^2): inf at +-1, NaN beyond; a zero g multiplies: 0 * inf = NaN
    same(grad(tk.asin, [1.0, -1.0, 2.0, 0.0]), [INF, INF, NAN, 1.0])
    same(grad(tk.acos, [1.0, 2.0, 0.0]), [-INF, NAN, -1.0])
    same(grad(tk.asin, [1.0, 0.0], g=0.0), [NAN, 0.0])


def test_atan2_at_the_origin_is_nan():
    y, x = tk.constant(np.float32([0.0, 1.0])), tk.constant(np.float32([0.0, 1.0]))
    with tk.GradientTape() as tape:
        tape.watch([y, x])
        a = tk.atan2(y, x)
    dy, dx = tape.gradient(a, [y, x])
    same(dy, [NAN, 0.5])                          # x / (x^2 + y^2)
    same(dx, [NAN, -0.5])                         # -y / (x^2 + y^2)


def test_xlogy_and_divide_no_nan_are_zero_with_their_gradients():
    x, y = tk.constant(np.float32([0.0, 0.0, 2.0])), tk.constant(np.float32([0.0, NAN, 4.0]))
    with tk.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        a = tk.math.xlogy(x, y)
        b = tk.math.divide_no_nan(y, x)
    same(a, [0.0, 0.0, np.float32(2 * np.log(4.0))])
    same(b, [0.0, 0.0, 2.0])
    da_dx, da_dy = tape.gradient(a, [x, y])
    same(da_dx, [0.0, 0.0, np.float32(np.log(4.0))])     # log y where x != 0
    same(da_dy, [0.0, 0.0, 0.5])                          # x / y where x != 0
    db_dy, db_dx = tape.gradient(b, [y, x])
    same(db_dy, [0.0, 0.0, 0.5])                          # 1 / x where x != 0
    same(db_dx, [0.0, 0.0, -1.0])                         # -y / x^2 where x != 0


def test_lgamma_at_its_poles():
    x = tk.constant(np.float32([0.0, -1.0, 1.0, 2.0]))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.math.lgamma(x)
    same(y, [INF, INF, 0.0, 0.0])
    d = tape.gradient(y, x).numpy()
    assert np.isnan(d[:2]).all()                          # digamma's poles
    np.testing.assert_allclose(d[2:], [-0.5772157, 0.4227843], rtol=1e-6)   # -gamma, 1 - gamma
