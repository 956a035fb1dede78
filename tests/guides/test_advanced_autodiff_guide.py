"""TensorFlow's guide "Advanced automatic differentiation" on tapekit (issue 23).

Cells of tensorflow/docs site/en/guide/advanced_autodiff.ipynb, numbered as
tools/guides/extract.py prints them, re-stated in our own code; expected values derived by
hand or with NumPy. Cells 19-20 (SavedModel) are out of scope.
"""
import numpy as np
import pytest

import tapekit as tk


def missing(name):
    return pytest.mark.xfail(strict=True, reason=f"issue 23: {name} missing")


def _dz(stop):
    x, y = tk.Variable(2.0), tk.Variable(3.0)
    with tk.GradientTape() as t:
        z = stop(t, x, y)
    grad = t.gradient(z, {"x": x, "y": y})
    return grad["x"].numpy(), grad["y"]


def test_stop_recording_reset_stop_gradient():
    # advanced_autodiff.ipynb cells 9, 11, 13: dz/dx = 2x = 4 and dz/dy = None, three ways
    def stop_recording(t, x, y):
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        return x_sq + y_sq

    def reset(t, x, y):
        y_sq = y * y
        t.reset()
        return x * x + y_sq

    def stop_gradient(t, x, y):
        return x ** 2 + tk.stop_gradient(y ** 2)

    for f in (stop_recording, reset, stop_gradient):
        assert _dz(f) == (4.0, None), f.__name__


def test_custom_gradient_clips():
    # advanced_autodiff.ipynb cell 16: the upstream 1 is clipped to norm 0.5, times 2v = 4 -> 2
    @tk.custom_gradient
    def clip_gradients(y):
        return y, lambda dy: tk.clip_by_norm(dy, 0.5)

    v = tk.Variable(2.0)
    with tk.GradientTape() as t:
        output = clip_gradients(v * v)
    assert t.gradient(output, v).numpy() == 2.0


def test_multiple_tapes():
    # advanced_autodiff.ipynb cells 23-25: cos(0) = 1, sigmoid'(0) = 0.25
    x0, x1 = tk.constant(0.0), tk.constant(0.0)
    with tk.GradientTape() as tape0, tk.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)
        ys = tk.reduce_sum(tk.math.sin(x0) + tk.nn.sigmoid(x1))
    assert tape0.gradient(ys, x0).numpy() == 1.0
    assert tape1.gradient(ys, x1).numpy() == 0.25


def test_higher_order():
    # advanced_autodiff.ipynb cell 27: x**3 at 1: 3 and 6
    x = tk.Variable(1.0)
    with tk.GradientTape() as t2:
        with tk.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    assert (dy_dx.numpy(), t2.gradient(dy_dx, x).numpy()) == (3.0, 6.0)


def test_input_gradient_regularization():
    # advanced_autodiff.ipynb cells 30-32: gradients of |d out/d x| for kernel (5, 10), bias (10,)
    x = tk.random.normal([7, 5])
    layer = tk.keras.layers.Dense(10, activation=tk.nn.relu)
    with tk.GradientTape() as t2:
        with tk.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            out = tk.reduce_sum(layer(x) ** 2)
        g1 = t1.gradient(out, x)
        g1_mag = tk.norm(g1)
    np.testing.assert_allclose(g1_mag.numpy(), np.sqrt(np.sum(g1.numpy() ** 2)), rtol=1e-5)
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)
    assert [g.shape for g in dg1_mag] == [(5, 10), (10,)]


def test_jacobian_scalar_source():
    # advanced_autodiff.ipynb cells 38, 40: d sigmoid(x + delta)/d delta, shape (201,)
    x = tk.linspace(-10.0, 10.0, 200 + 1)
    delta = tk.Variable(0.0)
    with tk.GradientTape() as tape:
        y = tk.nn.sigmoid(x + delta)
    dy_dx = tape.jacobian(y, delta)
    assert y.shape == dy_dx.shape == (201,)
    s = 1 / (1 + np.exp(-x.numpy().astype(np.float64)))
    np.testing.assert_allclose(dy_dx.numpy(), s * (1 - s), rtol=1e-4, atol=1e-7)


def test_jacobian_tensor_source():
    # advanced_autodiff.ipynb cells 44-50: j[b, o, i, k] = x[b, i] relu'(z[b, o]) [o == k];
    # summed over (b, o) it is the gradient
    x = tk.random.normal([7, 5])
    layer = tk.keras.layers.Dense(10, activation=tk.nn.relu)
    with tk.GradientTape(persistent=True) as tape:
        y = layer(x)
    assert y.shape == (7, 10) and layer.kernel.shape == (5, 10)
    j = tape.jacobian(y, layer.kernel)
    assert j.shape == (7, 10, 5, 10)
    z = x.numpy() @ layer.kernel.numpy() + layer.bias.numpy()
    want = np.einsum("bi,bo,ok->boik", x.numpy(), (z > 0).astype(np.float32), np.eye(10))
    np.testing.assert_allclose(j.numpy(), want, rtol=1e-5, atol=1e-6)
    g = tape.gradient(y, layer.kernel)
    assert g.shape == (5, 10)
    j_sum = tk.reduce_sum(j, axis=[0, 1])
    assert tk.reduce_max(abs(g - j_sum)).numpy() < 1e-3


def _hessian():
    x = tk.random.normal([7, 5])
    layer1 = tk.keras.layers.Dense(8, activation=tk.nn.relu)
    layer2 = tk.keras.layers.Dense(6, activation=tk.nn.relu)
    with tk.GradientTape() as t2:
        with tk.GradientTape() as t1:
            loss = tk.reduce_mean(layer2(layer1(x)) ** 2)
        g = t1.gradient(loss, layer1.kernel)
    return layer1, g, t2.jacobian(g, layer1.kernel)


def test_hessian_shapes_and_symmetry():
    # advanced_autodiff.ipynb cells 53-56: h (5, 8, 5, 8), 40 parameters, a symmetric matrix
    layer1, g, h = _hessian()
    assert layer1.kernel.shape == (5, 8) and h.shape == (5, 8, 5, 8)
    n_params = tk.reduce_prod(layer1.kernel.shape)
    assert int(n_params) == 40
    g_vec, h_mat = tk.reshape(g, [n_params, 1]), tk.reshape(h, [n_params, n_params])
    assert g_vec.shape == (40, 1)
    np.testing.assert_allclose(h_mat.numpy(), h_mat.numpy().T, atol=1e-5)


def test_newton_step():
    # advanced_autodiff.ipynb cells 61, 63: solve (H + eps I) u = g and step the kernel by -u
    layer1, g, h = _hessian()
    h_mat, g_vec = tk.reshape(h, [40, 40]), tk.reshape(g, [40, 1])
    eye_eps = tk.eye(h_mat.shape[0]) * 1e-3
    np.testing.assert_array_equal(eye_eps.numpy(), np.eye(40, dtype=np.float32) * 1e-3)
    update = tk.linalg.solve(h_mat + eye_eps, g_vec)
    np.testing.assert_allclose((h_mat + eye_eps).numpy() @ update.numpy(), g_vec.numpy(),
                               atol=1e-4)
    before = layer1.kernel.numpy()
    layer1.kernel.assign_sub(tk.reshape(update, layer1.kernel.shape))
    np.testing.assert_allclose(layer1.kernel.numpy(), before - update.numpy().reshape(5, 8))


def test_batch_jacobian():
    # advanced_autodiff.ipynb cells 67-77: j (7, 6, 7, 5) is zero off the batch diagonal, so
    # batch_jacobian (7, 6, 5) equals j summed over its third axis
    x = tk.random.normal([7, 5])
    layer1 = tk.keras.layers.Dense(8, activation=tk.nn.elu)
    layer2 = tk.keras.layers.Dense(6, activation=tk.nn.elu)
    with tk.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer2(layer1(x))
    assert y.shape == (7, 6)
    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)
    off = j.numpy().copy()
    off[np.arange(7), :, np.arange(7), :] = 0
    assert np.all(off == 0)
    j_sum = tk.reduce_sum(j, axis=2)
    jb = tape.batch_jacobian(y, x)
    assert j_sum.shape == jb.shape == (7, 6, 5)
    assert tk.reduce_max(abs(jb - j_sum)).numpy() < 1e-3


def test_elu_values():
    # advanced_autodiff.ipynb cell 67 needs tf.nn.elu: x for x > 0, exp(x) - 1 below
    x = tk.constant([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(tk.nn.elu(x).numpy(), [np.exp(-1.0) - 1, 0.0, 2.0], rtol=1e-6)


def test_einsum_diagonal():
    # advanced_autodiff.ipynb cell 74: einsum('bxby->bxy') picks the batch diagonal
    j = np.arange(7 * 6 * 7 * 5, dtype=np.float32).reshape(7, 6, 7, 5)
    got = tk.einsum("bxby->bxy", tk.constant(j))
    np.testing.assert_array_equal(got.numpy(), j[np.arange(7), :, np.arange(7), :])


def test_pad_constant_values():
    # advanced_autodiff.ipynb cell 72: pad two axes by 1 on each side with a constant
    j = tk.ones((2, 3, 2, 3))
    padded = tk.pad(j, [[0, 0], [1, 1], [0, 0], [1, 1]], constant_values=-1.0)
    assert padded.shape == (2, 5, 2, 5)
    assert padded.numpy()[0, 0, 0, 0] == -1.0 and padded.numpy()[0, 1, 0, 1] == 1.0


def test_batch_norm_couples_the_batch():
    # advanced_autodiff.ipynb cells 79-82: with BatchNormalization in training mode the
    # jacobian has off-diagonal batch blocks; batch_jacobian still has shape (7, 6, 5)
    x = tk.random.normal([7, 5])
    layer1 = tk.keras.layers.Dense(8, activation=tk.nn.relu)
    bn = tk.keras.layers.BatchNormalization()
    layer2 = tk.keras.layers.Dense(6, activation=tk.nn.relu)
    with tk.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer2(bn(layer1(x), training=True))
    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)
    assert tape.batch_jacobian(y, x).shape == (7, 6, 5)
