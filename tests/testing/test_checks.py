"""tk.test: compute_gradient (TensorFlow's layout) and check_gradients (the report)."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops.registry import Op
from tapekit.test import GradientCheckError
from tapekit.testing import compare_jacobians


# --- compute_gradient -------------------------------------------------------------------------

def test_compute_gradient_matches_tensorflows_example():
    theoretical, numerical = tk.test.compute_gradient(lambda x: x * x, [1.0])
    assert isinstance(theoretical, tuple) and isinstance(numerical, tuple)
    (t,), (n,) = theoretical, numerical
    assert t.shape == (1, 1) and t.dtype == np.float32 and n.dtype == np.float32
    assert t[0, 0] == 2.0 and n[0, 0] == pytest.approx(2.0, rel=1e-5)


def test_compute_gradient_layout_rows_are_outputs_columns_are_inputs():
    # y = [x0 * w1, x1 ** 2, sin(x0) * w0]; J has y.size rows and x.size columns.
    def f(x, w):
        return tk.stack([x[0] * w[1], x[1] ** 2, tk.sin(x[0]) * w[0]])

    x = np.array([0.3, -1.2])
    w = np.array([2.0, 5.0, 7.0])
    (jx, jw), (nx, nw) = tk.test.compute_gradient(f, [x, w])
    want_x = np.array([[w[1], 0.0],
                       [0.0, 2 * x[1]],
                       [np.cos(x[0]) * w[0], 0.0]])
    want_w = np.array([[0.0, x[0], 0.0],
                       [0.0, 0.0, 0.0],
                       [np.sin(x[0]), 0.0, 0.0]])
    assert jx.shape == (3, 2) and jw.shape == (3, 3)
    assert jx.dtype == np.float64  # inputs keep their dtype
    np.testing.assert_allclose(jx, want_x, rtol=1e-12)
    np.testing.assert_allclose(jw, want_w, rtol=1e-12)
    np.testing.assert_allclose(nx, want_x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nw, want_w, rtol=1e-5, atol=1e-6)


def test_compute_gradient_flattens_matrices_row_major():
    # y = W @ v, W of shape (2, 3): dy[i] / dW[j, k] = (i == j) * v[k], column j * 3 + k.
    v = np.array([1.0, 2.0, 3.0])
    W = np.arange(6.0).reshape(2, 3)
    (jw,), _ = tk.test.compute_gradient(lambda W: tk.matmul(W, tk.constant(v[:, None]))[:, 0], [W])
    np.testing.assert_allclose(jw, [[1, 2, 3, 0, 0, 0], [0, 0, 0, 1, 2, 3]])


def test_compute_gradient_argument_errors():
    with pytest.raises(ValueError, match="must be a list or tuple"):
        tk.test.compute_gradient(lambda x: x, 1.0)
    with pytest.raises(TypeError, match="argument #0 has dtype int32"):
        tk.test.compute_gradient(lambda x: x, [1])


# --- check_gradients ------------------------------------------------------------------------------

@tk.custom_gradient
def wrong_square(x):
    def grad(dy):
        return dy * x            # wrong: d(x*x)/dx is 2x
    return x * x, grad


@tk.custom_gradient
def right_square(x):
    def grad(dy):
        return dy * 2.0 * x
    return x * x, grad


def test_check_gradients_catches_a_wrong_custom_gradient():
    with pytest.raises(GradientCheckError) as info:
        tk.test.check_gradients(wrong_square, [1.0, 2.0, 3.0])
    report = info.value.report
    assert not report.ok
    (bad,) = report.failures
    assert (bad.order, bad.mode, bad.input) == (1, "reverse", "x")
    # The largest error is at the last element: tape 3, finite differences 6.
    assert bad.stats["abs_at"] == (2, 2) and bad.stats["abs_error"] == pytest.approx(3.0)
    assert bad.stats["got"] == pytest.approx(3.0) and bad.stats["expected"] == pytest.approx(6.0)
    assert bad.stats["rel_error"] == pytest.approx(0.5)
    text = str(info.value)
    assert "check_gradients(wrong_square): FAILED (1 of 2 over tolerance)" in text
    assert "FAIL" in text and "out[2] x[2]" in text and "tape 3, numerical 6" in text
    # forward mode differentiates the body (x * x, right), as TF's ForwardAccumulator does
    assert [(c.order, c.mode, c.ok) for c in report.checks] == [(1, "reverse", False),
                                                                (1, "forward", True)]


def test_check_gradients_can_return_the_failing_report():
    report = tk.test.check_gradients(wrong_square, [1.0, 2.0], raise_error=False)
    assert report.ok is False and len(report.failures) == 1
    assert "<table>" in report._repr_html_() and "FAIL" in report._repr_html_()


def test_check_gradients_passes_a_right_custom_gradient():
    report = tk.test.check_gradients(right_square, [1.0, -2.0, 3.0], order=2)
    assert report.ok
    modes = [(c.order, c.mode, c.skipped is None) for c in report.checks]
    assert modes == [(1, "reverse", True), (1, "forward", True),
                     (2, "reverse", True), (2, "forward", True)]


def test_check_gradients_both_modes_both_orders_per_input():
    def f(x, w):
        return tk.tanh(tk.matmul(w, x[:, None]))[:, 0] * tk.reduce_sum(x)

    x = np.array([0.2, -0.4, 0.7])
    w = np.arange(6.0).reshape(2, 3) / 10
    report = tk.test.check_gradients(f, x, w, order=2)
    assert report.ok
    assert [(c.order, c.mode, c.input) for c in report.checks] == [
        (1, "reverse", "x"), (1, "reverse", "w"), (1, "forward", "x"), (1, "forward", "w"),
        (2, "reverse", "x"), (2, "reverse", "w"), (2, "forward", "x"), (2, "forward", "w")]
    text = str(report)
    assert text.startswith("check_gradients(f): OK")
    assert "max abs err" in text and "max rel err" in text
    assert "grad[" in text  # order 2 differentiates the gradient
    assert all(c.stats["abs_error"] < 1e-6 for c in report.checks)


def test_check_gradients_catches_a_wrong_second_derivative():
    # First derivative right (2x), but the rule's own derivative is wrong: it uses
    # stop_gradient, so the gradient of the gradient is 0 instead of 2.
    @tk.custom_gradient
    def frozen_square(x):
        def grad(dy):
            return dy * 2.0 * tk.stop_gradient(x)
        return x * x, grad

    report = tk.test.check_gradients(frozen_square, [1.0, 2.0], order=2, raise_error=False)
    # forward mode over that gradient runs the same grad_fn: 0 too
    assert [(c.order, c.mode) for c in report.failures] == [(2, "reverse"), (2, "forward")]


# An op with a VJP and no JVP rule (the table has none now: custom_gradient has one since
# issue 47), for what check_gradients does when forward mode cannot run
_NO_JVP = Op("doubled_without_jvp", lambda x: x * 2.0, "x", [lambda g, ans, x: g * 2.0], None,
             "", variadic=False, same_dtype=False, doc="2 x, with only a VJP")


def doubled(x):
    return _NO_JVP(x)


def test_compare_jacobians_counts_a_one_sided_nan_as_an_error():
    c = compare_jacobians(np.array([1.0, np.nan]), np.array([1.0, 2.0]), 1e-5, 1e-6)
    assert not c["ok"] and c["abs_error"] == np.inf and c["abs_at"] == (1,)
    c = compare_jacobians(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), 1e-5, 1e-6)
    assert c["ok"] and c["abs_error"] == 0.0


# --- one checker: tk.test, tk.testing and the inspector share it ---------------------------------

def test_tk_test_names_are_the_testing_checker():
    import tapekit.testing as testing
    assert tk.test.check_gradients is testing.check_gradients
    assert tk.test.GradientCheckError is testing.GradientCheckError
    assert tk.test.GradientCheck is testing.GradientCheck
    assert tk.test.GradientReport is testing.GradientReport


def test_check_grads_is_check_gradients_as_an_assertion():
    assert tk.testing.check_grads(right_square, [1.0, 2.0], modes=("rev",), order=2) is None
    with pytest.raises(AssertionError) as info:
        tk.testing.check_grads(wrong_square, [1.0, 2.0, 3.0], modes=("rev",))
    assert isinstance(info.value, GradientCheckError)
    (bad,) = info.value.report.failures
    assert bad.input == "x" and bad.stats["got"] == pytest.approx(3.0)
    assert "tape 3, numerical 6" in str(info.value) and "out[2] x[2]" in str(info.value)


def test_check_grads_does_not_skip_forward_mode_it_cannot_run():
    # check_gradients lists it as skipped; the assertion form must not pass silently
    with pytest.raises(NotImplementedError, match="doubled_without_jvp' has no forward-mode"):
        tk.testing.check_grads(doubled, [1.0, 2.0])


def test_check_gradient_of_a_given_gradient():
    x = np.array([1.0, -2.0])
    good = tk.testing.check_gradient("x", 2 * x, lambda t: t * t, x)
    assert good.ok and str(good).startswith("x: OK. tape gradient [2.0 -4.0]")
    np.testing.assert_allclose(good.numerical, 2 * x, rtol=1e-6)
    bad = tk.testing.check_gradient("x", np.array([2.0, 0.0]), lambda t: t * t, x)
    assert not bad.ok and bad.stats["abs_at"] == (1,) and bad.stats["abs_error"] == pytest.approx(4.0)
    assert "MISMATCH" in str(bad)


def test_a_skipped_check_is_not_ok_but_does_not_fail_the_report():
    report = tk.test.check_gradients(doubled, [1.0, 2.0])
    skipped = [c for c in report.checks if c.skipped is not None]
    assert [c.mode for c in skipped] == ["forward"] and not skipped[0].ok
    assert report.ok and report.failures == []
