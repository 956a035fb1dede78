"""tapekit/ops/special.py: asin, acos, atan2, erf, lgamma, digamma, xlogy, xdivy, divide_no_nan.

Values against Python's math module and hand-derived formulas; derivatives against finite
differences (hypothesis). Singular points: tests/contracts/test_singular_points.py.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapekit as tk
from tapekit.ops.special import _digamma, _trigamma
from tapekit.testing import check_grads

SETTINGS = settings(max_examples=40, deadline=None)
# away from the poles 0, -1, -2, ...: at least 0.05 from an integer below 0.5
REALS = st.floats(-8.0, 12.0).filter(lambda v: v > 0.05 or abs(v - round(v)) > 0.05)


def test_names_follow_tensorflow():
    # tf.asin, tf.acos, tf.atan2 are top level; lgamma, digamma, xlogy, xdivy and divide_no_nan
    # are in tf.math only
    for name in ("asin", "acos", "atan2"):
        assert getattr(tk, name) is getattr(tk.math, name)
    for name in ("lgamma", "digamma", "xlogy", "xdivy", "divide_no_nan"):
        assert hasattr(tk.math, name) and not hasattr(tk, name)


@SETTINGS
@given(v=REALS)
def test_lgamma_is_math_lgamma(v):
    got = tk.math.lgamma(tk.constant(v, tk.float64)).numpy()
    assert got == pytest.approx(math.lgamma(v), rel=1e-12, abs=1e-12)


@SETTINGS
@given(v=REALS)
def test_digamma_is_the_derivative_of_lgamma(v):
    h = 1e-5
    fd = (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h)
    assert float(_digamma(np.float64(v))) == pytest.approx(fd, rel=1e-6, abs=1e-6)


@SETTINGS
@given(v=REALS)
def test_trigamma_is_the_derivative_of_digamma(v):
    h = 1e-5
    fd = (float(_digamma(np.float64(v + h))) - float(_digamma(np.float64(v - h)))) / (2 * h)
    assert float(_trigamma(np.float64(v))) == pytest.approx(fd, rel=1e-5, abs=1e-5)


def test_digamma_known_values():
    # psi(1) = -Euler's gamma, psi(1/2) = -gamma - 2 log 2, psi(-1/2) = psi(1/2) + 2
    euler = 0.5772156649015329
    np.testing.assert_allclose(_digamma(np.array([1.0, 0.5, -0.5])),
                               [-euler, -euler - 2 * math.log(2), -euler - 2 * math.log(2) + 2], rtol=1e-12)
    np.testing.assert_allclose(_trigamma(np.array([1.0, 0.5])), [math.pi ** 2 / 6, math.pi ** 2 / 2], rtol=1e-11)


@SETTINGS
@given(seed=st.integers(0, 2**16))
def test_lgamma_first_and_second_derivatives(seed):
    x = np.random.default_rng(seed).uniform(0.2, 6.0, (4,))
    check_grads(tk.math.lgamma, x, order=2)


def test_third_derivative_of_lgamma_raises_naming_the_op():
    x = tk.constant(2.0, tk.float64)
    with tk.GradientTape() as t3:
        t3.watch(x)
        with tk.GradientTape() as t2:
            t2.watch(x)
            with tk.GradientTape() as t1:
                t1.watch(x)
                y = tk.math.lgamma(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    assert float(d2) == pytest.approx(math.pi ** 2 / 6 - 1)      # trigamma(2)
    with pytest.raises(LookupError, match="trigamma"):
        t3.gradient(d2, x)


def test_forward_values():
    v = np.array([0.0, 0.5, -1.0])
    np.testing.assert_allclose(tk.asin(v).numpy(), np.arcsin(v))
    np.testing.assert_allclose(tk.acos(v).numpy(), np.arccos(v))
    np.testing.assert_allclose(tk.atan2(tk.constant([1.0, -1.0]), tk.constant([-1.0, -1.0])).numpy(),
                               [3 * math.pi / 4, -3 * math.pi / 4], rtol=1e-6)
    np.testing.assert_array_equal(tk.math.xdivy(tk.constant([0.0, 3.0]), tk.constant([0.0, 2.0])).numpy(),
                                  [0.0, 1.5])


@SETTINGS
@given(seed=st.integers(0, 2**16))
def test_zero_safe_products_match_finite_differences_away_from_zero(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-2, 2, (3,)), rng.uniform(0.3, 2, (3,))
    for f in (tk.math.xlogy, tk.math.xdivy, tk.math.divide_no_nan, tk.atan2):
        check_grads(f, x, y, order=2)


def test_integer_inputs_are_refused_as_tensorflow():
    with pytest.raises(TypeError):
        tk.math.lgamma(tk.constant([1, 2]))


# --- erf -------------------------------------------------------------------------------------------

def test_erf_matches_pythons_math_erf_to_a_few_ulps():
    x = np.concatenate([np.linspace(-7, 7, 20001), np.logspace(-300, 1, 500), -np.logspace(-30, 1, 100)])
    x = x[x != 0]
    ref = np.array([math.erf(v) for v in x])
    got = tk.erf(tk.constant(x)).numpy()
    rel = np.abs(got - ref) / np.abs(ref)
    assert rel.max() < 5e-15
    assert got.dtype == np.float64
    assert tk.erf(tk.constant([0.5])).dtype == tk.float32
    np.testing.assert_array_equal(tk.erf(tk.constant([np.inf, -np.inf, 0.0])).numpy(), [1.0, -1.0, 0.0])
    assert np.isnan(tk.erf(tk.constant(np.nan)).numpy())


def test_erf_gradient_is_two_over_root_pi_times_exp_of_minus_x_squared():
    x = tk.Variable([0.0, 0.5, -2.0], dtype=tk.float64)
    with tk.GradientTape() as tape:
        y = tk.math.erf(x)
    v = np.array([0.0, 0.5, -2.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 / math.sqrt(math.pi) * np.exp(-v * v), rtol=1e-15)
    check_grads(tk.math.erf, np.array([0.3, -1.1, 2.4]), order=2)
