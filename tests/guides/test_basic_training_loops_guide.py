"""TensorFlow's guide "Basic training loops" on tapekit (issue 23).

Cells of tensorflow/docs site/en/guide/basic_training_loops.ipynb (numbered as
tools/guides/extract.py prints them) re-stated in our own code. The guide's data is random
(noise); here the noise comes from NumPy with a seed, and the expected weights come from
the same gradient-descent steps written out in NumPy.
"""
import numpy as np

import tapekit as tk

TRUE_W, TRUE_B = 3.0, 2.0


def _data(n=201):
    # basic_training_loops.ipynb cell 9: y = 3x + 2 + noise on linspace(-2, 2, 201)
    x = np.linspace(-2, 2, n).astype(np.float32)
    noise = np.random.default_rng(9).normal(size=n).astype(np.float32)
    return x, x * TRUE_W + TRUE_B + noise


class MyModel(tk.Module):
    # basic_training_loops.ipynb cell 13
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tk.Variable(5.0)
        self.b = tk.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


def loss(target_y, predicted_y):
    # basic_training_loops.ipynb cell 16
    return tk.reduce_mean(tk.square(target_y - predicted_y))


def _numpy_descent(x, y, epochs=10, lr=0.1):
    """(w, b, loss) after each epoch of full-batch gradient descent on mean squared error."""
    w, b, out = 5.0, 0.0, []
    x, y = x.astype(np.float64), y.astype(np.float64)
    for _ in range(epochs):
        r = y - (w * x + b)
        w, b = w + lr * 2 * np.mean(r * x), b + lr * 2 * np.mean(r)
        out.append((w, b, np.mean((y - (w * x + b)) ** 2)))
    return out


def test_model_variables_and_call():
    # basic_training_loops.ipynb cell 13: variables sorted by attribute name (b, w); 5*3 + 0
    model = MyModel()
    assert [v.numpy() for v in model.variables] == [0.0, 5.0]
    assert model(3.0).numpy() == 15.0


def test_training_loop_matches_gradient_descent():
    # basic_training_loops.ipynb cells 18-24: the loss before, then 10 epochs at lr 0.1
    x_np, y_np = _data()
    x, y = tk.constant(x_np), tk.constant(y_np)
    model = MyModel()
    np.testing.assert_allclose(loss(y, model(x)).numpy(), np.mean((y_np - 5 * x_np) ** 2),
                               rtol=1e-5)
    for w, b, l in _numpy_descent(x_np, y_np):
        with tk.GradientTape() as t:
            current_loss = loss(y, model(x))
        dw, db = t.gradient(current_loss, [model.w, model.b])
        model.w.assign_sub(0.1 * dw)
        model.b.assign_sub(0.1 * db)
        np.testing.assert_allclose([model.w.numpy(), model.b.numpy()], [w, b], rtol=1e-4)
        np.testing.assert_allclose(loss(y, model(x)).numpy(), l, rtol=1e-4)


def test_same_solution_with_keras_fit():
    # basic_training_loops.ipynb cells 30-34: a Model subclass; fit with SGD(0.1), MSE and
    # batch_size 1000 > 201 is one full batch per epoch: the same 10 steps as above.
    # For the lead: under TensorFlow 2.21 + Keras 3.15 this guide cell trains nothing (Keras 3
    # does not track a tf.Variable attribute of a Model, w stays 5.0) and tf.keras.losses has
    # no mean_squared_error (keras.losses has); the guide's text expects training, as here.
    class MyModelKeras(tk.keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = tk.Variable(5.0)
            self.b = tk.Variable(0.0)

        def call(self, x):
            return self.w * x + self.b

    x_np, y_np = _data()
    keras_model = MyModelKeras()
    keras_model.compile(run_eagerly=False, optimizer=tk.keras.optimizers.SGD(learning_rate=0.1),
                        loss=tk.keras.losses.mean_squared_error)
    keras_model.fit(x_np, y_np, epochs=10, batch_size=1000, verbose=0)
    w, b, _ = _numpy_descent(x_np, y_np)[-1]
    np.testing.assert_allclose([keras_model.w.numpy(), keras_model.b.numpy()], [w, b], rtol=1e-4)
