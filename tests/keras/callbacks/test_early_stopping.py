"""EarlyStopping (callbacks/early_stopping.py): when it stops, which weights it restores, its mode."""
import numpy as np
import pytest

import tapekit as tk


def make_model(seed=0, units=(5, 3)):
    tk.random.set_seed(seed)
    model = tk.Sequential([tk.layers.Dense(units[0], activation="relu", input_shape=(4,)),
                           tk.layers.Dense(units[1])])
    return model


def data(n=20, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)
    return x, y


def weights(model):
    return [v.numpy().copy() for v in model.trainable_variables]


class Scripted(tk.callbacks.Callback):
    """Overwrites logs[key] with a scripted value per epoch and records the weights."""

    def __init__(self, key, values):
        super().__init__()
        self.key, self.values, self.weights = key, values, []

    def on_epoch_end(self, epoch, logs=None):
        logs[self.key] = self.values[epoch]
        self.weights.append(weights(self.model))


@pytest.mark.parametrize("restore", [False, True])
def test_early_stopping_stops_at_the_right_epoch(restore):
    x, y = data(8)
    model = make_model()
    model.compile(optimizer="adam", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True))
    script = Scripted("val_loss", [1.0, 0.8, 0.79, 0.9, 0.85, 0.95, 0.5, 0.4])
    stop = tk.callbacks.EarlyStopping(patience=2, min_delta=0.05, restore_best_weights=restore)
    history = model.fit(x, y, epochs=8, verbose=0, callbacks=[script, stop])
    # best 0.8 at epoch 1 (0.79 is not 0.05 better); epochs 2 and 3 wait; stop after epoch 3
    assert history.epoch == [0, 1, 2, 3] and stop.stopped_epoch == 3 and stop.best_epoch == 1
    expected = script.weights[1] if restore else script.weights[3]
    for w, e in zip(weights(model), expected):
        np.testing.assert_array_equal(w, e)


def test_early_stopping_max_mode_for_accuracy():
    stop = tk.callbacks.EarlyStopping(monitor="val_accuracy", patience=0)
    stop.set_model(make_model())
    stop.on_train_begin()
    for epoch, acc in enumerate([0.5, 0.6, 0.55]):
        stop.on_epoch_end(epoch, {"val_accuracy": acc})
    assert stop.stopped_epoch == 2 and stop.best == 0.6
