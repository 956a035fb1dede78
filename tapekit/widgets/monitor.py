"""TrainingMonitor: a progress bar (tqdm's numbers) and a live loss curve (matplotlib).

The curve's alt text says what it shows (plots.monitor_description: where the loss started,
ended and was lowest), and a polite live region says the final line when the loop ends.
"""
import sys
import time

import ipywidgets as w

from ..display.format import number
from . import controls, plots
from .base import error_html, esc, Pictured, walk_widgets
from .models import TrainingLog


def has_widget_frontend():
    """True inside a Jupyter kernel (a front end that can show widgets), False in a terminal.

    >>> tk.widgets.has_widget_frontend()       # True in a Jupyter kernel
    False
    """
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class TrainingMonitor(Pictured):
    """A progress bar and a live loss curve around a training loop.

    Not a VBox itself, unlike the other views: its `log()` is the training API and would
    hide ipywidgets' own `log` (a logger every widget uses); `mon.widget` is its VBox.

    In Jupyter: a progress bar with rate and time left (tqdm's numbers), the loss curve
    (matplotlib) and, when the loop ends, the final line printed once. The display is
    then updated with the final picture, so a notebook stores the end of the run (not
    step 0) for places without a widget manager. In a terminal: tqdm's bar; written to
    a file or pipe: one plain line every tenth of the run (deterministic, no timings).
    In a loop: `for step in (mon := tk.widgets.TrainingMonitor(range(n))): ...; mon.log(loss=loss)`.

    every: redraw (or print) every `every` steps; mode: "widget", "text" or None (detect);
    yscale: "linear" (from 0) or "log" (losses spanning decades).

    >>> import io
    >>> w = tk.Variable(0.0, name="w")
    >>> opt = tk.optimizers.SGD(learning_rate=0.25)
    >>> with tk.widgets.TrainingMonitor(total=3, file=io.StringIO()) as mon:   # plain text here
    ...     for step in range(3):
    ...         with tk.GradientTape() as tape:
    ...             loss = (w - 2.0) ** 2
    ...         grads = tape.gradient(loss, [w])
    ...         _ = opt.apply_gradients(zip(grads, [w]))
    ...         mon.log(loss=loss, grads=zip(grads, [w]))
    >>> mon.log_.line(total=3)
    'step 3/3  loss 0.25  |grad w:0| 1.0'
    """

    CURVE_INTERVAL = 0.25     # seconds between live redraws of the curve (the last is always drawn)

    def __init__(self, iterable=None, total=None, *, every=None, title="training", mode=None,
                 file=None, yscale="linear"):
        if yscale not in ("linear", "log"):
            raise ValueError(f"TrainingMonitor: yscale must be 'linear' or 'log', got {yscale!r}")
        if mode not in (None, "widget", "text"):
            raise ValueError(f"TrainingMonitor: mode must be 'widget', 'text' or None (detect), "
                             f"got {mode!r}")
        self.iterable = iterable
        self.message = ""
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except TypeError:
                self.message = ("This loop has no length (a generator?), so there is no progress "
                                "bar: pass total=<number of steps>. Counting steps only.")
        if total is None and iterable is None:
            self.message = "No total given: pass total=<number of steps> for a progress bar."
        self.total = None if total is None else int(total)
        self.title = title
        self.yscale = yscale
        self.log_ = TrainingLog()
        self.count = 0
        self._iterating = False
        self._finished = False
        self.file = file
        self.mode = mode or ("widget" if has_widget_frontend() else "text")
        self.every_draw = every or max(1, (self.total or 50) // 50)
        self.every_print = every or max(1, (self.total or 100) // 10)
        self._shown = False
        self._bar = None             # tqdm's terminal bar (text mode on a terminal)
        self._t0 = None
        self._last_curve = None
        self.widget = None
        if self.mode == "widget":
            self.bar = w.IntProgress(value=0, min=0, max=self.total or 1,   # the label names it
                                     bar_style="info")
            self.label = w.HTML()
            self.curve = w.Output()
            self.note = w.HTML(error_html(self.message) if self.message else "")
            self.live = controls.LiveRegion(shown=False)   # says the end of the run
            self.widget = w.VBox([w.HBox([self.bar, self.label]), self.note, self.live,
                                  self.curve])
            self.widget.add_class("tk-training-monitor")
            self._draw(curve=True)

    @property
    def log_data(self):
        return self.log_

    def close(self):
        """Close the widget and everything inside it (their comms, in a kernel)."""
        if self.widget is not None:
            for c in walk_widgets(self.widget):
                c.close()

    def show(self):
        """Display the widget (done automatically when the loop starts)."""
        if self._shown:
            return
        self._shown = True
        self._t0 = now()
        if self.mode == "widget":
            self._ipython_display_()        # with a display id: updated when the loop ends
        else:
            if self.message:
                print(self.message, file=self._file())
            if self._on_terminal():           # outside Jupyter: tqdm's bar, on stderr by default
                from tqdm.auto import tqdm
                self._bar = tqdm(total=self.total, desc=self.title, unit="step",
                                 file=self.file or sys.stderr, leave=True)

    # --- loop forms --------------------------------------------------------------------
    def __iter__(self):
        if self.iterable is None:
            raise TypeError("TrainingMonitor: nothing to iterate; use TrainingMonitor(range(n)) or "
                            "`with TrainingMonitor(total=n) as mon:`")
        self.show()
        self._iterating = True
        try:
            for item in self.iterable:
                yield item
                self._advance()
        finally:
            self._iterating = False
            self._finish()

    def __enter__(self):
        self.show()
        return self

    def __exit__(self, *exc):
        self._finish()
        return False

    def __len__(self):
        if self.total is None:
            raise TypeError("TrainingMonitor: no total")
        return self.total

    def log(self, loss=None, grads=None, **kw):
        """Record the loss (and gradient norms) of this step; outside a `for`, also advance."""
        try:
            self.log_.log(loss=loss, grads=grads, step=self.count, **kw)
        except (TypeError, ValueError) as e:
            self._say(f"could not log this step: {e}")
        if not self._iterating:
            self._advance()

    # --- progress ------------------------------------------------------------------------
    def _file(self):
        return self.file or sys.stdout

    def _on_terminal(self):
        isatty = getattr(self.file or sys.stderr, "isatty", None)
        return bool(isatty and isatty())

    def _advance(self):
        self.count += 1
        last = self.total is not None and self.count >= self.total
        if self.mode == "widget":
            if last or self.count % self.every_draw == 0:
                self._draw(curve=last)
        elif self._bar is not None:
            self._bar.update(1)
            if self.log_.last_loss is not None:
                self._bar.set_postfix_str(f"loss {number(self.log_.last_loss)}", refresh=False)
        elif last or self.count % self.every_print == 0:
            print(self.line(), file=self._file())

    def _finish(self):
        if self._finished:
            return
        self._finished = True
        if self.mode == "widget":
            self._draw(done=True, curve=True)
            self.live.text = f"done: {self.line()}"
            self._refresh_displays()           # the stored bundle: the final picture
            if self._shown and self.count:
                print(self.line())             # the final numbers, for text-only views too
        elif self._bar is not None:
            self._bar.close()
        elif self.count and self.count % self.every_print and not (
                self.total is not None and self.count >= self.total):
            print(self.line(), file=self._file())   # where the loop stopped

    def _say(self, message):
        if self.mode == "widget":
            self.note.value = error_html(message)
        elif self._bar is not None:
            self._bar.write(message, file=self.file or sys.stderr)
        else:
            print(message, file=self._file())

    def line(self):
        """The plain-text progress line (also the widget's text)."""
        head = f"{self.title}: step {self.count}" + (f"/{self.total}" if self.total else "")
        loss = self.log_.last_loss
        parts = [head] + ([f"loss {number(loss)}"] if loss is not None else [])
        for name, norms in self.log_.grad_norms.items():
            parts.append(f"|grad {name}| {number(norms[-1])}")
        return "  ".join(parts)

    def timing(self):
        """Elapsed time, time left and rate ("00:02<00:01, 25.3 steps/s"); live only.

        Rates keep three figures at most (685 steps/s, 25.3 steps/s, 2.0 s/step): tqdm's own
        meter wrote "685.42step/s"."""
        if self._t0 is None:
            return ""
        from tqdm import tqdm
        elapsed = now() - self._t0
        rate = self.count / elapsed if elapsed > 0 else 0.0
        if not rate:
            return tqdm.format_interval(elapsed)
        left = (f"<{tqdm.format_interval(max(self.total - self.count, 0) / rate)}"
                if self.total else "")   # a loop may run past the total it was given
        if rate >= 100:
            speed = f"{rate:.0f} steps/s"
        elif rate >= 1:
            speed = f"{rate:.1f} steps/s"
        else:
            speed = f"{1 / rate:.1f} s/step"
        return f"{tqdm.format_interval(elapsed)}{left}, {speed}"

    def picture(self, progress=True):
        """PNG of the loss curve and (with `progress`) a drawn progress bar and title (matplotlib).

        The stored picture has them; the live widget's curve does not: its bar and label
        already say where the run is, and the curve is redrawn less often than they move."""
        return plots.monitor_png(self.log_, self.total, self.title, self.yscale, progress)

    def text(self):
        return self.line() + (f"\n{self.message}" if self.message else "")

    def describe(self):
        """The loss curve in words (a Description: `.name` is its alt text)."""
        return plots.monitor_description(self.log_, self.total, self.title)

    def bundle_text(self):
        """The same text from the first display to the final update (nbval compares it, and
        it does not see updates); the final numbers are the line printed at the end."""
        steps = f"{self.total} steps" if self.total else "steps counted as they come"
        return f"{self.title}: TrainingMonitor ({steps}; the picture shows the loss curve)"

    def _draw(self, done=False, curve=False):
        if self.total:
            self.bar.value = min(self.count, self.total)
        else:
            self.bar.max = max(self.count, 1)
            self.bar.value = self.count
        if done:
            self.bar.bar_style = "success"
        timing = "" if done else self.timing()     # the stored final state: no timings
        self.label.value = (f'<span class="tk-progress">{esc(self.line())}</span>'
                            + (f' <span class="tk-timing">[{esc(timing)}]</span>' if timing
                               else ""))
        t = now()
        if curve or self._last_curve is None or t - self._last_curve >= self.CURVE_INTERVAL:
            self._last_curve = t
            self.curve.outputs = (plots.png_output(self.picture(progress=False), self.line(),
                                                   self.describe()),)


def now():
    """The monitor's clock (seconds, for tqdm's elapsed time and the redraw interval)."""
    return time.perf_counter()
