"""Jacobians three ways, and comparing them (tapekit/testing/jacobians.py, behind tk.testing)."""
import numpy as np

import tapekit as tk
from tapekit.testing.jacobians import (compare_jacobians, forward_jacobian, gradient_function,
                               numerical_jacobian, reverse_jacobian, value_of)


def f(x, y):
    return tk.sin(x) * y       # d/dx = cos(x) y (diagonal), d/dy = sin(x) (diagonal)


X, Y = np.array([0.5, -1.0]), np.array([2.0, 3.0])
EXPECTED = [np.diag(np.cos(X) * Y), np.diag(np.sin(X))]


def test_the_three_jacobians_match_the_hand_derived_one():
    for jacs, rtol in ((numerical_jacobian(f, [X, Y]), 1e-8), (reverse_jacobian(f, [X, Y]), 1e-12),
                       (forward_jacobian(f, [X, Y]), 1e-12)):
        for got, want in zip(jacs, EXPECTED):
            np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)


def test_gradient_function_gives_second_derivatives():
    df = gradient_function(lambda x: x ** 3)     # 3 x^2 (a scalar output is not weighted)
    assert float(df(tk.constant(2.0))[0]) == 12.0
    # a vector output is weighted by cos(k + 0.3): d/dx of 3x^2 cos(0.3) is 6x cos(0.3)
    (hess,) = numerical_jacobian(gradient_function(lambda x: x ** 3), [np.array([2.0])])
    np.testing.assert_allclose(hess, [[12.0 * np.cos(0.3)]], rtol=1e-6)


def test_compare_jacobians_reports_the_worst_element():
    report = compare_jacobians(np.array([1.0, 2.0, 3.5]), np.array([1.0, 2.0, 3.0]), 1e-6, 1e-6)
    assert report["got"] == 3.5 and report["expected"] == 3.0
    assert value_of(tk.constant(2.0)) == 2.0 and value_of(3) == 3
