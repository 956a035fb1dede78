"""BackupAndRestore: keep a backup of an interrupted fit (weights, optimizer state, epoch) and
go on from it when fit runs again (Keras 3's callback and files).

    backup = tk.callbacks.BackupAndRestore(backup_dir="backup")
    model.fit(x, y, epochs=10, callbacks=[backup])   # interrupted at epoch 4 ...
    model.fit(x, y, epochs=10, callbacks=[backup])   # ... starts at epoch 5 with its weights

The backup is Keras 3's: `latest.weights.h5` (`model.save_weights`, with the optimizer's
slots) and `training_metadata.json` ({"epoch": ..., "batch": ...}), so Keras 3 resumes from a
tapekit backup and the other way round. Both files are written whole and moved into place, so
an interruption during a save leaves the previous backup as it was.
"""
import json
import os
import shutil

from .callback import Callback
from .model_checkpoint import BatchCounter, check_save_freq

__all__ = ["BackupAndRestore"]


class BackupAndRestore(Callback):
    """Back up the training state at each epoch's end (or every `save_freq` batches), restore
    it when fit starts, and delete the backup when fit completes (delete_checkpoint=True).

    fit starts at the epoch after the last one backed up (the `epochs` it is given still
    count from 0). With double_checkpoint=True the backup before the last is kept too
    (`*.bkp`), and used when the last one cannot be read.

    >>> import os, tempfile
    >>> folder = os.path.join(tempfile.mkdtemp(), "backup")
    >>> model = tk.Sequential([tk.Input((1,)), tk.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> backup = tk.callbacks.BackupAndRestore(folder, delete_checkpoint=False)
    >>> _ = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[backup])
    >>> sorted(os.listdir(folder))
    ['latest.weights.h5', 'training_metadata.json']
    >>> model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=3, verbose=0, callbacks=[backup]).epoch
    [2]
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False,
                 delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        check_save_freq("BackupAndRestore", save_freq)
        self.backup_dir, self.save_freq = os.fspath(backup_dir), save_freq
        self.double_checkpoint, self.delete_checkpoint = double_checkpoint, delete_checkpoint
        self._weights_path = os.path.join(self.backup_dir, "latest.weights.h5")
        self._training_metadata_path = os.path.join(self.backup_dir, "training_metadata.json")
        self._prev_weights_path = self._weights_path + ".bkp"
        self._prev_training_metadata_path = self._training_metadata_path + ".bkp"
        self._batches = BatchCounter(save_freq) if save_freq != "epoch" else None
        self._current_epoch, self._last_batch_seen = 0, 0

    def on_train_begin(self, logs=None):
        if not self.model.built:
            raise ValueError(f"To use the BackupAndRestore callback, your model must be built "
                             f"before you call `fit()`. Model {self.model.name!r} is unbuilt: "
                             f"build it by calling it on a batch of data")
        try:
            self._load_model()
        except (OSError, ValueError):    # a damaged file: load_weights raises ValueError
            if not os.path.exists(self._prev_weights_path):
                raise
            # the last backup cannot be read: go back to the one before it
            shutil.copyfile(self._prev_weights_path, self._weights_path)
            if os.path.exists(self._prev_training_metadata_path):
                shutil.copyfile(self._prev_training_metadata_path, self._training_metadata_path)
            elif os.path.exists(self._training_metadata_path):
                os.remove(self._training_metadata_path)
            self._load_model()

    def _load_model(self):
        if os.path.exists(self._weights_path):
            optimizer = self.model.optimizer
            if optimizer is not None and not getattr(optimizer, "built", True):
                optimizer.build(self.model.trainable_variables)   # its slots, to be loaded
            self.model.load_weights(self._weights_path)
        if os.path.exists(self._training_metadata_path):
            with open(self._training_metadata_path, encoding="utf-8") as f:
                metadata = json.loads(f.read())
            self.model._initial_epoch = metadata["epoch"]     # fit reads it after this hook
            self._current_epoch = metadata["epoch"]

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch, self._last_batch_seen = epoch + 1, 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch, logs=None):
        if self._batches is not None and self._batches.due(batch):
            self._last_batch_seen = batch
            self._save_model()

    def _save_model(self):
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint:
            for path, previous in ((self._weights_path, self._prev_weights_path),
                                   (self._training_metadata_path,
                                    self._prev_training_metadata_path)):
                if os.path.exists(path):
                    shutil.copyfile(path, previous)
        self.model.save_weights(self._weights_path, overwrite=True)   # written whole
        metadata = json.dumps({"epoch": self._current_epoch, "batch": self._last_batch_seen})
        partial = self._training_metadata_path + ".partial"
        with open(partial, "w", encoding="utf-8") as f:
            f.write(metadata)
        os.replace(partial, self._training_metadata_path)   # whole, in one step

    def on_train_end(self, logs=None):
        if self.delete_checkpoint and os.path.exists(self.backup_dir):
            shutil.rmtree(self.backup_dir)
