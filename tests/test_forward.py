"""tk.ForwardAccumulator (tapekit/forward.py): forward-mode directional derivatives (JVPs).

Expected numbers are derived by hand.
"""
import numpy as np
import pytest

import tapekit as tk


@pytest.mark.parametrize("tangent", [np.array([1.0]), tk.constant([1.0], dtype=tk.float64)])
def test_forward_accumulator_needs_the_primals_dtype(tangent):
    with pytest.raises(TypeError, match=r"ForwardAccumulator: tangent #0 has dtype float64.*float32"):
        tk.ForwardAccumulator(tk.Variable([1.0]), tangent)
    with tk.ForwardAccumulator(x := tk.constant([1.0]), np.float32([1.0])) as acc:
        y = x * 3.0
    assert acc.jvp(y).numpy().tolist() == [3.0]


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


def test_a_jvp_is_the_jacobian_times_the_tangent():
    # y = x0^2 x1 at (3, 2), tangent (1, 0.5): dy = 2 x0 x1 * 1 + x0^2 * 0.5 = 12 + 4.5
    x = tk.constant(np.array([3.0, 2.0]))
    with tk.ForwardAccumulator(x, tk.constant(np.array([1.0, 0.5]))) as acc:
        y = x[0] ** 2 * x[1]
        unrelated = tk.constant(1.0) * 2.0
    assert float(acc.jvp(y)) == 16.5
    assert acc.jvp(unrelated) is None
    assert float(acc.jvp(unrelated, unconnected_gradients=tk.UnconnectedGradients.ZERO)) == 0.0
