"""Activations by name (keras/activations.py): Keras's arguments, values derived by hand,
lookup, serialize and deserialize."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.keras import activations

X = np.array([-2.0, -0.5, 0.0, 0.5, 3.0], dtype=np.float32)


@tk.saving.register_keras_serializable(package="test_activations")
def twice(x):
    return 2 * x


def test_relu_with_keras_arguments():
    np.testing.assert_array_equal(activations.relu(X).numpy(), [0, 0, 0, 0.5, 3])
    # below the threshold 1: negative_slope * (x - 1); at or above it: x; capped at 2
    y = activations.relu(X, negative_slope=0.1, max_value=2.0, threshold=1.0).numpy()
    np.testing.assert_allclose(y, [-0.3, -0.15, -0.1, -0.05, 2.0], rtol=1e-6)
    y = activations.relu(X, threshold=0.25).numpy()
    np.testing.assert_array_equal(y, [0, 0, 0, 0.5, 3])


def test_relu_at_its_threshold_is_zero_and_clips_to_zero_and_max_value():
    # Keras: x where x > threshold (strictly) else 0, clipped to [0, max_value], minus
    # negative_slope * relu(threshold - x). TF 2.21 gives relu([0.5, 1, 2], threshold=1) =
    # [0, 0, 2], and relu([-0.5, 1], threshold=-1, max_value=2) = [0, 1]
    x = tk.constant([0.5, 1.0, 2.0])
    np.testing.assert_array_equal(activations.relu(x, threshold=1.0).numpy(), [0, 0, 2])
    y = activations.relu(x, negative_slope=0.5, max_value=1.5, threshold=1.0).numpy()
    np.testing.assert_array_equal(y, [-0.25, 0, 1.5])
    y = activations.relu(tk.constant([-0.5, 1.0, -3.0]), threshold=-1.0, max_value=2.0).numpy()
    np.testing.assert_array_equal(y, [0, 1, 0])
    # the gradient at the threshold is 0, below it the slope (TF 2.21: [0.5, 0, 1])
    v = tk.Variable([0.5, 1.0, 2.0])
    with tk.GradientTape() as tape:
        y = activations.relu(v, negative_slope=0.5, threshold=1.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [0.5, 0, 1])


def test_leaky_relu_elu_and_their_alphas():
    np.testing.assert_allclose(activations.leaky_relu(X).numpy(), [-0.4, -0.1, 0, 0.5, 3], rtol=1e-6)
    expected = np.where(X > 0, X, 0.5 * (np.exp(X) - 1))
    np.testing.assert_allclose(activations.elu(X, alpha=0.5).numpy(), expected, rtol=1e-6)


def test_softmax_axis_and_linear():
    x = np.array([[1.0, 2.0], [3.0, 5.0]], dtype=np.float32)
    e = np.exp(x - x.max(0))
    np.testing.assert_allclose(activations.softmax(x, axis=0).numpy(), e / e.sum(0), rtol=1e-6)
    assert activations.linear(x) is x


def test_the_relu_gradient_below_the_threshold_is_the_slope():
    x = tk.constant(X)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.reduce_sum(activations.relu(x, negative_slope=0.1, threshold=1.0))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.1, 0.1, 0.1, 0.1, 1.0], rtol=1e-6)


def test_get_by_name_none_callable_and_unknown():
    assert activations.get("swish") is activations.get("silu")
    assert activations.get(None) is activations.linear
    assert activations.get(abs) is abs
    with pytest.raises(ValueError, match="Could not interpret activation identifier: 'rleu'. "
                                         "Known names: .*'relu'.*; or pass a callable"):
        activations.get("rleu")


def test_get_follows_the_shared_identifier_rule():
    # identifiers.resolve: a name in any case, a config dict, a class returned as it is
    # (Keras's activations.get returns any callable), and a number refused by name
    assert activations.get("ReLU") is activations.get("relu")
    config = {"module": "builtins", "class_name": "function", "config": "tanh",
              "registered_name": "function"}
    assert activations.get(config) is activations.get("tanh")
    assert activations.get(tk.layers.ReLU) is tk.layers.ReLU
    layer = tk.layers.ReLU(max_value=1.0)
    assert activations.get(layer) is layer
    with pytest.raises(ValueError, match="Could not interpret activation identifier: 3"):
        activations.get(3)


def test_serialize_names_built_ins_and_deserialize_reads_them_back():
    assert activations.serialize("relu") == "relu"
    assert activations.deserialize("softmax") is activations.get("softmax")
    config = activations.serialize(twice)
    assert config["registered_name"] == "test_activations>twice"
    assert isinstance(config, dict) and activations.deserialize(config) is twice
    assert activations.deserialize("mine", custom_objects={"mine": abs}) is abs


def test_keras_names_dense_layers_use_exponential_hard_sigmoid_mish_log_softmax():
    # Dense(3, activation="exponential") raised in tapekit; Keras 3.15 on TF 2.21 gives, at
    # x = [-4, -1, 0, 2, 5]: hard_sigmoid [0, 1/3, 1/2, 5/6, 1] (relu6(x + 3) / 6),
    # hard_silu = hard_swish = x * hard_sigmoid [0, -1/3, 0, 5/3, 5], mish = x tanh(softplus x)
    # [-0.0725917, -0.3034015, 0, 1.943959, 4.999552], log_sigmoid [-4.01815, -1.313262,
    # -log 2, -0.126928, -0.00671535].
    x = np.array([-4.0, -1.0, 0.0, 2.0, 5.0], "float32")
    xs = tk.constant(x)
    close = np.testing.assert_allclose
    close(activations.get("exponential")(xs).numpy(), np.exp(x), rtol=1e-6)
    close(activations.get("hard_sigmoid")(xs).numpy(), [0, 1 / 3, 0.5, 5 / 6, 1], rtol=1e-6)
    for name in ("hard_silu", "hard_swish"):
        close(activations.get(name)(xs).numpy(), [0, -1 / 3, 0, 5 / 3, 5], rtol=1e-6)
    close(activations.get("mish")(xs).numpy(), x * np.tanh(np.log1p(np.exp(x))), rtol=1e-6)
    close(activations.get("log_sigmoid")(xs).numpy(), -np.log1p(np.exp(-x)), rtol=1e-6)
    close(activations.get("log_softmax")(xs).numpy(), x - np.log(np.exp(x).sum()), rtol=1e-5)
    assert activations.serialize(activations.get("hard_swish")) == "hard_silu"   # Keras's name
    layer = tk.layers.Dense(1, activation="mish", use_bias=False)
    layer(np.ones((1, 1), "float32"))
    layer.set_weights([np.array([[2.0]], "float32")])
    with tk.GradientTape() as tape:           # d mish / dx at 2: tanh(sp) + x sech^2(sp) sigmoid(x)
        y = layer(tk.constant([[1.0]]))
    sp = np.log1p(np.exp(2.0))
    slope = np.tanh(sp) + 2.0 * (1 - np.tanh(sp) ** 2) / (1 + np.exp(-2.0))
    close(tape.gradient(y, layer.kernel).numpy(), [[slope]], rtol=1e-5)


def test_keras_sigmoid_and_softmax_keep_their_logits_for_the_losses():
    # Keras 3 sets `_keras_logits` on their outputs; tk.sigmoid's own output has none, and
    # a Dense given tk.sigmoid keeps it, as Keras 3.15 keeps tf.sigmoid (named "sigmoid" in
    # its config; its eager outputs are clipped by the losses, see tests/keras/losses)
    x = tk.constant([0.0, 2.0])
    y = tk.keras.activations.sigmoid(x)
    np.testing.assert_allclose(y.numpy(), [0.5, 1 / (1 + np.exp(-2.0))], rtol=1e-6)
    assert activations.keras_logits(y) is x
    assert activations.keras_logits(tk.keras.activations.softmax(x)) is x
    assert activations.keras_logits(tk.sigmoid(x)) is None
    dense = tk.layers.Dense(2, activation=tk.sigmoid)
    assert dense.activation is tk.sigmoid and dense.get_config()["activation"] == "sigmoid"
    softmax_dense = tk.layers.Dense(2, activation=tk.nn.softmax)
    assert softmax_dense.activation is tk.nn.softmax
    assert softmax_dense.get_config()["activation"] == "softmax"
    # read back from the config, it is Keras's softmax, as Keras 3.15 reads "softmax"
    assert tk.layers.Dense.from_config(softmax_dense.get_config()).activation is activations.softmax
