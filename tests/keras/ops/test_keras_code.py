"""Keras 3 code that uses keras.ops, run with `import tapekit as keras` (issue 45): a layer and
a loss written with keras.ops train through the tape, with hand-derived numbers (the same
code with `import keras`, Keras 3.15.1, gives them too: 14.5, then w = (-0.7, -1.4))."""
import numpy as np
import pytest

import tapekit as keras


class WeightedSum(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return keras.ops.sum(x * self.w, axis=-1, keepdims=True)


def mse(y_true, y_pred):
    return keras.ops.mean(keras.ops.square(y_true - y_pred), axis=-1)


def test_a_layer_and_a_loss_written_with_keras_ops_train():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    y = np.array([[1.0], [2.0]], "float32")
    model = keras.Sequential([keras.Input((2,)), WeightedSum()])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss=mse)
    # w = (1, 1): predictions 3 and 7, errors 2 and 5, loss (4 + 25) / 2
    assert model.evaluate(x, y, verbose=0) == pytest.approx(14.5)
    model.fit(x, y, epochs=1, verbose=0)
    # d loss / d w = mean over the batch of 2 * error * x = ((4, 8) + (30, 40)) / 2 = (17, 24)
    np.testing.assert_allclose(model.layers[0].w.numpy(), [1 - 1.7, 1 - 2.4], rtol=1e-6)


def test_keras_idioms_give_keras_3s_types():
    x = keras.ops.convert_to_tensor(np.arange(6.0).reshape(2, 3))
    batch, features = keras.ops.shape(x)           # a tuple of ints, to unpack
    assert (batch, features) == (2, 3) and isinstance(batch, int)
    probs = keras.ops.softmax(x)
    assert keras.ops.convert_to_numpy(keras.ops.argmax(probs, axis=-1)).tolist() == [2, 2]
    mask = keras.ops.cast(keras.ops.not_equal(x, 0.0), "float32")
    assert float(keras.ops.sum(mask)) == 5.0
    if keras.backend.backend() == "tensorflow":    # never taken: tapekit is no TensorFlow
        raise AssertionError("tapekit said it is TensorFlow")
