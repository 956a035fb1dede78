"""tf.train.CheckpointManager: numbered checkpoints in a directory, the newest kept."""
import os
import time

import numpy as np

from ..namespaces import no_attribute
from .checkpoint import Checkpoint
from .files import SUFFIX, exists, read_state, write_state


class CheckpointManager:
    """Save numbered checkpoints into a directory and keep the newest `max_to_keep` of them
    (tf.train.CheckpointManager); `latest_checkpoint` and `checkpoints` read the directory's
    `checkpoint` file, so a new manager continues where an earlier run stopped.

    >>> import os, tempfile
    >>> ckpt = tk.train.Checkpoint(v=tk.Variable(1.0))
    >>> manager = tk.train.CheckpointManager(ckpt, tempfile.mkdtemp(), max_to_keep=2)
    >>> [os.path.basename(manager.save()) for _ in range(3)]
    ['ckpt-1', 'ckpt-2', 'ckpt-3']
    >>> [os.path.basename(p) for p in manager.checkpoints]      # ckpt-1 was deleted
    ['ckpt-2', 'ckpt-3']
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None, last_checkpoint_step=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager: checkpoint must be a tk.train.Checkpoint, got "
                            f"{type(checkpoint).__name__}")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"CheckpointManager: max_to_keep must be a positive integer or None, "
                             f"got {max_to_keep!r}")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._name = checkpoint_name
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step = last_checkpoint_step
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = read_state(self._directory)
        if state is not None and state["latest"] is not None:
            times = state["timestamps"] or [time.time()] * len(state["paths"])
            self._kept = [(p, t) for p, t in zip(state["paths"], times) if exists(p)]
            self._latest = state["latest"] if exists(state["latest"]) else None
            self._preserved = state["preserved"] if state["preserved"] is not None else time.time()
        else:
            self._kept, self._latest, self._preserved = [], None, time.time()

    checkpoint = property(lambda self: self._checkpoint)
    directory = property(lambda self: self._directory)
    checkpoint_interval = property(lambda self: self._checkpoint_interval)

    @property
    def latest_checkpoint(self):
        """The prefix of the newest checkpoint, or None."""
        return self._latest

    @property
    def checkpoints(self):
        """The prefixes of the checkpoints kept, oldest first."""
        return [p for p, _ in self._kept]

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save a checkpoint numbered `checkpoint_number` (default: the save counter after
        counting this save), delete the oldest beyond max_to_keep; returns its prefix. With a
        checkpoint_interval, a save before enough steps returns None."""
        if self._checkpoint_interval is not None and check_interval:
            step = int(np.asarray(getattr(self._step_counter, "numpy", lambda: self._step_counter)()))
            if self._last_step is not None and step < self._last_step + self._checkpoint_interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(
            np.asarray(getattr(checkpoint_number, "numpy", lambda: checkpoint_number)()))
        try:
            path = self._checkpoint.write(f"{self._prefix}-{number}")
        except BaseException:
            counter.assign_sub(1)
            raise
        now = time.time()
        self._kept = [(p, t) for p, t in self._kept if p != path] + [(path, now)]
        self._latest = path
        self._sweep()
        write_state(self._directory, path, self.checkpoints, [t for _, t in self._kept],
                     self._preserved)
        return path

    def _sweep(self):
        if self._max_to_keep is None:
            return
        while len(self._kept) > self._max_to_keep:
            path, stamp = self._kept.pop(0)
            if self._keep_hours is not None and stamp - self._preserved > self._keep_hours * 3600:
                self._preserved = stamp        # kept for good, no longer managed (as TF)
                continue
            for file in [path + SUFFIX]:
                try:
                    os.remove(file)
                except FileNotFoundError:
                    pass

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its prefix; without one, call init_fn
        (if given) and return None."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self):
        """Nothing to wait for: tapekit writes checkpoints before save returns."""

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute
