"""EarlyStopping and LearningRateScheduler: callbacks that steer training between epochs."""
import warnings

import numpy as np

from .callback import Callback

__all__ = ["EarlyStopping", "LearningRateScheduler"]


def _direction(name):
    """'min' or 'max' for a metric's name: losses and errors go down, accuracies up; else None."""
    if any(w in name for w in ("acc", "precision", "recall", "auc", "true_positives")):
        return "max"
    if any(w in name for w in ("loss", "error", "crossentropy", "mse", "mae", "mape")):
        return "min"
    return None


def resolve_mode(callback, monitor, mode):
    """'min' or 'max' for `monitor` as Keras 3 decides it in mode='auto': "loss" (or
    "val_loss") goes down; otherwise a compiled metric of that name says its direction;
    beyond Keras, a well-known name the model does not log ("accuracy", "mse") is placed by
    its words; any other name raises ValueError. None: the model's metrics are not built yet."""
    if mode != "auto":
        return mode
    name = monitor.removeprefix("val_")
    if name == "loss":
        return "min"
    model = callback.model
    metrics = list(getattr(model, "metrics", None) or [])
    for m in metrics:
        if m.name == name:
            direction = getattr(m, "_direction", None)
            found = {"up": "max", "down": "min"}.get(direction) or _direction(name)
            if found is not None:
                return found
    if _direction(name) is not None and not any(m.name == name for m in metrics):
        return _direction(name)          # a well-known name the model does not log (yet)
    compiled = getattr(model, "_compile_metrics", None)
    if compiled is not None and not compiled.built:
        return None                      # decided at the first epoch's end, as Keras does
    raise ValueError(f"{type(callback).__name__} callback received monitor={monitor}, but "
                     f"Keras isn't able to automatically determine whether that metric should "
                     f"be maximized or minimized. Pass `mode='max'` in order to monitor based "
                     f"on the highest metric value, or pass `mode='min'` in order to use the "
                     f"lowest value. (The model logs: "
                     f"{', '.join(['loss'] + [m.name for m in metrics if m.name != 'loss'])}.)")


class EarlyStopping(Callback):
    """Stop fit when `monitor` has not improved for `patience` epochs (Keras's rule).

    An epoch improves when the value beats the best so far by more than `min_delta`.
    With restore_best_weights=True the model gets the weights of the best epoch back.

    >>> stop = tk.callbacks.EarlyStopping(monitor="loss", patience=1)
    >>> stop.set_model(tk.Sequential()); stop.on_train_begin()
    >>> for epoch, loss in enumerate([1.0, 0.5, 0.6, 0.7]):
    ...     stop.on_epoch_end(epoch, {"loss": loss})
    ...     if stop.model.stop_training: break
    >>> epoch, stop.best, stop.best_epoch
    (2, 0.5, 1)
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        self.monitor, self.mode, self.baseline = monitor, mode, baseline
        self.min_delta, self.patience, self.verbose = abs(min_delta), patience, verbose
        self.restore_best_weights, self.start_from_epoch = restore_best_weights, start_from_epoch
        self._mode = mode if mode != "auto" else None
        self._reset()

    def _improves(self, value, reference):
        if reference is None:
            return True
        if self._mode == "min":
            return value + self.min_delta < reference
        return value - self.min_delta > reference

    def _reset(self):
        self.wait, self.stopped_epoch, self.best_epoch = 0, 0, 0
        self.best, self.best_weights = None, None

    def on_train_begin(self, logs=None):
        """Reset, and decide min or max now: a monitor Keras cannot place raises before
        any training step (Keras 3 raises the same error after the first epoch)."""
        self._reset()
        self._mode = resolve_mode(self, self.monitor, self.mode)

    def on_epoch_end(self, epoch, logs=None):
        if self._mode is None:
            self._mode = resolve_mode(self, self.monitor, self.mode) or "min"
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not "
                          f"available. Available metrics are: {','.join(logs or {})}",
                          stacklevel=2)
            return
        if epoch < self.start_from_epoch:
            return
        current = float(current)
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights, self.best_epoch = _get_weights(self.model), epoch
        self.wait += 1
        if self._improves(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = _get_weights(self.model)
            if self.baseline is None or self._improves(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: "
                      f"{self.best_epoch + 1}.")
            _set_weights(self.model, self.best_weights)


def _get_weights(model):
    return [np.array(v.numpy(), copy=True) for v in model.variables]


def _set_weights(model, values):
    for v, value in zip(model.variables, values):
        v.assign(value)


class LearningRateScheduler(Callback):
    """Set the optimizer's learning rate at the start of each epoch: schedule(epoch, lr).

    >>> halve = tk.callbacks.LearningRateScheduler(lambda epoch, lr: lr if epoch < 1 else lr / 2)
    >>> model = tk.Sequential([tk.layers.Dense(1)])
    >>> model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
    >>> _ = model.fit(np.ones((2, 1)), np.ones((2, 1)), epochs=3, verbose=0, callbacks=[halve])
    >>> round(float(model.optimizer.learning_rate), 6)
    0.025
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr = self.schedule(epoch, float(self.model.optimizer.learning_rate))
        self.model.optimizer.learning_rate = float(lr)
        if self.verbose > 0:
            print(f"Epoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(self.model.optimizer.learning_rate)
