"""Progress: ProgbarLogger (fit's printing), format_logs, and MonitorCallback, the
adaptor that feeds a tk.widgets.TrainingMonitor from fit."""
import os
import sys
import time

from ...display.format import plain
from .callback import Callback

__all__ = ["ProgbarLogger", "MonitorCallback", "format_logs"]


def format_logs(logs, verbose=1):
    """ "loss: 0.1234 - accuracy: 0.9500": 4 decimals, else (at most 1e-3: zero, tiny, or
    with verbose=2 negative) 4 digits in e-notation, as Keras 3's progress bar prints them.

    >>> tk.callbacks.format_logs({"loss": 0.123456, "accuracy": 0.95, "mae": 0.00001})
    'loss: 0.1235 - accuracy: 0.9500 - mae: 1.0000e-05'
    >>> tk.callbacks.format_logs({"loss": 0.0, "score": -2.5}, verbose=2)
    'loss: 0.0000e+00 - score: -2.5000e+00'
    """
    parts = []
    for k, v in logs.items():
        v = float(v)
        big = (abs(v) if verbose != 2 else v) > 1e-3
        k = plain(k)       # a metric's name is data: a newline in it stays one visible mark
        parts.append(f"{k}: {v:.4f}" if big else f"{k}: {v:.4e}")
    return " - ".join(parts)


BAR = "\u2501" * 20     # Keras 3's finished bar: 20 heavy horizontals


class ProgbarLogger(Callback):
    """The progress printing of fit/evaluate/predict (added by them when verbose != 0).

    verbose=1: a tqdm bar per epoch (tqdm.auto: a widget in Jupyter, text on stderr
    elsewhere) that is removed when the epoch ends; verbose=2: no bar. Both print
    "Epoch 1/5" and, when the epoch ends, one line of the epoch's numbers, the names
    sorted, as Keras 3 prints it without its timings:

        Epoch 1/5
        32/32 ━━━━━━━━━━━━━━━━━━━━ - accuracy: 0.9500 - loss: 0.1234 - val_accuracy: ...  (1)
        32/32 - accuracy: 0.9500 - loss: 0.1234 - val_accuracy: 0.9000 - val_loss: ...   (2)

    The lines hold no timings (the bar has them), so a notebook's stored output stays
    the same from run to run. `file` receives the lines (sys.stdout by default), `bar_file`
    the bar (sys.stderr; Jupyter shows a widget instead); `clock` (time.monotonic) paces
    the bar's numbers, redrawn at most every tqdm `mininterval` (0.1 s).

    >>> import io
    >>> out = io.StringIO()
    >>> bar = tk.callbacks.ProgbarLogger(file=out)
    >>> bar.set_params({"verbose": 2, "epochs": 3, "steps": 4})
    >>> bar.on_train_begin(); bar.on_epoch_begin(0)
    >>> for step in range(4):
    ...     bar.on_train_batch_end(step, {"loss": 0.5})
    >>> bar.on_epoch_end(0, {"loss": 0.5})
    >>> print(out.getvalue())
    Epoch 1/3
    4/4 - loss: 0.5000
    <BLANKLINE>
    """

    def __init__(self, file=None, bar_file=None, clock=time.monotonic):
        super().__init__()
        self.file, self.bar_file, self.clock = file, bar_file, clock
        self._bar = None
        self._bar_display = None     # Jupyter: the bar's display handle
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
        # TQDM_DISABLE (any non-empty value, as tqdm reads it) turns the bar off; tqdm reads it
        # once, at import, so it is checked here too for a variable set later.
        if self.verbose == 1 and not os.environ.get("TQDM_DISABLE"):
            from tqdm.auto import tqdm          # lazily: only a run that shows a bar needs it
            in_jupyter = any(c.__module__ == "tqdm.notebook" for c in tqdm.__mro__)   # a widget
            options = {"display": False} if in_jupyter else {}
            bar = tqdm(total=total, leave=False, unit="step",
                       file=self.bar_file or sys.stderr, dynamic_ncols=True, **options)
            # A disabled bar (tqdm's choice) draws nothing and lacks most attributes
            # (mininterval): no bar then; the epoch's line is still printed.
            self._bar = None if bar.disable else bar
            if self._bar is not None and in_jupyter:
                # Shown under a display id, so that closing it also empties the stored
                # output: a saved notebook keeps the epoch's line, not a frozen "0%" bar.
                from IPython.display import display
                self._bar_display = display(bar.container, display_id=True)

    def _advance(self, logs):
        self._seen += 1
        if self._bar is not None:
            self._bar.update(1)
            now = self.clock()
            if logs and now - self._last_postfix >= self._bar.mininterval:
                self._last_postfix = now          # formatting reads the metrics: throttled
                self._bar.set_postfix_str(format_logs(logs), refresh=False)

    def _close(self, logs, what=""):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._bar_display is not None:
            self._bar_display.update({"text/plain": ""}, raw=True)
            self._bar_display = None
        # an unknown number of steps (a generator) is learned from the first epoch, as Keras's
        # ProgbarLogger keeps its target
        steps = self.params.get("steps") or (self._target if self._in_fit else None) or self._seen
        if self._in_fit:
            self._target = steps
        # Keras 3 finalizes its bar at the target: "5/5", full, even when stopped early
        text = f"{steps}/{steps}" + (f" {BAR}" if self.verbose == 1 else "")
        logs = {k: v for k, v in (logs or {}).items() if k != "outputs"}
        self._print(text + (f" - {format_logs(logs, self.verbose)}" if logs else "") + what)

    def on_train_begin(self, logs=None):
        self._in_fit, self._target = True, None

    def on_train_end(self, logs=None):
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        epochs = self.params.get("epochs", "?")
        if epochs != 1:                   # Keras 3 prints no "Epoch 1/1"
            self._print(f"Epoch {epoch + 1}/{epochs}")
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
    (4, 'step 4/4  loss 0.8161')
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
