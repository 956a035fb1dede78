"""tk.custom_gradient (tapekit/custom.py): the user's grad_fn is checked and used by the tape.

Expected numbers are derived by hand or from central finite differences (tapekit.testing).
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import numerical_jacobian


def custom_grad_of(grad_result, x=None, returns_only_y=False):
    """The gradient of sum(f(x)) for a custom_gradient f whose grad_fn returns `grad_result(dy)`."""
    @tk.custom_gradient
    def double(x):
        if returns_only_y:
            return x * 2.0
        return x * 2.0, grad_result

    x = tk.constant([1.0, 2.0, 3.0]) if x is None else x
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.reduce_sum(double(x))
    return tape.gradient(y, x)


@pytest.mark.parametrize("bad, message", [
    (lambda dy: tk.ones((5, 5)), r"double: grad_fn returned a gradient of shape \(5, 5\) for input 'x' of shape \(3,\)"),
    (lambda dy: tk.constant(2.0), r"shape \(\) for input 'x' of shape \(3,\)"),
    (lambda dy: [dy, dy], r"double: grad_fn returned 2 gradient\(s\) for 1 input"),
])
def test_custom_gradient_of_the_wrong_shape_or_count_is_an_error(bad, message):
    with pytest.raises(ValueError, match=message):
        custom_grad_of(bad)


@pytest.mark.parametrize("bad", [lambda dy: np.ones(3), lambda dy: tk.cast(dy, tk.float64)])
def test_custom_gradient_of_the_wrong_dtype_is_an_error(bad):
    with pytest.raises(TypeError, match="dtype float64 for input 'x' of dtype float32"):
        custom_grad_of(bad)


def test_custom_gradient_that_returns_only_y_is_an_error():
    with pytest.raises(TypeError, match=r"double: the function must return a pair \(outputs, grad_fn\)"):
        custom_grad_of(None, returns_only_y=True)


def test_custom_gradient_right_results_still_pass():
    np.testing.assert_array_equal(custom_grad_of(lambda dy: dy * 2.0).numpy(), [2, 2, 2])
    assert custom_grad_of(lambda dy: [None]) is None


def test_custom_gradient_variable_gradients_are_checked():
    w = tk.Variable([1.0, 2.0])

    def make(var_grads):
        @tk.custom_gradient
        def scale(x):
            def grad(dy, variables=None):
                return dy * w, var_grads(dy)
            return x * w, grad
        return scale

    x = tk.constant([3.0, 4.0])
    for var_grads, error, message in [
            (lambda dy: [], ValueError, r"scale: grad_fn returned 0 gradient\(s\) for 1 variable"),
            (lambda dy: [tk.reduce_sum(dy)], ValueError, r"shape \(\) for variable .* of shape \(2,\)")]:
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = tk.reduce_sum(make(var_grads)(x))
        with pytest.raises(error, match=message):
            tape.gradient(y, [x, w])
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.reduce_sum(make(lambda dy: [dy * x])(x))
    gx, gw = tape.gradient(y, [x, w])
    np.testing.assert_array_equal(gx.numpy(), [1, 2])
    np.testing.assert_array_equal(gw.numpy(), [3, 4])


@tk.custom_gradient
def polar(r, theta):
    # (r cos theta, r sin theta), with the gradient written by hand
    c, s = tk.cos(theta), tk.sin(theta)

    def grad(dx, dy):
        return dx * c + dy * s, -dx * r * s + dy * r * c
    return (r * c, r * s), grad


def test_custom_gradient_with_several_outputs():
    r, theta = tk.constant(np.array([2.0, 0.5])), tk.constant(np.array([0.3, -1.1]))
    with tk.GradientTape(persistent=True) as tape:
        tape.watch([r, theta])
        x, y = polar(r, theta)
        loss = tk.reduce_sum(x * x * 3.0 + y)
        only_x = tk.reduce_sum(x)
    gr, gt = tape.gradient(loss, [r, theta])

    def reference(rv, tv):
        return tk.reduce_sum((rv * tk.cos(tv)) ** 2 * 3.0 + rv * tk.sin(tv))
    nr, nt = numerical_jacobian(reference, [r.numpy(), theta.numpy()])
    np.testing.assert_allclose(gr.numpy(), nr, rtol=1e-7)
    np.testing.assert_allclose(gt.numpy(), nt, rtol=1e-7)
    # an output the target does not use gets a zero cotangent
    gr, gt = tape.gradient(only_x, [r, theta])
    np.testing.assert_allclose(gr.numpy(), np.cos(theta.numpy()), rtol=1e-12)
    np.testing.assert_allclose(gt.numpy(), -r.numpy() * np.sin(theta.numpy()), rtol=1e-12)
    # and the jacobian's batch of cotangents passes through too
    jac = tape.jacobian(x, r)
    np.testing.assert_allclose(jac.numpy(), np.diag(np.cos(theta.numpy())), rtol=1e-12)


def test_an_input_without_a_parameter_name_is_named_by_its_position():
    @tk.custom_gradient
    def total(*xs):
        return xs[0] + xs[1], lambda dy: (dy, tk.ones((4,)))

    a, b = tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0])
    with tk.GradientTape() as tape:
        tape.watch([a, b])
        y = tk.reduce_sum(total(a, b))
    with pytest.raises(ValueError, match=r"shape \(4,\) for input #1 of shape \(2,\)"):
        tape.gradient(y, [a, b])


# --- forward mode: TensorFlow 2.21's ForwardAccumulator differentiates the body ----------------
# The numbers below are TF 2.21's (tf.autodiff.ForwardAccumulator over tf.custom_gradient, eager).
def _jvp(f, primals, tangents):
    primals = [tk.constant(p) for p in primals]
    with tk.autodiff.ForwardAccumulator(primals, [tk.constant(t) for t in tangents]) as acc:
        y = f(*primals)
    t = acc.jvp(y)
    return y, t


@tk.custom_gradient
def _triple_grad_identity(x):
    return tk.identity(x), lambda dy: 3.0 * dy


@tk.custom_gradient
def _stopped(x):          # the body carries no derivative: grad_fn gives the tangent
    return tk.stop_gradient(x) * 2.0, lambda dy: 3.0 * dy


def test_forward_mode_differentiates_the_body_and_ignores_grad_fn():
    # TF 2.21 gives 1.0 in forward mode and 3.0 in reverse
    y, t = _jvp(_triple_grad_identity, [2.0], [1.0])
    assert (float(y), float(t)) == (2.0, 1.0)
    x = tk.constant(2.0)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = _triple_grad_identity(x)
    assert float(tape.gradient(y, x)) == 3.0

    @tk.custom_gradient
    def partly(x):        # 2x + stop_gradient(x): the body's tangent, 2 (TF 2.21: 2.0, not 5)
        return x * 2.0 + tk.stop_gradient(x), lambda dy: 5.0 * dy
    assert float(_jvp(partly, [2.0], [1.0])[1]) == 2.0


def test_forward_mode_takes_grad_fn_where_the_body_has_no_derivative():
    # TF 2.21: stop_gradient body, tangent 1 -> 3.0, tangent 2 -> 6.0
    assert float(_jvp(_stopped, [2.0], [1.0])[1]) == 3.0
    assert float(_jvp(_stopped, [2.0], [2.0])[1]) == 6.0

    @tk.custom_gradient
    def through_numpy(x):  # a value made by NumPy: TF 2.21 gives 3.0
        return tk.constant(np.asarray(x) * 2.0), lambda dy: 3.0 * dy
    y, t = _jvp(through_numpy, [2.0], [1.0])
    assert (float(y), float(t)) == (4.0, 3.0)

    @tk.custom_gradient
    def product(x, y):    # J = [3, 7] from grad_fn: TF 2.21 gives 10, 3 and 9.5 below
        return tk.stop_gradient(x * y), lambda dy: (3.0 * dy, 7.0 * dy)
    assert float(_jvp(product, [2.0, 5.0], [1.0, 1.0])[1]) == 10.0
    assert float(_jvp(product, [2.0, 5.0], [1.0, 0.0])[1]) == 3.0
    assert float(_jvp(product, [2.0, 5.0], [2.0, 0.5])[1]) == 9.5

    w = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)

    @tk.custom_gradient
    def w_transpose_x(x):  # (2,) -> (3,); grad_fn is W dy, so J t = W^T t: TF 2.21 [3, 4.5, 6]
        return tk.stop_gradient(tk.linalg.matvec(w, x, transpose_a=True)), \
            lambda dy: tk.linalg.matvec(w, dy)
    _, t = _jvp(w_transpose_x, [[1.0, 2.0]], [[1.0, 0.5]])
    assert t.numpy().tolist() == [3.0, 4.5, 6.0]


def test_forward_mode_through_a_tk_function_takes_grad_fn_as_tf_function_does():
    # TF 2.21 differentiates a tf.function call in forward mode through the call's gradient:
    # an accumulator entered outside the function gets grad_fn's 3 (x 2 = 6.0), one entered
    # inside it the body's 1 (x 2 = 2.0); around both, 6 + the eager call's 1 = 7.0
    @tk.function
    def doubled(x):
        return _triple_grad_identity(x) * 2.0

    @tk.function
    def jvp_inside(x):
        with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as acc:
            y = _triple_grad_identity(x) * 2.0
        return acc.jvp(y)

    x = tk.constant(1.5)
    for call in range(3):     # the first call traces, later ones replay: the same tangent
        with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as acc:
            y = doubled(x)
        assert float(acc.jvp(y)) == 6.0, call
        assert float(jvp_inside(x)) == 2.0, call
        with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as acc:
            y = doubled(x) + _triple_grad_identity(x)
        assert float(acc.jvp(y)) == 7.0, call
    with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as acc:
        y = _triple_grad_identity(x) * 2.0      # eager code, after all that: the body's
    assert float(acc.jvp(y)) == 2.0


def test_forward_mode_decides_per_output_and_per_body_tangent():
    @tk.custom_gradient
    def mixed(x):          # TF 2.21: [2.0 (the body's), 7.0 (grad_fn's)]
        return (x * 2.0, tk.stop_gradient(x) * 3.0), lambda dy1, dy2: 3.0 * dy1 + 7.0 * dy2
    x = tk.constant(2.0)
    with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as acc:
        a, b = mixed(x)
    assert [float(acc.jvp(a)), float(acc.jvp(b))] == [2.0, 7.0]

    @tk.custom_gradient
    def half(x, y):        # x * stop_gradient(y)
        return x * tk.stop_gradient(y), lambda dy: (3.0 * dy, 7.0 * dy)
    # TF 2.21: both tangents -> 5.0 (the body's, y's tangent lost); y's alone -> 7.0 (grad_fn's)
    assert float(_jvp(half, [2.0, 5.0], [1.0, 1.0])[1]) == 5.0
    x, y = tk.constant(2.0), tk.constant(5.0)
    with tk.autodiff.ForwardAccumulator(y, tk.constant(1.0)) as acc:
        out = half(x, y)
    assert float(acc.jvp(out)) == 7.0

    @tk.custom_gradient
    def constant_grad(x):  # grad_fn does not depend on dy: TF 2.21 gives no tangent (None)
        return tk.stop_gradient(x) * 2.0, lambda dy: tk.constant(3.0)
    assert _jvp(constant_grad, [2.0], [1.0])[1] is None

    @tk.custom_gradient
    def quadratic_grad(x):  # not linear in dy: TF 2.21 evaluates at dy = ones, 6.0
        return tk.stop_gradient(x) * 2.0, lambda dy: dy * dy * 3.0 + 1.0
    assert float(_jvp(quadratic_grad, [2.0], [1.0])[1]) == 6.0

    @tk.custom_gradient
    def no_grad(x):        # TF 2.21: None
        return tk.stop_gradient(x) * 2.0, lambda dy: None
    assert _jvp(no_grad, [2.0], [1.0])[1] is None

    y, t = _jvp(_stopped, [np.float64(2.0)], [np.float64(1.0)])   # TF 2.21: float64 3.0
    assert (t.dtype, float(t)) == (tk.float64, 3.0)


def test_forward_mode_with_variables_read_inside():
    v = tk.Variable(3.0)

    @tk.custom_gradient
    def scaled(x):         # TF 2.21: value 6.0, tangent 2.0 (grad_fn's input gradient)
        def grad(dy, variables=None):
            return 2.0 * dy, [4.0 * dy]
        return tk.stop_gradient(x * v), grad
    y, t = _jvp(scaled, [2.0], [1.0])
    assert (float(y), float(t)) == (6.0, 2.0)


@tk.custom_gradient
def _cube(x):              # body x**3, grad_fn 5 x**2 dy
    return x * x * x, lambda dy: dy * 5.0 * x * x


@tk.custom_gradient
def _cube_stopped(x):
    return tk.stop_gradient(x * x * x), lambda dy: dy * 5.0 * x * x


def _forward_over_reverse(f, x0):
    x = tk.constant(x0)
    with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as acc:
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    t = acc.jvp(g)
    return float(g), None if t is None else float(t)


def _reverse_over_forward(f, x0):
    x = tk.constant(x0)
    with tk.GradientTape() as tape:
        tape.watch(x)
        with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as acc:
            y = f(x)
        t = acc.jvp(y)
    g = tape.gradient(t, x)
    return float(t), None if g is None else float(g)


@pytest.mark.parametrize("f, fwd_rev, rev_fwd", [
    # TF 2.21's numbers at x = 2
    (_cube, (20.0, 20.0), (12.0, 12.0)),          # reverse: grad_fn 5x^2; forward: body 3x^2
    (_cube_stopped, (20.0, 20.0), (20.0, 20.0)),  # both from grad_fn, 5x^2 and its derivative 10x
    (_triple_grad_identity, (3.0, None), (1.0, None)),
    (_stopped, (3.0, None), (3.0, None)),
])
def test_nested_forward_and_reverse_through_custom_gradient(f, fwd_rev, rev_fwd):
    assert _forward_over_reverse(f, 2.0) == fwd_rev
    assert _reverse_over_forward(f, 2.0) == rev_fwd


def test_forward_over_forward_through_grad_fn():
    x = tk.constant(2.0)
    with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as outer:
        with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)) as inner:
            y = _cube_stopped(x)
        t = inner.jvp(y)
    assert (float(t), float(outer.jvp(t))) == (20.0, 20.0)     # TF 2.21: (20.0, 20.0)


def test_forward_mode_tangent_from_grad_fn_matches_finite_differences():
    # grad_fn is the true gradient of sin(x) * y: the tangent it gives is the directional derivative
    @tk.custom_gradient
    def f(x, y):
        out = tk.constant(np.sin(np.asarray(x)) * np.asarray(y))   # no derivative in the body
        return out, lambda dy: (dy * tk.cos(x) * y, dy * tk.sin(x))
    x0, y0 = np.array([0.3, -1.2, 2.0]), np.array([1.5, 0.5, -2.0])
    tx, ty = np.array([1.0, -0.5, 0.25]), np.array([0.2, 1.0, -1.0])
    _, t = _jvp(f, [x0, y0], [tx, ty])
    h = 1e-6
    numeric = (np.sin(x0 + h * tx) * (y0 + h * ty) - np.sin(x0 - h * tx) * (y0 - h * ty)) / (2 * h)
    np.testing.assert_allclose(t.numpy(), numeric, rtol=1e-7)


def test_check_numerics_still_sees_a_custom_gradients_body_inside_a_tk_function():
    # Only the ForwardAccumulators a tk.function call runs under stop seeing the body; the
    # NaN checker (an accumulator too) still checks the body's ops.
    @tk.custom_gradient
    def bad_log(x):       # a NaN inside the body only: its output is finite
        return tk.where(x > 100.0, tk.math.log(x - 5.0), x), lambda dy: dy

    @tk.function
    def f(x):
        return bad_log(x) * 2.0

    x = tk.constant(1.0)
    tk.debugging.enable_check_numerics()
    try:
        with tk.autodiff.ForwardAccumulator(x, tk.constant(1.0)):
            with pytest.raises(Exception, match="(?i)nan"):
                f(x)
    finally:
        tk.debugging.disable_check_numerics()
