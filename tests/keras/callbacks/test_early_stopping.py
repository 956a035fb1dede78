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


def run(stop, values, monitor="val_loss"):
    """Feed `values` as the monitored log of consecutive epochs until the callback stops fit;
    the epochs run."""
    stop.set_model(make_model())
    stop.on_train_begin()
    ran = []
    for epoch, value in enumerate(values):
        ran.append(epoch)
        stop.on_epoch_end(epoch, {monitor: value})
        if stop.model.stop_training:
            break
    return ran


def test_patience_counts_epochs_without_improvement():
    # best 1.0 at epoch 0; 1.0, 1.1, 1.2 do not beat it; patience 3 stops at epoch 3
    stop = tk.callbacks.EarlyStopping(patience=3)
    assert run(stop, [1.0, 1.0, 1.1, 1.2, 0.1]) == [0, 1, 2, 3]
    assert stop.stopped_epoch == 3 and stop.best == 1.0 and stop.best_epoch == 0


def test_a_baseline_not_beaten_keeps_the_count_running():
    # Keras's rule: an epoch that improves but does not beat the baseline still counts, and the
    # first epoch that does not improve stops once the count reaches patience
    values = [0.9, 0.8, 0.7, 0.75, 0.76]
    stop = tk.callbacks.EarlyStopping(patience=2, baseline=0.5)
    assert run(stop, values) == [0, 1, 2, 3] and stop.best == 0.7     # count 4 at epoch 3
    plain = tk.callbacks.EarlyStopping(patience=2)
    assert run(plain, values) == [0, 1, 2, 3, 4] and plain.stopped_epoch == 4   # count 1, 2
    below = tk.callbacks.EarlyStopping(patience=2, baseline=0.5)
    assert run(below, [0.4, 0.3, 0.35, 0.2, 0.1]) == [0, 1, 2, 3, 4]   # beats it: resets
    assert below.stopped_epoch == 0


def test_epochs_before_start_from_epoch_are_not_counted():
    stop = tk.callbacks.EarlyStopping(patience=1, start_from_epoch=3)
    assert run(stop, [0.1, 5.0, 6.0, 1.0, 2.0, 3.0]) == [0, 1, 2, 3, 4]
    assert stop.best == 1.0 and stop.best_epoch == 3


def test_min_delta_is_taken_as_a_distance():
    stop = tk.callbacks.EarlyStopping(monitor="val_accuracy", min_delta=-0.1, patience=0)
    assert stop.min_delta == 0.1
    assert run(stop, [0.5, 0.55], monitor="val_accuracy") == [0, 1]   # 0.05 up is no improvement
    assert stop.stopped_epoch == 1


def test_an_absent_monitor_warns_and_a_bad_mode_raises():
    stop = tk.callbacks.EarlyStopping(monitor="val_loss", patience=0)
    stop.set_model(make_model())
    stop.on_train_begin()
    with pytest.warns(UserWarning, match="`val_loss` which is not available. Available "
                                         "metrics are: loss"):
        stop.on_epoch_end(0, {"loss": 1.0})
    assert not stop.model.stop_training
    with pytest.raises(ValueError, match="mode must be 'auto', 'min' or 'max', got 'up'"):
        tk.callbacks.EarlyStopping(mode="up")


def test_verbose_prints_the_stop_and_the_restore(capsys):
    stop = tk.callbacks.EarlyStopping(monitor="loss", patience=0, verbose=1,
                                      restore_best_weights=True)
    run(stop, [1.0, 2.0], monitor="loss")
    stop.on_train_end()
    assert capsys.readouterr().out == ("Epoch 2: early stopping\n"
                                       "Restoring model weights from the end of the best epoch: 1.\n")
