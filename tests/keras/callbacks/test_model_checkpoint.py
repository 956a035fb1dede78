"""ModelCheckpoint (callbacks/model_checkpoint.py): which files it writes, when, and what they hold."""
import os

import numpy as np
import pytest

import tapekit as tk

X = np.ones((4, 2), np.float32)
Y = np.ones((4, 1), np.float32)


def model():
    tk.random.set_seed(0)
    m = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1)])
    m.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
    return m


class Scripted(tk.callbacks.Callback):
    """Writes a scripted value into logs[key] at each epoch's end (before the checkpoint)."""

    def __init__(self, key, values):
        super().__init__()
        self.key, self.values = key, values

    def on_epoch_end(self, epoch, logs=None):
        logs[self.key] = self.values[epoch]


def test_save_best_only_writes_the_improving_epochs_with_keras_3s_words(tmp_path, capsys):
    m = model()
    path = str(tmp_path / "m-{epoch:02d}-{val_loss:.2f}.keras")
    save = tk.callbacks.ModelCheckpoint(path, save_best_only=True, verbose=1)
    m.fit(X, Y, epochs=4, verbose=0, validation_data=(X, Y),
          callbacks=[Scripted("val_loss", [0.5, 0.6, 0.4, 0.45]), save])
    # Keras 3.15 gives ['m-01-0.50.keras', 'm-03-0.40.keras'] and best 0.4
    assert sorted(os.listdir(tmp_path)) == ["m-01-0.50.keras", "m-03-0.40.keras"]
    assert save.best == 0.4
    out = capsys.readouterr().out
    first = str(tmp_path / "m-01-0.50.keras")
    assert (f"\nEpoch 1: val_loss improved from None to 0.50000, saving model to {first}\n"
            f"\nEpoch 1: finished saving model to {first}\n"
            "\nEpoch 2: val_loss did not improve from 0.50000\n") in out
    assert "Epoch 4: val_loss did not improve from 0.40000" in out


def test_the_saved_model_is_the_epochs_model(tmp_path):
    m = model()
    m.fit(X, Y, epochs=2, verbose=0, callbacks=[
        tk.callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}.keras"))])
    loaded = tk.models.load_model(tmp_path / "e2.keras")
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), m.predict(X, verbose=0))
    assert int(loaded.optimizer.iterations) == 2
    first = tk.models.load_model(tmp_path / "e1.keras")
    assert not np.array_equal(first.predict(X, verbose=0), m.predict(X, verbose=0))


def test_max_mode_and_initial_value_threshold(tmp_path):
    m = model()
    save = tk.callbacks.ModelCheckpoint(str(tmp_path / "{epoch}.weights.h5"), monitor="acc",
                                        mode="max", save_best_only=True,
                                        save_weights_only=True, initial_value_threshold=0.55)
    m.fit(X, Y, epochs=4, verbose=0, callbacks=[Scripted("acc", [0.5, 0.6, 0.58, 0.7]), save])
    # Keras 3.15 gives ['2.weights.h5', '4.weights.h5']: 0.5 does not beat the threshold
    assert sorted(os.listdir(tmp_path)) == ["2.weights.h5", "4.weights.h5"]


def test_save_freq_counts_batches_across_epochs(tmp_path, capsys):
    m = model()
    save = tk.callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}-b{batch}.weights.h5"),
                                        save_weights_only=True, save_freq=3, verbose=1)
    m.fit(X, Y, epochs=2, batch_size=1, verbose=0, callbacks=[save])
    # 8 batches (4 an epoch): saves after the 3rd and the 6th, i.e. epoch 1 batch 3, epoch 2
    # batch 2; Keras 3.15 gives ['e1-b3.weights.h5', 'e2-b2.weights.h5']
    assert sorted(os.listdir(tmp_path)) == ["e1-b3.weights.h5", "e2-b2.weights.h5"]
    # Keras 3.15 prints "Epoch 1: saving model to ..." then "Epoch 2: ..." for save_freq=3
    out = capsys.readouterr().out
    assert out.count(": saving model to") == 2 and "\nEpoch 2: saving model to" in out


def test_a_missing_directory_is_made(tmp_path):
    model().fit(X, Y, epochs=1, verbose=0, callbacks=[
        tk.callbacks.ModelCheckpoint(str(tmp_path / "a" / "b" / "m.keras"))])
    assert (tmp_path / "a" / "b" / "m.keras").exists()


def test_a_monitor_the_logs_lack_warns_and_saves(tmp_path):
    with pytest.warns(UserWarning, match="Can save best model only with val_loss available"):
        model().fit(X, Y, epochs=1, verbose=0, callbacks=[
            tk.callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), save_best_only=True)])
    assert (tmp_path / "m.keras").exists()


def test_a_failed_save_keeps_the_last_good_file(tmp_path):
    m = model()
    path = tmp_path / "m.weights.h5"
    save = tk.callbacks.ModelCheckpoint(str(path), save_weights_only=True)
    m.fit(X, Y, epochs=1, verbose=0, callbacks=[save])
    before = path.read_bytes()

    class Fail(tk.callbacks.Callback):      # the next save fails while it writes
        def on_epoch_end(self, epoch, logs=None):
            self.model.save_weights = broken

    def broken(filepath, overwrite=True):
        tk.keras.saving.files.write_whole(filepath, lambda tmp: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        m.fit(X, Y, epochs=1, verbose=0, callbacks=[Fail(), save])
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.weights.h5"]


@pytest.mark.parametrize("kwargs, message", [
    # Keras 3.15's messages
    (dict(filepath="a.h5", save_weights_only=True), "must end in `.weights.h5`"),
    (dict(filepath="a.txt"), "must end in `.keras`"),
    (dict(filepath="a.h5"), "tapekit writes no legacy .h5 model files"),
    (dict(filepath="a.keras", save_freq="batch"), "Unrecognized save_freq: 'batch'"),
    (dict(filepath="a.keras", save_freq=0), "positive integer"),
    (dict(filepath="a.keras", mode="biggest"), "mode must be 'auto', 'min' or 'max'"),
])
def test_bad_arguments_are_refused_at_once(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tk.callbacks.ModelCheckpoint(**kwargs)


def test_a_field_the_logs_lack_names_it(tmp_path):
    save = tk.callbacks.ModelCheckpoint(str(tmp_path / "{nope}.keras"))
    with pytest.raises(KeyError, match=r"Failed to format this callback filepath.*nope.*the logs: loss"):
        model().fit(X, Y, epochs=1, verbose=0, callbacks=[save])
