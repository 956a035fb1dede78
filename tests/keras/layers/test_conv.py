"""Conv1D, Conv2D and Conv2DTranspose (layers/conv.py) against NumPy loops over windows, and
their gradients."""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers, models
from tapekit.testing import check_grads

from .weight_grads import weight_grads_match


def np_conv1d(x, kernel, bias, stride, padding):
    k = kernel.shape[0]
    n = x.shape[1]
    if padding == "causal":
        x = np.pad(x, [(0, 0), (k - 1, 0), (0, 0)])
    elif padding == "same":
        out = -(-n // stride)
        total = max((out - 1) * stride + k - n, 0)
        x = np.pad(x, [(0, 0), (total // 2, total - total // 2), (0, 0)])   # extra on the right
    steps = (x.shape[1] - k) // stride + 1
    return np.stack([np.einsum("bkc,kcf->bf", x[:, t * stride:t * stride + k], kernel)
                     for t in range(steps)], 1) + bias


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


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
    weight_grads_match(conv, tk.constant(x))


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


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
@pytest.mark.parametrize("stride", [1, 2])
def test_conv1d_matches_numpy(padding, stride):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 7, 3))
    layer = tk.layers.Conv1D(4, 3, strides=stride, padding=padding, dtype="float64")
    layer(x)
    kernel, bias = rng.normal(size=(3, 3, 4)), rng.normal(size=4)
    layer.set_weights([kernel, bias])
    want = np_conv1d(x, kernel, bias, stride, padding)
    got = layer(x)
    assert got.shape == want.shape == (2,) + layer.compute_output_shape((None, 7, 3))[1:]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_causal_output_does_not_see_the_future():
    x = np.zeros((1, 6, 1))
    x[0, 4, 0] = 1.0
    y = tk.layers.Conv1D(1, 3, padding="causal", kernel_initializer="ones")(x).numpy()[0, :, 0]
    np.testing.assert_array_equal(y, [0, 0, 0, 0, 1, 1])


def test_conv1d_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    layer = tk.layers.Conv1D(2, 2, padding="same", dtype="float64")
    x = tk.constant(rng.normal(size=(1, 5, 2)))
    w = rng.normal(size=(1, 5, 2))
    theoretical, numerical = tk.test.compute_gradient(lambda v: tk.reduce_sum(layer(v) * w), [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=1e-6)
    with tk.GradientTape() as tape:
        loss = tk.reduce_sum(layer(x) * w)
    g_kernel = tape.gradient(loss, layer.kernel).numpy()
    # d loss / d kernel[j, c, f] = sum_t xpad[t + j, c] * w[t, f], with 'same' padding 0 left, 1 right
    xpad = np.pad(x.numpy()[0], [(0, 1), (0, 0)])
    want = np.einsum("tjc,tf->jcf", np.stack([xpad[t:t + 2] for t in range(5)]), w[0])
    np.testing.assert_allclose(g_kernel, want, rtol=1e-12)


def test_conv1d_bad_arguments():
    with pytest.raises(ValueError, match="Conv1D: padding must be 'valid', 'same' or 'causal'"):
        tk.layers.Conv1D(2, 3, padding="full")
    with pytest.raises(ValueError, match=r"Conv1D: kernel_size must be a positive integer.*\(3, 3\)"):
        tk.layers.Conv1D(2, (3, 3))
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=4"):
        tk.layers.Conv1D(2, 3)(np.zeros((1, 4, 4, 1), np.float32))


# The config Keras 3.15.1 writes for keras.layers.Conv1D(3, 2) built on (None, 5, 2)
# (keras.saving.serialize_keras_object, read in the TF venv).
KERAS_CONV1D = {
    "module": "keras.layers", "class_name": "Conv1D", "config": {
        "name": "conv1d", "trainable": True,
        "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
                  "registered_name": None},
        "filters": 3, "kernel_size": [2], "strides": [1], "padding": "valid",
        "data_format": "channels_last", "dilation_rate": [1], "groups": 1, "activation": "linear",
        "use_bias": True,
        "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform",
                               "config": {"seed": None, "input_axes": None, "output_axes": None},
                               "registered_name": None},
        "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {},
                             "registered_name": None},
        "kernel_regularizer": None, "bias_regularizer": None, "activity_regularizer": None,
        "kernel_constraint": None, "bias_constraint": None},
    "registered_name": None, "build_config": {"input_shape": [None, 5, 2]}}


def test_conv1d_loads_keras_3s_config_and_writes_the_same():
    # before: "Unrecognized keyword arguments passed to Conv1D: {'groups': 1}"
    layer = tk.saving.deserialize_keras_object(KERAS_CONV1D)
    assert (layer.filters, layer.kernel_size, layer.kernel.shape) == (3, (2,), (2, 2, 3))
    assert tk.saving.serialize_keras_object(layer) == KERAS_CONV1D


def test_conv1d_refuses_a_grouped_keras_config():
    config = {**KERAS_CONV1D["config"], "groups": 3}
    with pytest.raises(ValueError, match="config has groups=3; tapekit's Conv1D supports only "
                                         "groups=1"):
        tk.layers.Conv1D.from_config(config)


@pytest.mark.skipif(not hasattr(tk.nn, "conv2d_transpose"), reason="tk.nn.conv2d_transpose not merged yet")
def test_conv2d_transpose_spreads_each_input_over_a_kernel_window():
    up = layers.Conv2DTranspose(1, 2, strides=2, kernel_initializer="ones", bias_initializer="ones")
    x = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(1, 2, 2, 1)
    y = up(x).numpy()[0, :, :, 0]
    # stride 2, 2x2 window of ones: each input value fills its own 2x2 block, plus bias 1
    np.testing.assert_array_equal(y, np.kron([[1, 2], [3, 4]], np.ones((2, 2))) + 1)
    assert up.kernel.shape == (2, 2, 1, 1)
    assert layers.Conv2DTranspose(3, 3, strides=2)(tk.zeros((1, 4, 4, 2))).shape == (1, 9, 9, 3)
