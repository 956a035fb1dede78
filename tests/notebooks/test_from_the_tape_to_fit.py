"""Off-page checks of lesson 19 (notebooks/19_from_the_tape_to_fit.md): claims about how
fit runs train_step that need more than the lesson's own cells."""
import contextlib
import io

import numpy as np
import pytest

import tapekit as tk


def _data(n=70):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 2)).astype(np.float32)
    return x, (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)


class _Printing(tk.Model):
    def __init__(self):
        super().__init__()
        self.dense = tk.layers.Dense(3)
        self.loss_fn = tk.losses.SparseCategoricalCrossentropy(from_logits=True)

    def call(self, x, training=None):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        print("python ran train_step")
        with tk.GradientTape() as tape:
            loss = self.loss_fn(y, self(x, training=True))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return {"loss": loss}


def test_a_python_print_in_train_step_shows_only_while_recording_unless_run_eagerly():
    """"a Python print in train_step shows only while recording; run_eagerly=True runs the
    step as plain Python at every batch". 70 examples: batches 32, 32, 6 (two shapes)."""
    x, y = _data()
    for run_eagerly, allowed in [(False, range(2, 5)), (True, [3 * 3])]:
        tk.random.set_seed(0)
        model = _Printing()
        model.compile(optimizer="sgd", run_eagerly=run_eagerly)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            model.fit(x, y, epochs=3, verbose=0)
        assert out.getvalue().count("python ran train_step") in allowed, run_eagerly


def test_optimizer_apply_is_apply_gradients():
    """"self.optimizer.apply(gradients, variables) is Keras 3's spelling of
    apply_gradients(zip(gradients, variables)): the same update"."""
    grads = [tk.constant([0.5, -1.0]), tk.constant(2.0)]
    a = [tk.Variable([1.0, 2.0]), tk.Variable(3.0)]
    b = [tk.Variable([1.0, 2.0]), tk.Variable(3.0)]
    opt_a, opt_b = tk.optimizers.Adam(0.1), tk.optimizers.Adam(0.1)
    for _ in range(3):
        opt_a.apply(grads, a)
        opt_b.apply_gradients(zip(grads, b))
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.numpy(), v.numpy())


def test_numpy_functions_on_a_variable_are_recorded_and_others_raise_inside_a_tape():
    """"the NumPy functions tapekit knows ... are recorded like tapekit's own ...; the
    others raise inside a tape"."""
    w = tk.Variable([1.0, 2.0, 3.0])
    with tk.GradientTape() as tape:
        loss = np.mean(np.sin(w))
    np.testing.assert_allclose(tape.gradient(loss, w).numpy(), np.cos([1.0, 2.0, 3.0]) / 3, rtol=1e-6)
    with tk.GradientTape():
        with pytest.raises(TypeError, match="numpy.fft.fft on a tensor that a GradientTape records"):
            np.fft.fft(w)
