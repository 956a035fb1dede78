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
