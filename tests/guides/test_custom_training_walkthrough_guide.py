"""TensorFlow's tutorial "Custom training: walkthrough" on tapekit (issue 23).

Cells of tensorflow/docs site/en/tutorials/customization/custom_training_walkthrough.ipynb
(numbered as tools/guides/extract.py prints them) re-stated in our own code. The penguins
download is replaced by NumPy data of its shapes and dtypes: float32 features (N, 4) in
[0, 1], int64 labels 0..2, batches of 32. Expected values come from NumPy.
"""
import numpy as np
import pytest

import tapekit as tk


def missing(name):
    return pytest.mark.xfail(strict=True, reason=f"issue 23: {name} missing")


def _penguins_batch(n=32, seed=23):
    rng = np.random.default_rng(seed)
    features = rng.uniform(0.0, 1.0, size=(n, 4)).astype(np.float32)
    return features, rng.integers(0, 3, size=n).astype(np.int64)


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def _model():
    return tk.keras.Sequential([
        tk.keras.layers.Dense(10, activation=tk.nn.relu, input_shape=(4,)),
        tk.keras.layers.Dense(10, activation=tk.nn.relu),
        tk.keras.layers.Dense(3)])


def _forward(model, x):
    for layer in model.layers:
        x = x @ layer.kernel.numpy() + layer.bias.numpy()
        x = np.maximum(x, 0) if layer is not model.layers[-1] else x
    return x


def test_model_top_level_sequential():
    # custom_training_walkthrough.ipynb cell 26 is written tf.keras.Sequential -> tk.Sequential
    assert tk.Sequential is tk.keras.Sequential


def test_use_the_model_and_loss():
    # cells 29, 31, 36, 37: logits (32, 3); softmax rows sum to 1; the loss is the mean of
    # -log softmax at the label
    features, labels = _penguins_batch()
    model = _model()
    predictions = model(features)
    assert predictions.shape == (32, 3)
    np.testing.assert_allclose(predictions.numpy(), _forward(model, features), rtol=1e-4,
                               atol=1e-6)
    np.testing.assert_allclose(tk.nn.softmax(predictions[:5]).numpy().sum(axis=1), 1.0,
                               rtol=1e-6)
    loss_object = tk.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    l = loss_object(y_true=labels, y_pred=model(features, training=False))
    want = -_log_softmax(_forward(model, features))[np.arange(32), labels].mean()
    np.testing.assert_allclose(l.numpy(), want, rtol=1e-4)


def test_one_optimizer_step():
    # cells 39-44: SGD(0.01); iterations 0 -> 1; each variable moves by -0.01 * its gradient
    features, labels = _penguins_batch()
    model = _model()
    loss_object = tk.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tk.keras.optimizers.SGD(learning_rate=0.01)
    with tk.GradientTape() as tape:
        loss_value = loss_object(labels, model(features, training=True))
    grads = tape.gradient(loss_value, model.trainable_variables)
    before = [v.numpy().copy() for v in model.trainable_variables]
    assert int(optimizer.iterations.numpy()) == 0
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    assert int(optimizer.iterations.numpy()) == 1
    for v, b, g in zip(model.trainable_variables, before, grads):
        np.testing.assert_allclose(v.numpy(), b - 0.01 * g.numpy(), rtol=1e-5, atol=1e-7)


def test_argmax_predictions():
    # cells 33, 54, 59: the predicted class is the argmax of the logits (int64 on request)
    logits = tk.constant([[0.1, 2.0, -1.0], [3.0, 0.0, 0.5]])
    np.testing.assert_array_equal(tk.math.argmax(logits, axis=1).numpy(), [1, 0])
    assert tk.math.argmax(logits, axis=1, output_type=tk.int64).dtype == np.int64
    assert int(tk.math.argmax(logits[0]).numpy()) == 1


def test_training_loop_metrics():
    # cells 46, 54: running mean of batch losses; accuracy of argmax(logits) vs labels
    mean = tk.keras.metrics.Mean()
    for v in (1.0, 2.0, 6.0):
        mean.update_state(v)
    np.testing.assert_allclose(mean.result().numpy(), 3.0)
    acc = tk.keras.metrics.SparseCategoricalAccuracy()
    acc.update_state([0, 1, 2, 1], [[2, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(acc.result().numpy(), 0.5)
    test_accuracy = tk.keras.metrics.Accuracy()
    test_accuracy([1, 2, 0], [1, 2, 2])
    np.testing.assert_allclose(test_accuracy.result().numpy(), 2 / 3, rtol=1e-6)


def test_softmax_probability_of_prediction():
    # cell 59: p = softmax(logits)[argmax] printed as a percentage
    logits = tk.constant([0.5, 2.0, 1.0])
    e = np.exp([0.5, 2.0, 1.0])
    np.testing.assert_allclose(tk.nn.softmax(logits)[1].numpy(), e[1] / e.sum(), rtol=1e-6)
