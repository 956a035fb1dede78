"""The batches of each epoch, as fit, evaluate and predict loop over them (Keras 3's
EpochIterator, keras/src/trainers/epoch_iterator.py), from data of any kind data_adapter.py
accepts.

    batches = EpochIterator(x, y, batch_size=32, shuffle=True)
    for step, batch in batches.enumerate_epoch():   # batch = (x, y) or (x, y, sample_weight)
        ...

With `steps_per_epoch`, one iterator runs on across epochs (as Keras's EpochIterator):
epoch 2 takes the batches after epoch 1's. When the data runs out before an epoch has its
steps, the epoch ends early with a warning, and the next epoch starts a fresh pass. A
generator has none: each epoch, also after `reset()`, draws on from it, except where
`replay=True` keeps the first pass's batches (fit's validation with validation_steps: every
validation scores the same batches, as Keras promises), nothing here closes it, and its
exceptions go on as raised. No data (0 samples,
a PyDataset of length 0, an empty generator) is a ValueError, as Keras makes the last two.
"""
import warnings

import numpy as np

from ... import random
from .data_adapter import (add_class_weight, as_arrays, as_tensors, check_data_tuple,
                           class_weight_to_sample_weight, is_arrays, is_batch_list, is_iterator,
                           is_pydataset, num_samples, take, unpack_x_y_sample_weight)


def single_batch(x, y=None, sample_weight=None, class_weight=None, caller="train_on_batch"):
    """x, y and sample_weight as one batch of all their samples (Keras 3's *_on_batch): an
    EpochIterator of one step. They must be arrays: a generator or a list of batches is
    fit's data, not a batch."""
    if not is_arrays(x) or is_batch_list(x) or isinstance(x, dict) and not x:
        raise ValueError(f"{caller}: x must be one batch of arrays (NumPy arrays, tensors, or a "
                         f"list/dict of them for several inputs), got {type(x).__name__}; fit "
                         f"takes generators and lists of batches")
    n = num_samples(as_arrays(x, "x"), "x")
    if n == 0:
        raise ValueError(f"{caller}: the batch has no samples (x has 0 rows)")
    return EpochIterator(x, y, sample_weight, batch_size=n, class_weight=class_weight)


class EpochIterator:
    """Batches, epoch by epoch, as tuples of tensors: (x,), (x, y) or (x, y, sample_weight).

    `enumerate_epoch()` yields (step, batch) for one epoch; `num_batches` is the epoch's
    number of steps when known (None for a generator without steps_per_epoch); `drawn`
    counts the batches drawn so far, over every epoch; `epoch_was_empty` says the last
    epoch found the data used up before its first batch (fit stops training there).
    `class_weight` ({class: weight}) turns into each batch's sample weights. `what` names
    the data in errors ("x", "validation_data").
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False,
                 steps_per_epoch=None, class_weight=None, what="x", replay=False):
        if batch_size is not None and (not isinstance(batch_size, (int, np.integer))
                                       or batch_size <= 0):
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if steps_per_epoch is not None and (not isinstance(steps_per_epoch, (int, np.integer))
                                            or steps_per_epoch <= 0):
            raise ValueError(f"steps_per_epoch must be a positive integer or None, got "
                             f"{steps_per_epoch!r}")
        self.steps_per_epoch, self.class_weight = steps_per_epoch, class_weight
        self.shuffle, self.what = shuffle, what
        self._iterator, self._seen = None, 0
        self.drawn = 0             # batches drawn in all, over every epoch
        self._peeked = None        # a generator's first batch, drawn to see that it has one
        # replay=True (fit's validation_steps over a generator): the first pass's batches are
        # kept, and every later pass reads them again from the start, as Keras 3 promises for
        # validation_steps ("the same validation samples are used every time")
        self._replay = [] if replay else None
        if is_arrays(x) and not is_batch_list(x):
            self.kind = "arrays"
            self.x, self.y = as_arrays(x, "x"), as_arrays(y, "y")
            self.sample_weight = as_arrays(sample_weight, "sample_weight")
            self.n = num_samples(x if not isinstance(self.x, np.ndarray) else self.x, "x")
            for name, a in (("y", self.y), ("sample_weight", self.sample_weight)):
                if a is not None and num_samples(a, name) != self.n:
                    raise ValueError(f"x has {self.n} samples but {name} has "
                                     f"{num_samples(a, name)}; they must have the same first "
                                     f"dimension")
            if self.y is None and self.sample_weight is not None:
                raise ValueError("sample_weight was given without y: weights weigh the loss "
                                 "of each (x, y) sample")
            if class_weight is not None and self.y is not None:
                if self.sample_weight is not None:
                    raise ValueError("You cannot use `class_weight` and `sample_weight` at the "
                                     "same time: fold the class weights into sample_weight")
                self.sample_weight = class_weight_to_sample_weight(self.y, class_weight)
            if self.n == 0:     # Keras 3.15 warns that the input ran out and trains on nothing
                raise ValueError(f"{what} has 0 samples: there is no batch to work on")
            self.batch_size = batch_size or 32
            self._num_batches = -(-self.n // self.batch_size)
            return
        kind = ("a PyDataset" if is_pydataset(x) else "a list of batches"
                if is_batch_list(x) else "a generator or iterator" if is_iterator(x) else None)
        if kind is None:
            raise ValueError(f"Unrecognized data type: x={type(x).__name__}. Expected NumPy "
                             f"arrays or tensors (or a list/dict of them), a generator or "
                             f"iterator of (x, y[, sample_weight]) batches, a list of such "
                             f"batches, or a tk.utils.PyDataset")
        for name, value in (("y", y), ("sample_weight", sample_weight),
                            ("batch_size", batch_size)):
            if value is not None:
                raise ValueError(f"`{name}` argument is not supported when x is {kind}: it "
                                 f"yields whole batches; put y (and sample weights) in each "
                                 f"batch, (x, y[, sample_weight]), and leave {name}=None")
        self.kind, self.data = kind, x
        if is_pydataset(x):
            self._num_batches = len(x)
            if self._num_batches == 0:       # Keras 3.15's words, then which data it is
                raise ValueError(f"The PyDataset has length 0: {what} ({type(x).__name__}) "
                                 f"has no batch (its __len__ returned 0)")
        elif is_batch_list(x):
            self._num_batches = len(x)
        else:
            self._num_batches = None
            if hasattr(x, "__next__"):       # one pass only: see now that it has a batch
                try:
                    self._peeked = next(x)
                except StopIteration:
                    raise _empty_generator(what, x) from None

    @property
    def num_batches(self):
        return self.steps_per_epoch or self._num_batches

    def __len__(self):
        n = self.num_batches
        if n is None:
            raise TypeError("the number of batches of a generator is unknown until it ends; "
                            "pass steps_per_epoch= (or steps=)")
        return n

    # --- one pass over the data ---------------------------------------------------------------
    def _one_pass(self):
        if self.kind == "arrays":
            parts = tuple(a for a in (self.x, self.y, self.sample_weight) if a is not None)
            order = random._rng(None).permutation(self.n) if self.shuffle else None
            for start in range(0, self.n, self.batch_size):
                index = slice(start, start + self.batch_size) if order is None else \
                    order[start:start + self.batch_size]
                yield tuple(take(p, index) for p in parts)
        elif self.kind == "a PyDataset":        # shuffle=True shuffles the batches' order
            n = len(self.data)
            for i in (random._rng(None).permutation(n) if self.shuffle else range(n)):
                yield self.data[int(i)]
        elif self.kind == "a list of batches":
            yield from self.data

    def _new_pass(self):
        """One pass over the data; a generator is drawn from directly (a `yield from` wrapper,
        once dropped, would close it)."""
        if self.kind != "a generator or iterator":
            return self._one_pass()
        return self.data if hasattr(self.data, "__next__") else iter(self.data)

    def _next(self):
        if self._peeked is not None:
            batch, self._peeked = self._peeked, None
            return batch
        return next(self._iterator)

    def _as_batch(self, batch):
        if self.kind != "arrays":                   # a batch as the data gave it
            batch = tuple(batch) if isinstance(batch, (tuple, list)) else (batch,)
            unpack_x_y_sample_weight(batch)         # 4 or more items: Keras's error
            if self.class_weight is not None:
                batch = add_class_weight(batch, self.class_weight)
        return tuple(as_tensors(part) for part in batch)

    def first_batch(self):
        """The first batch without using up the data (a generator's: the one drawn at once)."""
        if self.kind == "arrays":
            parts = tuple(a for a in (self.x, self.y, self.sample_weight) if a is not None)
            return self._as_batch(tuple(take(p, slice(0, self.batch_size)) for p in parts))
        if self.kind in ("a PyDataset", "a list of batches") and self._num_batches:
            return self._as_batch(self.data[0])
        return None if self._peeked is None else self._as_batch(self._peeked)

    def reset(self):
        """Start the next epoch from a fresh pass (evaluate does: validation with
        validation_steps sees the same first batches every epoch, as in Keras). A generator
        has no fresh pass: the next epoch draws on from it, unless `replay` kept its batches."""
        self._iterator, self._seen = None, 0

    def enumerate_epoch(self):
        """(step, batch) for one epoch (Keras's EpochIterator rules for steps_per_epoch)."""
        if self.kind == "a PyDataset" and hasattr(self.data, "on_epoch_begin"):
            self.data.on_epoch_begin()
        steps = self.steps_per_epoch
        if self._iterator is None or steps is None:
            self._iterator, self._seen = self._new_pass(), 0
        step, self.epoch_was_empty = 0, False
        while steps is None or step < steps:
            if self._num_batches is not None and self._seen >= self._num_batches:
                if steps is not None:
                    _ran_out()
                break
            try:
                batch = self._next()       # the data's own exceptions go on as they are
            except StopIteration:
                if not self.drawn:        # an iterable without a batch (a generator: at __init__)
                    raise _empty_generator(self.what, self.data) from None
                if steps is not None or step == 0:     # Keras warns for an empty epoch too
                    _ran_out()
                if steps is not None:
                    self._num_batches = self._num_batches or self._seen
                self._iterator = None
                break
            self._seen += 1
            self.drawn += 1
            if self._replay is not None and self.kind == "a generator or iterator":
                self._replay.append(batch)
            yield step, self._as_batch(batch)
            step += 1
        self.epoch_was_empty = step == 0   # the data ran out before this epoch's first batch
        if self._replay and self.kind == "a generator or iterator":
            # the next passes read these batches again: a list of batches from now on
            self.kind, self.data, self._num_batches = "a list of batches", self._replay, len(self._replay)
        if self._num_batches is not None and self._seen >= self._num_batches:
            self._iterator = None                   # the next epoch starts a fresh pass
        if self.kind == "a PyDataset" and hasattr(self.data, "on_epoch_end"):
            self.data.on_epoch_end()

    def __iter__(self):
        for _, batch in self.enumerate_epoch():
            yield batch


def validation_batches(validation_data, batch_size, steps, validations):
    """fit's validation_data as an EpochIterator (or None), made and checked before the
    first training step: (x_val, y_val[, sample_weight_val]), or batches."""
    if validation_data is None:
        return None
    x, y, sample_weight = check_data_tuple(validation_data, "validation_data")
    arrays = is_arrays(x) and not is_batch_list(x)
    if steps is None and validations > 1 and hasattr(x, "__next__"):
        # Keras 3.15 validates the later epochs on the two batches it peeked at, again
        raise ValueError(f"validation_data is a generator (or iterator) and validation_steps is "
                         f"None: the first validation runs until the generator ends, which "
                         f"leaves nothing for the other {validations - 1} (or never ends, if it "
                         f"is endless). Pass validation_steps=N to take N batches from it at "
                         f"each epoch's end, or pass a tk.utils.PyDataset or a list of batches, "
                         f"which every validation reads from its start")
    # A generator with validation_steps: every validation reads the same first batches, as
    # Keras 3 promises ("the evaluation will start from the beginning of the dataset at each
    # epoch"; Keras 3.15 replays the 2 batches it peeked at): they are kept from the first.
    return EpochIterator(x, y, sample_weight, batch_size if arrays else None, False, steps,
                         what="validation_data", replay=steps is not None and validations > 1)


def ran_dry(caller, batches):
    """The error for a pass that got no batch at all: a generator used up before it."""
    per_epoch = f", {batches.steps_per_epoch} per epoch" if batches.steps_per_epoch else ""
    return ValueError(f"{caller}: {batches.what} gave no batch: the generator (or iterator) is "
                      f"used up, after {batches.drawn} batch(es) in all{per_epoch}. Give one "
                      f"that never ends (`while True:`), or a tk.utils.PyDataset or a list of "
                      f"batches, which every epoch reads from its start")


def _empty_generator(what, data):   # Keras 3.15's words, and which data it is
    return ValueError(f"When passing a Python generator to a Keras model, the generator must "
                      f"yield at least one batch. Received an empty generator: {what} "
                      f"({type(data).__name__}) gave no batch")


def _ran_out():
    warnings.warn("Your input ran out of data; interrupting training. Make sure that your "
                  "dataset or generator can generate at least `steps_per_epoch * epochs` "
                  "batches.", stacklevel=3)
