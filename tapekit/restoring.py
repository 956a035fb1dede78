"""Values a tk.train.Checkpoint restore keeps for variables not made yet (deferred restoration).

A restore into a Keras model that is not built, or an optimizer that has made no slots, keeps
the values whose variables do not exist yet. Keras layers (after `build`) and optimizers (after
making a variable's slots) call `retry()`; each waiting restore then assigns what it can.
This module is the meeting point only: it imports nothing, so the layers and optimizers need
not import tapekit.train (which imports them).
"""
import weakref

_pending = weakref.WeakSet()     # restore statuses with values waiting for their variables


def wait(status):
    """Note that `status` (with a `_retry()` method) has values waiting."""
    _pending.add(status)


def done(status):
    _pending.discard(status)


def retry():
    """Let every waiting restore assign the values whose variables exist now."""
    for status in list(_pending):
        status._retry()


def waiting():
    """Whether any restore has values waiting (the check the layers make at every build)."""
    return bool(_pending)
