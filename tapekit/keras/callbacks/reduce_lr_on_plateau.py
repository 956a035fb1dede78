"""ReduceLROnPlateau: multiply the learning rate by `factor` when a monitored number has
stopped improving for `patience` epochs (Keras 3's callback)."""
import warnings

import numpy as np

from .callback import Callback
from .early_stopping import resolve_mode

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(Callback):
    """Reduce the optimizer's learning rate when `monitor` plateaus (Keras 3's rule).

    At each epoch's end: a value that beats the best so far by more than `min_delta` resets
    the wait; otherwise the wait grows, and at `patience` the learning rate becomes
    max(lr * factor, min_lr) (unless it is at min_lr already), after which `cooldown`
    epochs pass before the wait counts again. The epoch's logs get the learning rate it
    trained with, as `logs["learning_rate"]` (so History records it).

    >>> model = tk.Sequential([tk.Input((1,)), tk.layers.Dense(1)])
    >>> model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
    >>> reduce = tk.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1)
    >>> reduce.set_model(model); reduce.on_train_begin()
    >>> for epoch, loss in enumerate([1.0, 0.9, 0.95]):
    ...     reduce.on_epoch_end(epoch, {"loss": loss})
    >>> round(float(model.optimizer.learning_rate), 6)
    0.05
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):
        super().__init__()
        if kwargs:
            raise TypeError(f"ReduceLROnPlateau: unexpected arguments {sorted(kwargs)}")
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. "
                             f"Received factor={factor}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"ReduceLROnPlateau: mode must be 'auto', 'min' or 'max', got "
                             f"{mode!r}")
        self.monitor, self.mode, self.factor, self.patience = monitor, mode, factor, patience
        self.verbose, self.min_delta, self.cooldown, self.min_lr = (verbose, abs(min_delta),
                                                                    cooldown, min_lr)
        self._mode = mode if mode != "auto" else None
        self._reset()

    def _reset(self):
        self.best, self.wait, self.cooldown_counter = None, 0, 0

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        self._reset()
        self._mode = resolve_mode(self, self.monitor, self.mode)

    def _improves(self, value):
        if self.best is None:
            return True
        if self._mode == "min":
            return value + self.min_delta < self.best
        return value - self.min_delta > self.best

    def on_epoch_end(self, epoch, logs=None):
        if self._mode is None:
            self._mode = resolve_mode(self, self.monitor, self.mode) or "min"
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = float(optimizer.learning_rate)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Learning rate reduction is conditioned on metric `{self.monitor}` "
                          f"which is not available. Available metrics are: "
                          f"{','.join(logs)}.", stacklevel=2)
            return
        current = float(current)
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improves(current):
            self.best, self.wait = current, 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce(optimizer, epoch):
                self.cooldown_counter, self.wait = self.cooldown, 0

    def _reduce(self, optimizer, epoch):
        """Set lr * factor (not below min_lr); False when lr is at min_lr already. The rate
        is compared as float32, the dtype the optimizer holds it in, as Keras compares it."""
        old = float(optimizer.learning_rate)
        if old <= np.float32(self.min_lr):
            return False
        new = max(old * self.factor, self.min_lr)
        optimizer.learning_rate = new
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
        return True
