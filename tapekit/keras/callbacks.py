"""Callbacks: code that `fit`, `evaluate` and `predict` call at each boundary of the loop.

    history = model.fit(x, y, epochs=50, validation_split=0.2,
                        callbacks=[tk.callbacks.EarlyStopping(patience=3)])
    history.history["val_loss"]         # one number per epoch that ran

`fit` calls `on_train_begin`, then per epoch `on_epoch_begin(epoch)`, per batch
`on_train_batch_begin(batch)` / `on_train_batch_end(batch, logs)`, then
`on_epoch_end(epoch, logs)` with that epoch's numbers (and the `val_` ones), and
`on_train_end`. A callback reaches the model as `self.model`; setting
`self.model.stop_training = True` ends `fit` after the current batch or epoch.
The progress printing is one more callback (`ProgbarLogger`), added when verbose != 0.
"""
import sys
import time
import warnings

import numpy as np

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "LambdaCallback",
           "EarlyStopping", "LearningRateScheduler", "MonitorCallback"]

_HOOKS = ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
          "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
          "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
          "on_predict_batch_begin", "on_predict_batch_end")


class Callback:
    """Base class: override the hooks you need; each gets `logs`, a dict of numbers.

    >>> class Count(tk.callbacks.Callback):
    ...     def on_epoch_end(self, epoch, logs=None):
    ...         print(f"epoch {epoch}: loss {logs['loss']:.3f}")
    >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="zeros")])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> _ = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[Count()])
    epoch 0: loss 1.000
    epoch 1: loss 0.922
    """

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params


def _no_op(self, *args, **kwargs):
    pass


for _hook in _HOOKS:
    setattr(Callback, _hook, _no_op)


class CallbackList:
    """Calls every callback's hook in order: `callbacks.on_epoch_end(epoch, logs)`.

    fit makes one with a History (always) and a ProgbarLogger (when verbose != 0).

    >>> calls = tk.callbacks.CallbackList([tk.callbacks.LambdaCallback(
    ...     on_epoch_end=lambda epoch, logs: print(epoch, logs))])
    >>> calls.on_epoch_end(0, {"loss": 0.5})
    0 {'loss': 0.5}
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        self.callbacks = list(callbacks or [])
        for c in self.callbacks:
            if not isinstance(c, Callback):
                raise TypeError(f"callbacks: expected tk.callbacks.Callback instances, got "
                                f"{type(c).__name__}; wrap a function in "
                                f"tk.callbacks.LambdaCallback(on_epoch_end=...)")
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        self.model, self.params = model, params
        for c in self.callbacks:
            c.set_params(params)
            if model is not None:
                c.set_model(model)

    def __iter__(self):
        return iter(self.callbacks)


def _dispatch(name):
    def hook(self, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)
    hook.__name__ = name
    return hook


for _hook in _HOOKS:
    setattr(CallbackList, _hook, _dispatch(_hook))


class History(Callback):
    """Records each epoch's logs: `history.history["loss"]` is a list, one float per epoch.
    fit returns it (and keeps it as `model.history`).

    >>> h = tk.callbacks.History()
    >>> h.on_train_begin()
    >>> h.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.75})
    >>> h.history, h.epoch
    ({'loss': [0.5], 'val_loss': [0.75]}, [0])
    """

    def __init__(self):
        super().__init__()
        self.history, self.epoch = {}, []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self


def format_logs(logs):
    """ "loss: 0.1234 - accuracy: 0.9500": 4 decimals, or 4 significant digits when tiny.

    >>> tk.callbacks.format_logs({"loss": 0.123456, "accuracy": 0.95, "mae": 0.00001})
    'loss: 0.1235 - accuracy: 0.9500 - mae: 1.0000e-05'
    """
    parts = []
    for k, v in logs.items():
        v = float(v)
        parts.append(f"{k}: {v:.4f}" if abs(v) > 1e-3 or v == 0 else f"{k}: {v:.4e}")
    return " - ".join(parts)


class ProgbarLogger(Callback):
    """The progress printing of fit/evaluate/predict (added by them when verbose != 0).

    verbose=1: a tqdm bar per epoch (tqdm.auto: a widget in Jupyter, text on stderr
    elsewhere) that is removed when the epoch ends; verbose=2: no bar. Both print
    "Epoch 1/5" and, when the epoch ends, one line of the epoch's numbers:

        Epoch 1/5
        32/32 - loss: 0.1234 - accuracy: 0.9500 - val_loss: 0.2345 - val_accuracy: 0.9000

    The lines hold no timings (the bar has them), so a notebook's stored output stays
    the same from run to run. `file` receives the lines (sys.stdout by default).

    >>> import io
    >>> out = io.StringIO()
    >>> bar = tk.callbacks.ProgbarLogger(file=out)
    >>> bar.set_params({"verbose": 2, "epochs": 3, "steps": 4})
    >>> bar.on_train_begin(); bar.on_epoch_begin(0); bar.on_epoch_end(0, {"loss": 0.5})
    >>> print(out.getvalue())
    Epoch 1/3
    4/4 - loss: 0.5000
    <BLANKLINE>
    """

    def __init__(self, file=None):
        super().__init__()
        self.file = file
        self._bar = None
        self._in_fit = False
        self._seen = 0
        self._last_postfix = 0.0

    @property
    def verbose(self):
        v = self.params.get("verbose", 1)
        return 1 if v == "auto" else int(v)

    def _print(self, text):
        print(text, file=self.file or sys.stdout)

    def _open(self, total):
        self._seen = 0
        if self.verbose == 1:
            from tqdm.auto import tqdm          # lazily: only a run that shows a bar needs it
            self._bar = tqdm(total=total, leave=False, unit="step", file=sys.stderr,
                             dynamic_ncols=True)

    def _advance(self, logs):
        self._seen += 1
        if self._bar is not None:
            self._bar.update(1)
            now = time.monotonic()
            if logs and now - self._last_postfix >= self._bar.mininterval:
                self._last_postfix = now          # formatting reads the metrics: throttled
                self._bar.set_postfix_str(format_logs(logs), refresh=False)

    def _close(self, logs, what=""):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        steps = self.params.get("steps") or self._seen
        text = f"{self._seen}/{steps}" + (f" - {format_logs(logs)}" if logs else "")
        self._print(text + what)

    def on_train_begin(self, logs=None):
        self._in_fit = True

    def on_train_end(self, logs=None):
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        self._print(f"Epoch {epoch + 1}/{self.params.get('epochs', '?')}")
        self._open(self.params.get("steps"))

    def on_train_batch_end(self, batch, logs=None):
        self._advance(logs)

    def on_epoch_end(self, epoch, logs=None):
        self._close(logs)

    def on_test_begin(self, logs=None):
        if not self._in_fit:       # validation inside fit shows in the epoch's line
            self._open(self.params.get("steps"))

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit:
            self._advance(logs)

    def on_test_end(self, logs=None):
        if not self._in_fit:
            self._close(logs)

    on_predict_begin = on_test_begin

    def on_predict_batch_end(self, batch, logs=None):
        self._advance(None)

    def on_predict_end(self, logs=None):
        self._close(None)


class LambdaCallback(Callback):
    """A callback from functions: LambdaCallback(on_epoch_end=lambda epoch, logs: ...).

    >>> cb = tk.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: print("done", epoch))
    >>> cb.on_epoch_end(3, {})
    done 3
    """

    def __init__(self, **hooks):
        super().__init__()
        for name, fn in hooks.items():
            if name not in _HOOKS:
                raise TypeError(f"LambdaCallback: unknown hook {name!r}; the hooks are "
                                f"{', '.join(_HOOKS)}")
            setattr(self, name, fn)


def _direction(monitor):
    """'min' or 'max' for a monitored name: losses and errors go down, accuracies up."""
    name = monitor.removeprefix("val_")
    if any(w in name for w in ("acc", "precision", "recall", "auc")):
        return "max"
    if any(w in name for w in ("loss", "error", "crossentropy", "mse", "mae")):
        return "min"
    raise ValueError(f"EarlyStopping: cannot tell whether {monitor!r} should go down or up; "
                     f"pass mode='min' or mode='max'")


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
        self.on_train_begin()

    def _improves(self, value, reference):
        if reference is None:
            return True
        if (self.mode if self.mode != "auto" else _direction(self.monitor)) == "min":
            return value + self.min_delta < reference
        return value - self.min_delta > reference

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_epoch = 0, 0, 0
        self.best, self.best_weights = None, None

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"EarlyStopping conditioned on metric {self.monitor!r} which is not "
                          f"available. Available metrics are: {', '.join(logs or {})}",
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


class MonitorCallback(Callback):
    """Feed fit's batches to a tk.widgets.TrainingMonitor: its bar and live loss curve.

        mon = tk.widgets.TrainingMonitor(total=epochs * steps_per_epoch, title="fit")
        model.fit(x, y, epochs=epochs, verbose=0, callbacks=[tk.callbacks.MonitorCallback(mon)])

    Each training batch logs that batch's running loss (`logs["loss"]`, the epoch's mean
    so far, as Keras reports it) as one step; the monitor is shown when training starts
    and finished when it ends. Without a monitor, one is made with the run's total.

    >>> import io
    >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="zeros")])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> mon = tk.widgets.TrainingMonitor(total=4, file=io.StringIO(), every=2)
    >>> _ = model.fit(np.ones((4, 1)), np.ones((4, 1)), batch_size=2, epochs=2, verbose=0,
    ...               callbacks=[tk.callbacks.MonitorCallback(mon)])
    >>> mon.count, mon.log_.line(total=4)
    (4, 'step 4/4  loss 0.8816')
    """

    def __init__(self, monitor=None, title="fit"):
        super().__init__()
        self.monitor, self.title = monitor, title

    def on_train_begin(self, logs=None):
        if self.monitor is None:
            from ...widgets import TrainingMonitor     # lazily: the display side is optional
            steps, epochs = self.params.get("steps"), self.params.get("epochs")
            total = steps * epochs if steps and epochs else None
            self.monitor = TrainingMonitor(total=total, title=self.title)
        self.monitor.show()

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        self.monitor.log(loss=None if loss is None else float(loss))

    def on_train_end(self, logs=None):
        self.monitor.__exit__(None, None, None)    # the end of its `with` block
