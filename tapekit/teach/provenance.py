"""Where a student's value came from: what an exercise's checks may ask besides the value.

A check that compares a student's number with the right one cannot tell a number the tape
computed from one typed in, or copied from a weight matrix. `GradientLog.start()`, called in
an exercise's setup cell, keeps every gradient that the tapes created from then on return
(`tape.gradient`, `tape.jacobian`), so that a check can ask whether the student's value is
one of them:

    _gradients = GradientLog.start()        # in the exercise-setup cell
    ...
    assert _gradients.holds(saliency_a), "take the map from tape.gradient"

It is a tape observer (tapekit/observers.py): it reads what the tapes return and changes
nothing they compute.
"""
import numpy as np

from ..observers import TapeObserver, observe_all_tapes, stop_observing_all_tapes


class GradientLog(TapeObserver):
    """The gradients returned by the tapes created since `start()`, as NumPy arrays."""

    def __init__(self):
        self.results = []

    @classmethod
    def start(cls):
        log = cls()
        observe_all_tapes(log)
        return log

    def stop(self):
        stop_observing_all_tapes(self)

    def gradient_done(self, tape, records, grads):
        for g in grads.values():
            if g is None:
                continue
            try:
                self.results.append(np.array(g, dtype=float))
            except (TypeError, ValueError):   # a value NumPy cannot read (IndexedSlices)
                pass

    def holds(self, value, atol=1e-6):
        """True when `value` has the numbers of one of the gradients, in any shape of the
        same size (a (1, 64) gradient reshaped to 8 × 8)."""
        try:
            value = np.array(value, dtype=float).ravel()
        except (TypeError, ValueError):
            return False
        return any(g.size == value.size and np.allclose(g.ravel(), value, rtol=0, atol=atol)
                   for g in self.results)
