"""BackupAndRestore (callbacks/backup_and_restore.py): an interrupted fit goes on where it stopped."""
import json
import os

import numpy as np
import pytest

import tapekit as tk

X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
Y = X[:, :1] * 3 + 1


def model():
    tk.random.set_seed(0)
    m = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1)])
    m.compile(optimizer="adam", loss="mse")
    return m


class Interrupt(tk.callbacks.Callback):
    def __init__(self, at):
        super().__init__()
        self.at = at

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.at:
            raise RuntimeError("interrupted")


def test_an_interrupted_fit_resumes_with_the_weights_and_the_optimizer_state(tmp_path):
    backup = str(tmp_path / "backup")
    whole = model()
    whole.fit(X, Y, epochs=4, batch_size=2, shuffle=False, verbose=0)
    m = model()
    with pytest.raises(RuntimeError, match="interrupted"):
        m.fit(X, Y, epochs=4, batch_size=2, shuffle=False, verbose=0,
              callbacks=[tk.callbacks.BackupAndRestore(backup), Interrupt(2)])
    # Keras 3.15 leaves ['latest.weights.h5', 'training_metadata.json'], {"epoch": 2, "batch": 0}
    assert sorted(os.listdir(backup)) == ["latest.weights.h5", "training_metadata.json"]
    assert json.loads((tmp_path / "backup" / "training_metadata.json").read_text()) == {
        "epoch": 2, "batch": 0}
    fresh = model()              # a new session: new weights, a new optimizer
    fresh.predict(X, verbose=0)
    history = fresh.fit(X, Y, epochs=4, batch_size=2, shuffle=False, verbose=0,
                        callbacks=[tk.callbacks.BackupAndRestore(backup)])
    assert history.epoch == [2, 3]            # Keras 3.15 gives [2, 3]
    assert not os.path.exists(backup)         # deleted once fit completes
    assert int(fresh.optimizer.iterations) == 8
    for a, b in zip(fresh.get_weights(), whole.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_the_next_fit_without_a_backup_starts_at_its_own_initial_epoch(tmp_path):
    m = model()
    backup = tk.callbacks.BackupAndRestore(str(tmp_path / "b"), delete_checkpoint=False)
    m.fit(X, Y, epochs=2, verbose=0, callbacks=[backup])
    assert m.fit(X, Y, epochs=3, verbose=0, callbacks=[backup]).epoch == [2]
    assert m.fit(X, Y, epochs=2, verbose=0).epoch == [0, 1]


def test_save_freq_backs_up_mid_epoch(tmp_path):
    m = model()
    backup = tk.callbacks.BackupAndRestore(str(tmp_path / "b"), save_freq=3,
                                           delete_checkpoint=False)
    m.fit(X, Y, epochs=1, batch_size=1, verbose=0, callbacks=[backup])
    assert json.loads((tmp_path / "b" / "training_metadata.json").read_text()) == {
        "epoch": 0, "batch": 2}


def test_double_checkpoint_falls_back_to_the_backup_before_a_damaged_one(tmp_path):
    m = model()
    folder = tmp_path / "b"
    backup = tk.callbacks.BackupAndRestore(str(folder), double_checkpoint=True,
                                           delete_checkpoint=False)
    m.fit(X, Y, epochs=2, verbose=0, callbacks=[backup])
    assert sorted(os.listdir(folder)) == ["latest.weights.h5", "latest.weights.h5.bkp",
                                          "training_metadata.json", "training_metadata.json.bkp"]
    (folder / "latest.weights.h5").write_bytes(b"damaged")
    history = model().fit(X, Y, epochs=3, verbose=0, callbacks=[backup])
    assert history.epoch == [1, 2]            # the backup before the last: after epoch 1


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="Empty `backup_dir` argument passed"):
        tk.callbacks.BackupAndRestore("")
    with pytest.raises(ValueError, match="Unrecognized save_freq"):
        tk.callbacks.BackupAndRestore("b", save_freq="batch")
