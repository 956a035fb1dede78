"""Progbar: a text progress bar for a loop of your own (Keras 3's `keras.utils.Progbar`)."""
import math
import sys

from ..callbacks.progbar import format_logs

__all__ = ["Progbar"]


class Progbar:
    """A progress bar with running averages: `update(current, values)` sets the count,
    `add(n, values)` moves it on by n; `values` is a list of (name, number) pairs.

    A number is shown as the average over the steps it was given for, weighted by the steps
    (as Keras 3 averages it), except the names in `stateful_metrics`, shown as given; with
    `stateless_metrics` instead, only those names are averaged. verbose=1 redraws one line
    ("\\r") and ends it when `target` is reached; verbose=2 prints one line at the end;
    verbose=0 nothing. The text is Keras 3's without its colours and its timings (ETA,
    seconds, time per step), so that a notebook's output is the same from run to run.

    >>> bar = tk.utils.Progbar(10, verbose=2)
    >>> bar.update(4, [("loss", 2.0)]); bar.update(9, [("loss", 1.0)])   # 4 steps at 2, 5 at 1
    >>> bar.add(1)                                  # Keras 3.15 prints the same, and timings
    10/10 - loss: 1.4444

    A value given with the final update replaces the average (Keras 3's rule).
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Only one of `stateful_metrics` or `stateless_metrics` can be "
                             "provided. `stateful_metrics` is used to make metrics stateless "
                             "by default (with an exclusion list), while `stateless_metrics` "
                             "is used to make metrics stateful by default (with an exclusion "
                             "list).")
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stateful_metrics = set(stateful_metrics or ()) if stateless_metrics is None \
            else None
        self.stateless_metrics = None if stateless_metrics is None else set(stateless_metrics)
        self._seen_so_far = 0
        self._values, self._values_order = {}, []
        self._prev_width = 0
        self.file = None             # sys.stdout at the time of printing

    def _averaged(self, name):
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def update(self, current, values=None, finalize=None):
        """Set the count to `current` and record `values`; finalize (default: current has
        reached target) ends the line."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            value = float(value)
            if name not in self._values_order:
                self._values_order.append(name)
            if not self._averaged(name) or finalize:
                self._values[name] = [value, 1]
            else:
                steps = max(current - self._seen_so_far, 1)
                total, count = self._values.get(name, [0.0, 0])
                self._values[name] = [total + value * steps, count + steps]
        self._seen_so_far = current
        logs = {name: total / max(1, count)
                for name, (total, count) in ((n, self._values[n]) for n in self._values_order)}
        out = self.file or sys.stdout
        if self.verbose == 1:
            if self.target:
                digits = int(math.log10(self.target)) + 1
                done = int(self.width * current / self.target)
                text = (f"{current:{digits}d}/{self.target} "
                        f"{'━' * done}{'─' * (self.width - done)}")
            else:
                text = f"{current:7d}/Unknown"
            if logs:
                text += " - " + format_logs(logs)
            pad = " " * max(0, self._prev_width - len(text))
            out.write("\r" + text + pad + ("\n" if finalize else ""))
            out.flush()
            self._prev_width = len(text)
        elif self.verbose == 2 and finalize and self.target:
            digits = int(math.log10(self.target)) + 1
            text = f"{current:{digits}d}/{self.target}"
            out.write(text + (" - " + format_logs(logs, verbose=2) if logs else "") + "\n")

    def add(self, n, values=None):
        """Move the count on by `n` (update(seen + n, values))."""
        self.update(self._seen_so_far + n, values)
