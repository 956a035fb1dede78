"""Embedding as Keras 3 has it: uniform(-0.05, 0.05) table, rows by index (float indices cast),
output shape, and a gradient that adds up in the rows used (twice used: twice the gradient)."""
import math
import tracemalloc

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.testing import check_grads

from .weight_grads import weight_grads_match


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_embedding_rows_init_and_shapes():
    tk.random.set_seed(0)
    emb = tk.layers.Embedding(5, 3)
    out = emb(np.array([[1, 4], [0, 2]]))
    table = emb.embeddings.numpy()
    assert out.shape == (2, 2, 3) and table.shape == (5, 3)
    assert table.min() >= -0.05 and table.max() <= 0.05 and table.std() > 0.01
    emb.set_weights([np.arange(15.0).reshape(5, 3)])
    np.testing.assert_array_equal(emb(np.array([[1.0, 4.0]])).numpy(), [[[3, 4, 5], [12, 13, 14]]])
    assert emb.compute_output_shape((None, None)) == (None, None, 3)
    assert tk.layers.Embedding(10, 4)(tk.Input(shape=(None,), dtype="int32")).shape == (None, None, 4)
    with pytest.raises(IndexError, match="index 5 is out of range"):
        emb(np.array([[5]]))


def test_embedding_gradient_adds_in_the_rows_used():
    emb = tk.layers.Embedding(4, 2)
    emb(np.array([[0]]))
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(emb(np.array([[1, 3, 1]])) * np.array([1.0, 2.0]))
    grad = tk.convert_to_tensor(tape.gradient(y, emb.embeddings)).numpy()
    np.testing.assert_array_equal(grad, [[0, 0], [2, 4], [0, 0], [1, 2]])


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
    with pytest.raises(ValueError, match="activation identifier: 'gelux'"):
        layers.Dense(3, activation="gelux")


def test_dense_gradients_match_finite_differences():
    layer = layers.Dense(3, activation="tanh", dtype=tk.float64)
    x = np.random.default_rng(1).normal(size=(2, 4))
    check_grads(layer, x)
    weight_grads_match(layer, tk.constant(x))


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


def test_dropout_noise_shape_shares_the_mask_along_its_ones():
    tk.random.set_seed(3)
    y = layers.Dropout(0.5, noise_shape=(None, 1))(tk.ones((6, 4)), training=True).numpy()
    assert all(len(set(row)) == 1 for row in y)              # one draw per row, as Keras 3
    assert y.shape == (6, 4)


@pytest.mark.parametrize("noise_shape", [(7, 1), (1, 1, 4), (10 ** 7,)])
def test_a_noise_shape_that_does_not_broadcast_is_refused_before_the_mask_is_drawn(noise_shape):
    # Keras 3.15 draws the mask and then fails in TF's SelectV2 ("must be broadcastable");
    # tapekit drew a mask of noise_shape too, however large, before the multiply failed
    drop = layers.Dropout(0.5, noise_shape=noise_shape, name="drop")
    with pytest.raises(tk.errors.InvalidArgumentError,
                       match=r"Dropout 'drop': noise_shape .* does not broadcast against the "
                             r"input of shape \(2, 3\)"):
        drop(tk.ones((2, 3)), training=True)


def test_a_noise_shape_that_is_not_a_shape_is_refused_by_name():
    with pytest.raises(ValueError, match=r"Dropout 'drop': noise_shape is \[None, 'x'\]: entry 1"):
        layers.Dropout.from_config({"name": "drop", "rate": 0.5, "noise_shape": [None, "x"]})


def test_dropout_knows_its_output_shape_without_running():
    # Keras 3's compute_output_shape: the input's. Before, tapekit ran the layer on zeros of
    # the input shape to find it (10 GB for an Input of (50000, 50000))
    assert layers.Dropout(0.5).compute_output_shape((None, 50_000, 50_000)) == \
        (None, 50_000, 50_000)
    inputs = tk.Input(shape=(3000, 3000))
    tracemalloc.start()
    try:
        assert tk.layers.Dropout(0.5)(inputs).shape == (None, 3000, 3000)
        assert tracemalloc.get_traced_memory()[1] < 1 << 20        # not 36 MB of zeros
    finally:
        tracemalloc.stop()


def test_reshape_lambda_and_embedding():
    x = np.arange(24.0).reshape(2, 12)
    np.testing.assert_array_equal(layers.Reshape((3, -1))(x).numpy(), x.reshape(2, 3, 4))
    assert layers.Reshape((3, -1)).compute_output_shape((None, 12)) == (None, 3, 4)
    np.testing.assert_array_equal(layers.Lambda(lambda t: t + 1.0)(x).numpy(), x + 1)
    emb = layers.Embedding(5, 2, dtype=tk.float64)
    ids = np.array([[0, 3], [3, 4]])
    out = emb(ids)
    table = emb.embeddings.numpy()
    assert np.abs(table).max() <= 0.05
    np.testing.assert_array_equal(out.numpy(), table[ids])
    with tk.GradientTape() as tape:
        loss = tk.reduce_sum(emb(ids))
    grad = tape.gradient(loss, emb.embeddings)
    np.testing.assert_array_equal(tk.convert_to_tensor(grad).numpy(), [[1, 1], [0, 0], [0, 0], [2, 2], [1, 1]])


# --- masks (issue 43): Embedding(mask_zero=True) and Masking make them, Dense and Dropout pass
def test_embedding_with_mask_zero_marks_the_padding_index():
    """Keras 3.15: Embedding(5, 2, mask_zero=True) on [[0, 1, 2, 0]] carries the mask
    [[False, True, True, False]]; without mask_zero no mask, and compute_mask gives None."""
    emb = tk.layers.Embedding(5, 2, mask_zero=True)
    out = emb(np.array([[0, 1, 2, 0]]))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[False, True, True, False]])
    assert out._keras_mask.dtype == bool and emb.supports_masking
    np.testing.assert_array_equal(emb.compute_mask(np.array([[0, 3]])).numpy(), [[False, True]])
    np.testing.assert_array_equal(emb(np.array([[1.0, 0.0]]))._keras_mask.numpy(), [[True, False]])
    plain = tk.layers.Embedding(5, 2)
    assert not plain.supports_masking and plain.compute_mask(np.array([[0, 3]])) is None
    assert not hasattr(plain(np.array([[0, 1]])), "_keras_mask")
    config = emb.get_config()
    assert config["mask_zero"] is True            # Keras 3.15 writes it so
    assert tk.layers.Embedding.from_config(config).mask_zero is True


def test_masking_zeroes_and_masks_the_steps_equal_to_mask_value():
    """Keras 3.15: Masking()(x) keeps x where a step has a feature != mask_value, else 0, and
    masks those steps; on 2-D inputs the mask is one per row."""
    x = np.array([[[1.0], [0.0], [3.0]], [[0.0], [5.0], [6.0]]], np.float32)
    y = tk.layers.Masking()(x)
    np.testing.assert_array_equal(y.numpy(), x)
    np.testing.assert_array_equal(y._keras_mask.numpy(), [[True, False, True], [False, True, True]])
    z = tk.layers.Masking(mask_value=2.0)(np.array([[2.0, 2.0], [1.0, 2.0]], np.float32))
    np.testing.assert_array_equal(z.numpy(), [[0.0, 0.0], [1.0, 2.0]])
    np.testing.assert_array_equal(z._keras_mask.numpy(), [False, True])
    layer = tk.layers.Masking(mask_value=1.5, name="pad")
    assert layer.get_config()["mask_value"] == 1.5
    assert tk.layers.Masking.from_config(layer.get_config()).mask_value == 1.5
    assert layer.compute_output_shape((None, 4, 2)) == (None, 4, 2)
    with pytest.raises(TypeError, match=r"Masking: mask_value must be a number.*got 'x'"):
        tk.layers.Masking(mask_value="x")
    # the gradient: 1 at the kept steps (finite differences away from the masked value,
    # where the layer jumps), 0 at the masked ones (where's, as in Keras)
    check_grads(lambda v: tk.layers.Masking(mask_value=5.0, dtype="float64")(v) * 2.0, np.array([[[1.0, 0.0], [0.5, 0.25]]]))
    v = tk.constant([[[1.0, 0.0], [0.0, 0.0]]])
    with tk.GradientTape() as tape:
        tape.watch(v)
        out = tk.reduce_sum(tk.layers.Masking()(v) * 3.0)
    np.testing.assert_array_equal(tape.gradient(out, v).numpy(), [[[3.0, 3.0], [0.0, 0.0]]])


def test_dense_dropout_and_activations_pass_the_mask_on():
    """Keras 3.15's supports_masking is True for Dense, Dropout, Activation, ReLU, LeakyReLU
    and LayerNormalization: the mask of (batch, steps, features) inputs goes on unchanged."""
    m = tk.layers.Masking()(np.array([[[0.0, 0.0], [1.0, 2.0]]], np.float32))
    for layer in (tk.layers.Dense(3), tk.layers.Activation("relu"), tk.layers.ReLU(),
                  tk.layers.LeakyReLU(), tk.layers.LayerNormalization()):
        assert layer.supports_masking
        np.testing.assert_array_equal(layer(m)._keras_mask.numpy(), [[False, True]])
    drop = tk.layers.Dropout(0.5, seed=1)
    for training in (False, True):
        np.testing.assert_array_equal(drop(m, training=training)._keras_mask.numpy(), [[False, True]])


def test_layers_that_do_not_support_masking_drop_it_with_keras_3s_warning():
    """Keras 3.15 warns for Flatten, Reshape, Lambda, Conv1D, GlobalMaxPooling1D: "Layer
    'flatten' (of type Flatten) was passed an input with a mask attached to it. ...";
    the output then carries no mask."""
    m = tk.layers.Masking()(np.array([[[0.0, 0.0], [1.0, 2.0]]], np.float32))
    for layer in (tk.layers.Flatten(), tk.layers.Reshape((4,)), tk.layers.Lambda(lambda z: z * 2),
                  tk.layers.Conv1D(2, 1), tk.layers.GlobalMaxPooling1D()):
        assert not layer.supports_masking
        with pytest.warns(UserWarning, match=rf"^Layer '{layer.name}' \(of type {type(layer).__name__}\) "
                                             r"was passed an input with a mask attached to it\. "
                                             r"However, this layer does not support masking and "
                                             r"will therefore destroy the mask information\. "
                                             r"Downstream layers will not see the mask\.$"):
            out = layer(m)
        assert not hasattr(out, "_keras_mask")
