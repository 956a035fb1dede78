"""Keras' guide "Writing a training loop from scratch in TensorFlow" on tapekit (issue 23).

keras-team/keras-io guides/writing_a_custom_training_loop_in_tensorflow.py, with
`import keras` -> `import tapekit as keras`; "cell N" is the N-th run of code between the
guide's text blocks (tools/guides/extract.py). MNIST is replaced by NumPy arrays of its
shapes and dtypes; expected values come from NumPy.
"""
import numpy as np
import pytest

import tapekit as keras
import tapekit as tk


def missing(name):
    return pytest.mark.xfail(strict=True, reason=f"issue 23: {name} missing")


def _digits(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 256, size=(n, 784)).astype(np.uint8),
            rng.integers(0, 10, size=n).astype(np.uint8))


def test_first_end_to_end_model():
    # cell 1: Input(784) -> Dense(64, relu) -> Dense(64, relu) -> Dense(10)
    inputs = keras.Input(shape=(784,), name="digits")
    x = keras.layers.Dense(64, activation="relu")(inputs)
    x = keras.layers.Dense(64, activation="relu")(x)
    model = keras.Model(inputs=inputs, outputs=keras.layers.Dense(10, name="predictions")(x))
    assert [w.shape for w in model.trainable_weights] == [
        (784, 64), (64,), (64, 64), (64,), (64, 10), (10,)]


def test_optimizer_apply():
    # cell 3: optimizer.apply(grads, model.trainable_weights); Adam's first step (Keras 3:
    # m = 0.1 g, v = 0.001 g^2, lr_t = lr sqrt(1 - 0.999) / (1 - 0.9)) is
    # -lr_t m / (sqrt(v) + 1e-7), about -lr sign(g)
    x, y = _digits()
    model = keras.Sequential([keras.layers.Dense(10)])
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    with tk.GradientTape() as tape:
        loss_value = loss_fn(y, model(x.astype(np.float32) / 255, training=True))
    grads = tape.gradient(loss_value, model.trainable_weights)
    before = [w.numpy().copy() for w in model.trainable_weights]
    optimizer.apply(grads, model.trainable_weights)
    for w, b, g in zip(model.trainable_weights, before, grads):
        g = g.numpy().astype(np.float64)
        lr_t = 1e-3 * np.sqrt(1 - 0.999) / (1 - 0.9)
        step = lr_t * 0.1 * g / (np.sqrt(0.001 * g * g) + 1e-7)
        np.testing.assert_allclose(w.numpy(), b - step, rtol=1e-4, atol=1e-7)


def test_sparse_categorical_crossentropy_from_logits():
    # cells 2-3: the loss of a batch is the mean of -log softmax at the label
    logits = np.array([[2.0, 0.0, -1.0], [0.5, 0.5, 3.0]], np.float32)
    labels = np.array([0, 2], np.uint8)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(float(loss_fn(labels, logits)), -logp[[0, 1], [0, 2]].mean(),
                               rtol=1e-5)


def test_metrics_update_result_reset():
    # cells 4-5: update_state per batch, result over all batches, reset_state
    acc = keras.metrics.SparseCategoricalAccuracy()
    acc.update_state([1, 0], [[0.1, 0.9], [0.2, 0.8]])
    acc.update_state([1, 1], [[0.3, 0.7], [0.4, 0.6]])
    assert float(acc.result()) == 0.75
    acc.reset_state()
    assert float(acc.result()) == 0.0


def test_activity_regularization_losses():
    # cells 9-11: a layer adds 1e-2 * sum(inputs) to model.losses during the forward pass
    class ActivityRegularizationLayer(keras.layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * tk.reduce_sum(inputs))
            return inputs

    model = keras.Sequential([ActivityRegularizationLayer()])
    model(tk.constant([[1.0, 2.0, 3.0]]))
    np.testing.assert_allclose(float(sum(model.losses)), 0.06, rtol=1e-6)


def test_gan_layers_shapes():
    # cells 12, 13: the discriminator's and the generator's output shapes
    x = tk.constant(np.ones((2, 28, 28, 1), np.float32))
    h = keras.layers.Conv2D(64, (3, 3), strides=(2, 2), padding="same")(x)
    assert h.shape == (2, 14, 14, 64)
    assert keras.layers.LeakyReLU(negative_slope=0.2)(tk.constant([-1.0, 2.0])).numpy().tolist() \
        == pytest.approx([-0.2, 2.0])
    assert keras.layers.GlobalMaxPooling2D()(h).shape == (2, 64)
    z = keras.layers.Reshape((7, 7, 128))(tk.ones((2, 7 * 7 * 128)))
    up = keras.layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same")(z)
    assert up.shape == (2, 14, 14, 128)


def test_binary_crossentropy_from_logits():
    # cells 14-15: BinaryCrossentropy(from_logits=True) = mean(softplus(z) - y z)
    z = np.array([[0.3], [-1.2], [2.0]], np.float32)
    y = np.array([[1.0], [0.0], [0.05]], np.float32)
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
    want = np.mean(np.log1p(np.exp(z)) - y * z)
    np.testing.assert_allclose(float(loss_fn(y, z)), want, rtol=1e-5)
