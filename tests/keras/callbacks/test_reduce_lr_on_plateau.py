"""ReduceLROnPlateau (callbacks/reduce_lr_on_plateau.py): when and how far the rate falls."""
import numpy as np
import pytest

import tapekit as tk

X = np.ones((4, 2), np.float32)
Y = np.ones((4, 1), np.float32)


class Scripted(tk.callbacks.Callback):
    def __init__(self, key, values):
        super().__init__()
        self.key, self.values, self.rates = key, values, []

    def on_epoch_end(self, epoch, logs=None):
        logs[self.key] = self.values[epoch]


class Rates(tk.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.rates = []

    def on_epoch_end(self, epoch, logs=None):
        self.rates.append(float(self.model.optimizer.learning_rate))


def test_patience_cooldown_and_min_lr_as_keras_3(capsys):
    tk.random.set_seed(0)
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1)])
    model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
    rates = Rates()
    reduce = tk.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, cooldown=1,
                                            min_lr=0.02, verbose=1)
    history = model.fit(X, Y, epochs=8, verbose=0, callbacks=[
        Scripted("loss", [1.0, 0.9, 0.95, 0.97, 0.99, 0.98, 0.97, 0.96]), reduce, rates])
    # Keras 3.15 gives these rates after each epoch, and these logged (before the reduction)
    assert rates.rates == [0.10000000149011612, 0.10000000149011612, 0.05000000074505806,
                           0.02500000037252903, 0.019999999552965164, 0.019999999552965164,
                           0.019999999552965164, 0.019999999552965164]
    assert history.history["learning_rate"] == [
        0.10000000149011612, 0.10000000149011612, 0.10000000149011612, 0.05000000074505806,
        0.02500000037252903, 0.019999999552965164, 0.019999999552965164, 0.019999999552965164]
    # Keras 3.15 prints these three lines (the last one at min_lr)
    assert capsys.readouterr().out == (
        "\nEpoch 3: ReduceLROnPlateau reducing learning rate to 0.05000000074505806.\n"
        "\nEpoch 4: ReduceLROnPlateau reducing learning rate to 0.02500000037252903.\n"
        "\nEpoch 5: ReduceLROnPlateau reducing learning rate to 0.02.\n")


def test_max_mode_waits_for_a_rise_of_min_delta():
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1)])
    model.compile(optimizer=tk.optimizers.SGD(1.0), loss="mse")
    reduce = tk.callbacks.ReduceLROnPlateau(monitor="val_accuracy", patience=2, min_delta=0.1)
    reduce.set_model(model)
    reduce.on_train_begin()
    for epoch, acc in enumerate([0.5, 0.55, 0.58]):   # neither beats 0.5 by 0.1
        reduce.on_epoch_end(epoch, {"val_accuracy": acc})
    assert reduce.wait == 0 and float(model.optimizer.learning_rate) == pytest.approx(0.1)


def test_a_missing_monitor_warns_and_changes_nothing():
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1)])
    model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
    with pytest.warns(UserWarning, match="conditioned on metric `val_loss` which is not "
                                         "available. Available metrics are: loss"):
        model.fit(X, Y, epochs=2, verbose=0,
                  callbacks=[tk.callbacks.ReduceLROnPlateau(patience=0)])
    assert float(model.optimizer.learning_rate) == pytest.approx(0.1)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(factor=1.0), ValueError, "does not support a factor >= 1.0. Received factor=1.0"),
    (dict(mode="up"), ValueError, "mode must be 'auto', 'min' or 'max'"),
    (dict(epsilon=1e-3), TypeError, "unexpected arguments"),
])
def test_bad_arguments_are_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        tk.callbacks.ReduceLROnPlateau(**kwargs)
