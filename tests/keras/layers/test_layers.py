"""Layers and Sequential: shapes, initial values, activations, gradients (finite differences)."""
import math
import re

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers, models
from tapekit.testing import check_grads


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def numerical_grad(loss, var, eps=1e-6):
    """d loss() / d var by central differences, perturbing the variable in place."""
    base = var.numpy().copy()
    grad = np.zeros(base.shape)
    for idx in np.ndindex(*base.shape):
        for sign in (1, -1):
            v = base.copy()
            v[idx] += sign * eps
            var.assign(v)
            grad[idx] += sign * float(loss().numpy()) / (2 * eps)
    var.assign(base)
    return grad


def assert_variable_grads(layer, x):
    """The tape's gradients of a weighted sum of layer(x) w.r.t. each weight match numerics."""
    w = np.cos(np.arange(int(np.prod(layer(x).shape))) + 0.3).reshape(layer(x).shape)

    def loss():
        return tk.reduce_sum(layer(x) * w)
    with tk.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, layer.trainable_variables)
    for var, g in zip(layer.trainable_variables, grads):
        np.testing.assert_allclose(g.numpy(), numerical_grad(loss, var), rtol=1e-5, atol=1e-7)


# --- Dense --------------------------------------------------------------------------------
def test_dense_builds_on_first_call_with_glorot_kernel_and_zero_bias():
    layer = layers.Dense(30, activation="relu")
    assert not layer.built and layer.variables == ()
    y = layer(tk.ones((4, 20)))
    assert y.shape == (4, 30) and y.dtype == tk.float32
    kernel = layer.kernel.numpy()
    limit = math.sqrt(6 / (20 + 30))
    assert kernel.shape == (20, 30) and np.abs(kernel).max() <= limit
    assert np.abs(kernel).max() > 0.9 * limit              # really uniform on [-limit, limit]
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(30, np.float32))
    assert [v.name for v in layer.trainable_variables] == ["kernel", "bias"]        # Keras 3
    assert [v.path for v in layer.trainable_variables] == ["dense/kernel", "dense/bias"]


def test_dense_with_input_shape_is_built_at_once_and_seeded():
    tk.random.set_seed(3)
    a = layers.Dense(4, input_shape=(5,))
    tk.random.set_seed(3)
    b = layers.Dense(4, input_shape=(5,))
    assert a.built and a.input_shape == (None, 5) and a.count_params() == 24
    np.testing.assert_array_equal(a.kernel.numpy(), b.kernel.numpy())
    assert a.name == "dense" and b.name == "dense_1"


@pytest.mark.parametrize("name, ref", [
    ("relu", lambda z: np.maximum(z, 0)), ("sigmoid", lambda z: 1 / (1 + np.exp(-z))),
    ("tanh", np.tanh), ("linear", lambda z: z), (None, lambda z: z),
    ("softmax", lambda z: np.exp(z) / np.exp(z).sum(-1, keepdims=True)),
    (lambda t: t * 2.0, lambda z: 2 * z)])
def test_dense_activations(name, ref):
    layer = layers.Dense(3, activation=name, dtype=tk.float64)
    x = np.random.default_rng(0).normal(size=(2, 4))
    y = layer(x)
    z = x @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(y.numpy(), ref(z), rtol=1e-12)


def test_unknown_activation_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown activation 'gelux'"):
        layers.Dense(3, activation="gelux")


def test_dense_gradients_match_finite_differences():
    layer = layers.Dense(3, activation="tanh", dtype=tk.float64)
    x = np.random.default_rng(1).normal(size=(2, 4))
    check_grads(layer, x)
    assert_variable_grads(layer, tk.constant(x))


def test_float64_input_is_cast_to_the_layer_dtype():
    y = layers.Dense(2)(np.ones((1, 3)))
    assert y.dtype == tk.float32


# --- Flatten and Dropout ----------------------------------------------------------------------
def test_flatten_shape_and_gradient():
    x = np.random.default_rng(2).normal(size=(2, 3, 2, 2))
    flat = layers.Flatten(dtype=tk.float64)
    assert flat(x).shape == (2, 12)
    assert flat.compute_output_shape((None, 3, 2, 2)) == (None, 12)
    check_grads(lambda t: flat(t) * tk.constant(np.arange(12.0)), x)


def test_dropout_is_active_only_in_training():
    x = tk.ones((1000,))
    drop = layers.Dropout(0.25)
    assert drop(x) is x and drop(x, training=False) is x
    tk.random.set_seed(0)
    y = drop(x, training=True).numpy()
    kept = y != 0
    assert 0.2 < 1 - kept.mean() < 0.3                      # about a quarter dropped
    np.testing.assert_allclose(y[kept], 1 / 0.75)            # survivors scaled up
    with tk.GradientTape() as tape:
        tape.watch(x)
        tk.random.set_seed(0)
        out = drop(x, training=True)
    np.testing.assert_array_equal(tape.gradient(out, x).numpy(), y)   # d/dx = mask / (1 - rate)


def test_dropout_rate_is_checked():
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        layers.Dropout(1.0)


# --- Conv2D and MaxPooling2D ---------------------------------------------------------------
def naive_conv(x, k, stride, padding):
    n, h, w, _ = x.shape
    kh, kw, _, f = k.shape
    if padding == "same":
        oh, ow = -(-h // stride), -(-w // stride)
        ph, pw = max((oh - 1) * stride + kh - h, 0), max((ow - 1) * stride + kw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    else:
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.zeros((n, oh, ow, f))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, k, axes=([1, 2, 3], [0, 1, 2]))
    return out


@pytest.mark.parametrize("stride, padding", [(1, "valid"), (2, "same"), (2, "valid")])
def test_conv2d_layer_matches_a_naive_convolution(stride, padding):
    x = np.random.default_rng(3).normal(size=(2, 7, 6, 3))
    conv = layers.Conv2D(4, 3, strides=stride, padding=padding, dtype=tk.float64)
    y = conv(x)
    expected = naive_conv(x, conv.kernel.numpy(), stride, padding) + conv.bias.numpy()
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10, atol=1e-12)
    assert conv.compute_output_shape((None, 7, 6, 3)) == (None,) + y.shape[1:]
    assert conv.kernel.shape == (3, 3, 3, 4)


def test_conv2d_glorot_limit_counts_the_window():
    conv = layers.Conv2D(8, (3, 3), input_shape=(28, 28, 1))
    limit = math.sqrt(6 / (9 * 1 + 9 * 8))
    assert np.abs(conv.kernel.numpy()).max() <= limit and conv.count_params() == 80


def test_conv2d_gradients_match_finite_differences():
    conv = layers.Conv2D(2, 2, strides=1, padding="same", activation="tanh", dtype=tk.float64)
    x = np.random.default_rng(4).normal(size=(1, 4, 3, 2))
    conv.build((None, 4, 3, 2))
    conv.built = True
    conv.bias.assign(np.array([0.1, -0.2]))
    check_grads(conv, x)
    assert_variable_grads(conv, tk.constant(x))


def test_max_pooling_values_shapes_and_gradient():
    x = np.random.default_rng(5).permutation(2 * 5 * 4 * 3).reshape(2, 5, 4, 3) / 7.0
    pool = layers.MaxPooling2D()
    y = pool(x).numpy()
    assert y.shape == (2, 2, 2, 3) == pool.compute_output_shape(x.shape)
    expected = x[:, :4].reshape(2, 2, 2, 2, 2, 3).max(axis=(2, 4))
    np.testing.assert_allclose(y, expected.astype(np.float32), rtol=1e-6)
    same = layers.MaxPooling2D(pool_size=3, strides=2, padding="same", dtype=tk.float64)
    assert same(x).shape == (2, 3, 2, 3)
    check_grads(same, x)
    check_grads(layers.MaxPooling2D(dtype=tk.float64), x)


# --- Sequential ------------------------------------------------------------------------------
def seed_model():
    return models.Sequential([
        layers.Dense(64, activation="relu", input_shape=(10,)),
        layers.Dense(32, activation="relu"),
        layers.Dense(1)])


def test_sequential_is_built_from_input_shape_with_variables_in_layer_order():
    model = seed_model()
    assert model.built and len(model.layers) == 3
    assert [v.path for v in model.trainable_variables] == [
        "dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias",
        "dense_2/kernel", "dense_2/bias"]
    assert model(tk.ones((5, 10)), training=True).shape == (5, 1)


def test_summary_prints_a_keras_like_table():
    lines = []
    seed_model().summary(print_fn=lines.append)
    text = lines[0]
    assert text.splitlines()[0] == 'Model: "sequential"'
    # Keras 3's box (the line width depends on the terminal: rows are matched loosely)
    assert re.search(r"│ dense \(Dense\) +│ \(None, 64\) +│ +704 │", text)
    assert re.search(r"│ dense_1 \(Dense\) +│ \(None, 32\) +│ +2,080 │", text)
    assert re.search(r"│ dense_2 \(Dense\) +│ \(None, 1\) +│ +33 │", text)
    assert (" Total params: 2,817 (11.00 KB)\n Trainable params: 2,817 (11.00 KB)\n"
            " Non-trainable params: 0 (0.00 B)") in text          # 2,817 float32 = 11,268 bytes


def test_unbuilt_sequential_builds_on_first_call():
    model = models.Sequential([layers.Flatten(), layers.Dense(2)])
    lines = []
    model.summary(print_fn=lines.append)       # Keras 3 prints an unbuilt Sequential too
    assert re.search(r"│ dense \(Dense\) +│ \? +│ +0 \(unbuilt\) │", lines[0])
    assert model(tk.ones((3, 2, 2))).shape == (3, 2)
    assert model.layers[1].kernel.shape == (4, 2)


def test_sequential_passes_training_to_dropout():
    model = models.Sequential([layers.Dropout(0.5, input_shape=(100,))])
    x = tk.ones((2, 100))
    assert model(x) is x or np.array_equal(model(x).numpy(), x.numpy())
    assert (model(x, training=True).numpy() == 0).any()


def test_cnn_stack_shapes():
    model = models.Sequential([
        layers.Conv2D(8, 3, activation="relu", input_shape=(28, 28, 1)),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dropout(0.2),
        layers.Dense(10)])
    assert model(tk.random.normal((2, 28, 28, 1))).shape == (2, 10)
    assert model.layers[2].compute_output_shape((None, 13, 13, 8)) == (None, 1352)
    assert model.count_params() == 80 + 1352 * 10 + 10
