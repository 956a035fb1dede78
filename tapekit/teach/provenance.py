"""Where a student's value came from: what an exercise's checks may ask besides the value.

A check that compares a student's number with the right one cannot tell a number the tape
computed from one typed in, or copied from a weight matrix. `GradientLog.start()`, called in
an exercise's setup cell, keeps every gradient that the tapes created from then on return
(`tape.gradient`, `tape.jacobian`), so that a check can ask whether the student's value is
one of them:

    _gradients = GradientLog.start()        # in the exercise-setup cell
    ...
    assert _gradients.holds(saliency_a), "take the map from tape.gradient"

It also counts the operations those tapes record (`records`), so that a check can call a
function the student wrote "by hand, without a tape" through `by_hand`, which fails if the
function recorded any, under whatever name it reached the tape by:

    dW, db, dX = _gradients.by_hand(layer_grads)(X, W, b, T)

It is a tape observer (tapekit/observers.py): it reads what the tapes return and changes
nothing they compute.
"""
import contextlib

import numpy as np

from ..observers import TapeObserver, observe_all_tapes, stop_observing_all_tapes


class GradientLog(TapeObserver):
    """The gradients returned by the tapes created since `start()`, as NumPy arrays, and how
    many operations those tapes recorded."""

    def __init__(self):
        self.results = []
        self.records = 0
        self._paused = False

    @classmethod
    def start(cls):
        log = cls()
        observe_all_tapes(log)
        return log

    def stop(self):
        stop_observing_all_tapes(self)

    def by_hand(self, fn, task=None):
        """`fn`, called so that it raises AssertionError if a tape records while it runs: a
        check calls the function the task says to write "by hand, without a tape" through it,
        so that a tape reached under any name is found (`_gradients.by_hand(layer_grads)(X)`).
        `task` says what the task asks for instead, in the message."""
        def call(*args, **kwargs):
            before = self.records
            out = fn(*args, **kwargs)
            if self.records != before:
                name = getattr(fn, "__name__", "your function")
                raise AssertionError(
                    f"{name} records a tape: " + (task or (
                        f"the task asks for it by hand, with NumPy only; check it against a "
                        f"tape outside {name}")))
            return out
        return call

    @contextlib.contextmanager
    def paused(self):
        """Keep nothing while the block runs: for a check that asks the student's own tape for
        a gradient, so that its answer does not count as one the student took."""
        self._paused = True
        try:
            yield self
        finally:
            self._paused = False

    def recorded(self, tape, record, values, out):
        if not self._paused:
            self.records += 1

    def gradient_done(self, tape, records, grads):
        if self._paused:
            return
        taken = []
        for g in grads.values():
            if g is None:
                continue
            try:
                taken.append(np.array(g, dtype=float))
            except (TypeError, ValueError):   # a value NumPy cannot read (IndexedSlices)
                pass
        self.results.extend(taken)
        if len(taken) > 1:   # one call's gradients together: a Hessian row from gradient(g, [x, y])
            self.results.append(np.concatenate([g.ravel() for g in taken]))

    def holds(self, value, atol=1e-6):
        """True when `value` has the numbers of one of the gradients, in any shape of the
        same size (a (1, 64) gradient reshaped to 8 × 8), or of one call's gradients together,
        in the order of its sources (the row [d/dx, d/dy] of `tape.gradient(g, [x, y])`)."""
        try:
            value = np.array(value, dtype=float).ravel()
        except (TypeError, ValueError):
            return False
        return any(g.size == value.size and np.allclose(g.ravel(), value, rtol=0, atol=atol)
                   for g in self.results)
