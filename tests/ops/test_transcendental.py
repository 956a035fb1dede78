"""tapekit/ops/transcendental.py: exp, log, log1p, expm1, sin, cos, tanh, sigmoid: values and
derivatives by hand, stability, and the float-only rule.
"""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads


def test_derivatives_by_hand():
    x = np.array([-1.3, 0.2, 2.0])
    cases = [(tk.exp, np.exp(x)), (tk.log, 1 / np.abs(x)), (tk.sin, np.cos(x)), (tk.cos, -np.sin(x)),
             (tk.tanh, 1 - np.tanh(x) ** 2), (tk.sigmoid, np.exp(-x) / (1 + np.exp(-x)) ** 2),
             (tk.log1p, 1 / (1 + np.abs(x))), (tk.expm1, np.exp(x))]
    for f, expected in cases:
        v = tk.Variable(np.abs(x) if f in (tk.log, tk.log1p) else x, dtype=tk.float64)
        with tk.GradientTape() as tape:
            y = f(v)
        np.testing.assert_allclose(tape.gradient(y, v).numpy(), expected, rtol=1e-13, err_msg=f.name)


@pytest.mark.parametrize("f", [tk.exp, tk.log, tk.sin, tk.cos, tk.tanh, tk.sigmoid, tk.log1p, tk.expm1])
def test_gradients_match_finite_differences_to_second_order(f):
    check_grads(f, np.array([[0.4, 1.3], [2.2, 0.7]]), order=2)


def test_sigmoid_is_stable_for_large_inputs():
    y = tk.sigmoid(tk.constant([-1000.0, 0.0, 1000.0])).numpy()
    np.testing.assert_array_equal(y, [0.0, 0.5, 1.0])
    assert y.dtype == np.float32


def test_integer_inputs_are_refused_naming_the_op_and_the_cast():
    with pytest.raises(TypeError, match=r"exp: needs a floating input.*int32.*tk\.exp\(tk\.cast\(x, tk\.float32\)\)"):
        tk.exp(tk.constant([1]))


def test_log1p_and_expm1_are_exact_near_zero():
    np.testing.assert_allclose(tk.log1p(tk.constant([1e-20, 1.0], tk.float64)).numpy(), [1e-20, math.log(2)])
    np.testing.assert_allclose(tk.expm1(tk.constant([1e-20, 1.0], tk.float64)).numpy(), [1e-20, math.e - 1])
