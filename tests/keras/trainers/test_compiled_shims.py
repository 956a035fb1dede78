"""Model.compiled_loss / compiled_metrics: Keras 2's names in a custom train_step, with Keras 3's
shims' numbers (Keras 3.15 ran the same step: the values below are its history)."""
import warnings

import numpy as np
import pytest

import tapekit as tk


class Keras2Style(tk.Model):
    def train_step(self, data):
        x, y = data
        with tk.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def test_a_keras2_train_step_gives_keras3s_numbers_and_its_deprecation_warnings():
    inp = tk.Input(shape=(3,))
    out = tk.layers.Dense(1, kernel_initializer="ones", kernel_regularizer=tk.regularizers.L2(0.1))(inp)
    model = Keras2Style(inp, out)
    model.compile(optimizer=tk.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    y = np.array([[1], [2], [0], [3]], np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(x, y, epochs=3, batch_size=2, shuffle=False, verbose=0)
    messages = {str(w.message).split(" is deprecated")[0] + " is deprecated" for w in caught}
    assert "`model.compiled_loss()` is deprecated" in messages
    assert "`model.compiled_metrics()` is deprecated" in messages
    # Keras 3.15: the shim updates the "loss" tracker (a Mean) with y_pred, so "loss" is the
    # mean prediction; the weights follow the true loss (mse + the L2 penalty).
    np.testing.assert_allclose(history.history["loss"], [1.70036, 1.53329, 1.43653], atol=1e-5)
    np.testing.assert_allclose(history.history["mae"], [0.95036, 0.96705, 1.00462], atol=1e-5)
    np.testing.assert_allclose(model.layers[-1].kernel.numpy().ravel(),
                               [0.82052, 0.81704, 0.81356], atol=1e-5)


def test_compiled_loss_is_compute_loss_with_the_models_own_losses():
    model = tk.Sequential([tk.Input(shape=(2,)), tk.layers.Dense(
        1, kernel_initializer="ones", use_bias=False, kernel_regularizer=tk.regularizers.L2(0.5))])
    model.compile(loss="mse")
    x, y = np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)
    with pytest.warns(UserWarning, match="compiled_loss"):
        loss = model.compiled_loss(y, model(x))
    assert float(loss) == pytest.approx(4.0 + 0.5 * 2)      # mse of 2s, plus 0.5 * (1 + 1)
