"""ModelCheckpoint: save the model (or its weights) during fit, every epoch or every N batches,
or only when a monitored number improves (Keras 3's callback).

    checkpoint = tk.callbacks.ModelCheckpoint("ckpt/model-{epoch:02d}-{val_loss:.2f}.keras",
                                              monitor="val_loss", save_best_only=True)
    model.fit(x, y, epochs=20, validation_split=0.2, callbacks=[checkpoint])

The files are written by `model.save` (.keras) and `model.save_weights` (.weights.h5), which
write each file whole under a name of its own and then move it into place: a save that fails
leaves the file of the last good save as it was.
"""
import os
import warnings

from .callback import Callback
from .early_stopping import resolve_mode

__all__ = ["ModelCheckpoint"]


def check_save_freq(owner, save_freq):
    """'epoch' or a positive number of batches, as Keras 3 accepts them."""
    if save_freq != "epoch" and (not isinstance(save_freq, int) or isinstance(save_freq, bool)
                                 or save_freq < 1):
        raise ValueError(f"{owner}: Unrecognized save_freq: {save_freq!r}. Expected save_freq "
                         f"are 'epoch' or a positive integer (a number of batches)")


class BatchCounter:
    """Counts the training batches seen since the last save, across epochs, as Keras 3 does
    for save_freq=N: `due(batch)` is True at every N-th batch."""

    def __init__(self, every):
        self.every, self.seen, self.last = every, 0, None

    def due(self, batch):
        # a batch index that does not grow means a new epoch began: count it from 0
        self.seen += batch + 1 if self.last is None or batch <= self.last else batch - self.last
        self.last = batch
        if self.seen >= self.every:
            self.seen = 0
            return True
        return False


class ModelCheckpoint(Callback):
    """Save the model or its weights while fit runs.

    filepath: where to write, ending in `.keras` (the whole model, `model.save`), or in
    `.weights.h5` with save_weights_only=True (`model.save_weights`). It may hold fields that
    are filled in at each save: `{epoch}` (counted from 1), `{batch}` (from 1, with an integer
    save_freq) and any number in the logs (`{val_loss:.2f}`); a field the logs lack raises
    KeyError naming it. A missing directory is made.
    monitor, mode ('auto', 'min', 'max'), save_best_only: save only when `monitor` beats the
    best value so far (the first value always does; `initial_value_threshold` sets a best to
    beat from the start). With save_best_only and a monitor the logs lack, a warning is given
    and the model is saved.
    save_freq: 'epoch' (at each epoch's end) or N (every N training batches).
    verbose=1 prints a line per save, in Keras 3's words.

    Beyond Keras: an unknown `mode` raises ValueError (Keras warns and uses 'auto'), and a
    filepath ending in `.h5` alone is refused (tapekit writes no legacy HDF5 model files).

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> model = tk.Sequential([tk.Input((1,)), tk.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> save = tk.callbacks.ModelCheckpoint(os.path.join(folder, "m-{epoch}.weights.h5"),
    ...                                     save_weights_only=True)
    >>> _ = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[save])
    >>> sorted(os.listdir(folder))
    ['m-1.weights.h5', 'm-2.weights.h5']
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"ModelCheckpoint: mode must be 'auto', 'min' or 'max', got {mode!r}")
        check_save_freq("ModelCheckpoint", save_freq)
        self.filepath = os.fspath(filepath)
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError(f"When using `save_weights_only=True` in `ModelCheckpoint`, the "
                             f"filepath provided must end in `.weights.h5` (Keras weights "
                             f"format). Received: filepath={self.filepath}")
        if not save_weights_only and not self.filepath.endswith(".keras"):
            hint = (" (tapekit writes no legacy .h5 model files: use .keras, or "
                    "save_weights_only=True with a name ending in .weights.h5)"
                    if self.filepath.endswith(".h5") else "")
            raise ValueError(f"The filepath provided must end in `.keras` (Keras model "
                             f"format). Received: filepath={self.filepath}{hint}")
        self.monitor, self.mode, self.verbose = monitor, mode, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.save_freq, self.best = save_freq, initial_value_threshold
        self._mode = mode if mode != "auto" else None
        self._batches = BatchCounter(save_freq) if save_freq != "epoch" else None
        self._current_epoch = 0

    def on_train_begin(self, logs=None):
        if self.save_best_only and self._mode is None:
            self._mode = resolve_mode(self, self.monitor, self.mode)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self._batches is not None and self._batches.due(batch):
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _save(self, epoch, batch, logs):
        logs = logs or {}
        filepath = self._filepath(epoch, batch, logs)
        if not self._should_save(epoch, logs, filepath):
            return
        directory = os.path.dirname(filepath)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if os.path.isdir(filepath):
            raise OSError(f"Please specify a non-directory filepath for ModelCheckpoint. "
                          f"Filepath used is an existing directory: {filepath}")
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")

    def _filepath(self, epoch, batch, logs):
        fields = dict(logs)
        fields["epoch"] = epoch + 1
        if batch is not None and "batch" not in logs:
            fields["batch"] = batch + 1
        try:
            return self.filepath.format(**fields)
        except KeyError as err:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {err} (the fields are epoch, batch with an integer "
                           f"save_freq, and the logs: {', '.join(sorted(logs)) or 'none'})"
                           ) from None

    def _should_save(self, epoch, logs, filepath):
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.",
                          stacklevel=3)
            return True
        if self._mode is None:
            self._mode = resolve_mode(self, self.monitor, self.mode) or "min"
        current = float(current)
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self.best is None or (current < self.best if self._mode == "min"
                                 else current > self.best):
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                      f"{current:.5f}, saving model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False
