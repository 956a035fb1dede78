"""The training loops of the seed tutorials, with tf. replaced by tk. (seeds 000 and 002)."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers, losses, models, optimizers


# --- seed 002: LinearModel(tk.Module) trained by SGD ---------------------------------------
class LinearModel(tk.Module):
    def __init__(self, w=2.0, b=1.0):
        self.w = tk.Variable(w)
        self.b = tk.Variable(b)

    def __call__(self, x):
        return self.w * x + self.b


def train_linear(model, epochs=100):
    x = tk.constant([1.0, 2.0, 3.0])
    y = tk.constant([3.0, 5.0, 7.0])

    def loss_fn(y_true, y_pred):
        return tk.reduce_mean(tk.square(y_true - y_pred))
    optimizer = tk.keras.optimizers.SGD(learning_rate=0.01)   # the seed's spelling, tf. -> tk.
    printed = []
    for epoch in range(epochs):
        with tk.GradientTape() as tape:
            predictions = model(x)
            loss = loss_fn(y, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        if epoch % 10 == 0:
            print(f"Epoch {epoch}, Loss: {loss.numpy()}")
            printed.append(float(loss.numpy()))
    print(f"Final w: {model.w.numpy()}, b: {model.b.numpy()}")
    return printed


def test_seed002_starts_at_the_solution_and_stays_there(capsys):
    # The seed's model starts at w=2, b=1, which fits y = 2x + 1 exactly.
    model = LinearModel()
    train_linear(model)
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["Epoch 0, Loss: 0.0", "Epoch 10, Loss: 0.0"] and len(out) == 11
    assert out[-1] == "Final w: 2.0, b: 1.0"


def test_seed002_from_elsewhere_converges_near_w2_b1(capsys):
    model = LinearModel(0.0, 0.0)
    printed = train_linear(model)
    assert all(a > b for a, b in zip(printed, printed[1:]))      # falls at every print
    assert printed[0] == pytest.approx(83 / 3) and printed[-1] < 0.01
    assert abs(model.w.numpy() - 2) < 0.1 and abs(model.b.numpy() - 1) < 0.15
    train_linear(model, epochs=1000)
    assert abs(model.w.numpy() - 2) < 0.01 and abs(model.b.numpy() - 1) < 0.02


# --- seed 000: Sequential + Adam + MSE, custom loop, then @tk.function -------------------------
def seed000(traced=False, clip=None, epochs=10):
    tk.random.set_seed(0)
    layers.clear_session()
    model = models.Sequential([
        layers.Dense(64, activation="relu", input_shape=(10,)),
        layers.Dense(32, activation="relu"),
        layers.Dense(1),
    ])
    optimizer = optimizers.Adam(learning_rate=0.001)
    loss_fn = losses.MeanSquaredError()
    x_train = tk.random.normal((100, 10))
    y_train = tk.random.normal((100, 1))
    norms = []

    def train_step(model, x_batch, y_batch, optimizer, loss_fn):
        with tk.GradientTape() as tape:
            predictions = model(x_batch, training=True)
            loss = loss_fn(y_batch, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        if clip == "norm":
            gradients = [tk.clip_by_norm(g, 1.0) for g in gradients]
        elif clip == "global":
            gradients, _ = tk.clip_by_global_norm(gradients, 1.0)
        norms.append(gradients)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss
    step = tk.function(train_step) if traced else train_step
    history = []
    for epoch in range(epochs):
        print(f"Epoch {epoch + 1}/{epochs}")
        for i in range(0, len(x_train), 32):
            loss = step(model, x_train[i:i + 32], y_train[i:i + 32], optimizer, loss_fn)
            history.append(loss.numpy())
        print(f"Loss: {loss.numpy():.4f}")
    return np.array(history).reshape(epochs, 4), model, step, norms


def test_seed000_loop_runs_and_the_loss_falls(capsys):
    history, model, _, _ = seed000()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Epoch 1/10" and out[1].startswith("Loss: ") and len(out) == 20
    per_epoch = history.mean(axis=1)
    assert per_epoch[-1] < 0.85 * per_epoch[0]                   # about 0.73 of it
    assert all(a > b for a, b in zip(per_epoch, per_epoch[1:]))
    assert history.dtype == np.float32


def test_seed000_under_tk_function_gives_the_same_losses_and_weights():
    eager, eager_model, _, _ = seed000()
    traced, traced_model, step, _ = seed000(traced=True)
    np.testing.assert_array_equal(eager, traced)
    for a, b in zip(eager_model.variables, traced_model.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # Two signatures: full batches of 32 and the last batch of 4; the first call makes Adam's
    # slots and so traces twice (TF 2.21 counts 3 for this loop too).
    assert step.trace_count == 3


@pytest.mark.parametrize("clip", ["norm", "global"])
def test_seed000_with_gradient_clipping(clip):
    history, _, _, grads = seed000(clip=clip, epochs=3)
    for step_grads in grads:
        norms = [np.linalg.norm(g.numpy()) for g in step_grads]
        if clip == "norm":
            assert max(norms) <= 1.0 + 1e-5
        else:
            assert np.sqrt(sum(n * n for n in norms)) <= 1.0 + 1e-5
    assert history[-1].mean() < history[0].mean()
    traced, _, step, _ = seed000(traced=True, clip=clip, epochs=3)
    np.testing.assert_array_equal(history, traced)
    assert step.trace_count == 3


def test_keras_spellings_are_aliases():
    from tapekit.keras import layers as keras_layers
    assert keras_layers is layers and tk.keras.optimizers is optimizers
    assert tk.keras.losses is losses and tk.keras.Sequential is models.Sequential
