"""What fit/evaluate/predict accept as data, cut into batches: the helpers beside the loop.

    batches = EpochIterator(x, y, batch_size=32, shuffle=True)
    for step, batch in batches.enumerate_epoch():   # batch = (x, y) or (x, y, sample_weight)
        ...

The kinds of data, as Keras 3's data adapters take them:
- arrays: NumPy-like arrays, or lists/dicts of them for several inputs or outputs (a dict
  keyed by the Inputs' or output layers' names), sliced along the first axis and shuffled
  each epoch unless shuffle=False. float64 becomes float32, as in Keras.
- a PyDataset-like object (`tk.utils.PyDataset`, or anything with `__len__` and
  `__getitem__`): `data[i]` is batch i, in a shuffled order unless shuffle=False (as
  Keras 3); its `on_epoch_end()` runs after each epoch.
- a generator or iterator of batches, or a list of batches (tapekit's stand-in for
  tf.data): each batch `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`. A generator's
  first batch is drawn at once (Keras 3 peeks too): an empty one is refused before training.

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

from .. import nest, random
from ..convert import convert_to_tensor
from ..tensor import Tensor

__all__ = ["EpochIterator", "unpack_x_y_sample_weight", "train_validation_split",
           "check_data_tuple"]

_ARRAY_TYPES = (np.ndarray, Tensor)


def unpack_x_y_sample_weight(data):
    """(x, y, sample_weight) from a batch: x, (x,), (x, y) or (x, y, sample_weight).

    >>> from tapekit.keras.data_adapter import unpack_x_y_sample_weight
    >>> unpack_x_y_sample_weight(("x", "y"))
    ('x', 'y', None)
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`; got a tuple of {len(data)} items")


def check_data_tuple(data, what):
    """`what` (validation_data, ...) as (x, y, sample_weight), checked before training."""
    if isinstance(data, (tuple, list)) and not is_batch_list(data):
        if len(data) not in (2, 3):
            raise ValueError(f"{what} must be (x_val, y_val) or (x_val, y_val, "
                             f"sample_weight_val), or a dataset of batches; got a "
                             f"{type(data).__name__} of {len(data)} items")
        return unpack_x_y_sample_weight(data)
    return data, None, None


def _is_array_like(a):
    return isinstance(a, _ARRAY_TYPES) or np.isscalar(a) or (
        isinstance(a, (list, tuple)) and len(a) > 0 and all(np.isscalar(v) for v in a))


def is_arrays(x):
    """Arrays, or a list/tuple/dict whose leaves are arrays (several inputs)."""
    if isinstance(x, dict):
        return len(x) > 0 and all(is_arrays(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return len(x) > 0 and all(isinstance(v, _ARRAY_TYPES) or
                                  (isinstance(v, (list, tuple, dict)) and is_arrays(v))
                                  for v in x) or _is_array_like(x)
    return isinstance(x, _ARRAY_TYPES)


def is_batch_list(x):
    """A list of (x, y[, sample_weight]) batches (tapekit's stand-in for tf.data)."""
    return isinstance(x, list) and len(x) > 0 and all(
        isinstance(b, tuple) and 1 <= len(b) <= 3 for b in x)


def _is_pydataset(x):
    return (hasattr(x, "__getitem__") and hasattr(x, "__len__")
            and not isinstance(x, (list, tuple, dict, str, bytes, np.ndarray, Tensor)))


def _is_iterator(x):
    return hasattr(x, "__next__") or (hasattr(x, "__iter__") and not isinstance(
        x, (list, tuple, dict, str, bytes, np.ndarray, Tensor)))


def _array(a, what):
    arr = a.numpy() if isinstance(a, Tensor) else np.asarray(a)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    if arr.ndim == 0:
        # a list of lists is a structure of inputs (Keras refuses it): its leaves are numbers
        hint = (": a Python list of lists is read as a list of inputs, not as one array; "
                "pass np.array(x)" if not isinstance(a, (Tensor, np.ndarray)) else "")
        raise ValueError(f"{what} must have a batch axis (one row per sample), got the scalar "
                         f"{a!r}{hint}")
    return arr


def _arrays(structure, what):
    """The same structure with each leaf a NumPy array (None stays None)."""
    if structure is None:
        return None
    if isinstance(structure, (list, tuple)) and _is_array_like(structure) and not any(
            isinstance(v, _ARRAY_TYPES) for v in structure):
        return _array(structure, what)              # a list of numbers: one array
    return nest.pack_like(structure, [_array(a, what) for a in nest.flatten(structure)])


def _tensor(a):
    if a is None or isinstance(a, Tensor):
        return a
    return convert_to_tensor(a if not isinstance(a, np.ndarray) or a.dtype != np.float64
                             else a.astype(np.float32))


def _tensors(structure):
    if structure is None:
        return None
    return nest.pack_like(structure, [_tensor(a) for a in nest.flatten(structure)])


def _length(structure, what):
    sizes = {len(a) for a in nest.flatten(structure)}
    if len(sizes) != 1:
        raise ValueError(f"{what}: its arrays have different numbers of samples "
                         f"{sorted(sizes)}; every input/output needs one row per sample")
    return sizes.pop()


def _take(structure, index):
    if structure is None:
        return None
    return nest.pack_like(structure, [a[index] for a in nest.flatten(structure)])


def class_weight_to_sample_weight(y, class_weight):
    """Per-sample weights from {class index: weight}, as Keras 3 makes them: each sample's
    class is its label rounded to an integer (or the argmax of a one-hot row); a class the
    dict leaves out weighs 1.

    >>> from tapekit.keras.data_adapter import class_weight_to_sample_weight
    >>> class_weight_to_sample_weight(np.array([0, 1, 1, 2]), {1: 2.0})
    array([1., 2., 2., 1.], dtype=float32)
    """
    if not isinstance(class_weight, dict):
        raise TypeError(f"class_weight must be a dict {{class index: weight}}, got "
                        f"{type(class_weight).__name__}")
    if len(nest.flatten(y)) > 1:
        raise ValueError("`class_weight` is only supported for Models with a single output; "
                         "pass sample_weight= (one array per output) instead")
    y = nest.flatten(y)[0]
    y = np.asarray(y.numpy() if isinstance(y, Tensor) else y)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, axis=-1)
    classes = np.round(y).astype(np.int64).reshape(-1)
    return np.array([class_weight.get(int(c), 1.0) for c in classes], np.float32)


def _add_class_weight(batch, class_weight):
    x, y, sw = unpack_x_y_sample_weight(batch)
    if y is None:
        return batch
    if sw is not None:
        raise ValueError("You cannot use `class_weight` and `sample_weight` at the same time: "
                         "the batches carry sample weights; fold the class weights into them")
    return (x, y, class_weight_to_sample_weight(y, class_weight))


def train_validation_split(x, y, sample_weight, validation_split):
    """The last `validation_split` of the samples for validation, before any shuffling
    (as Keras does): returns ((x, y, sample_weight), (x_val, y_val, sample_weight_val))."""
    if not 0 < validation_split < 1:
        raise ValueError(f"validation_split must be in (0, 1), got {validation_split!r}")
    if not is_arrays(x) or is_batch_list(x):
        raise ValueError("validation_split is only supported for array data (x, y); for a "
                         "generator, PyDataset or list of batches, pass validation_data= "
                         "instead")
    x, y = _arrays(x, "x"), _arrays(y, "y")
    sample_weight = _arrays(sample_weight, "sample_weight")
    n = _length(x, "x")
    split_at = int(np.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"validation_split={validation_split} of {n} samples leaves "
                         f"{split_at} for training and {n - split_at} for validation; both "
                         f"need at least one")
    first, last = slice(0, split_at), slice(split_at, n)
    return ((_take(x, first), _take(y, first), _take(sample_weight, first)),
            (_take(x, last), _take(y, last), _take(sample_weight, last)))


def single_batch(x, y=None, sample_weight=None, class_weight=None, caller="train_on_batch"):
    """x, y and sample_weight as one batch of all their samples (Keras 3's *_on_batch): an
    EpochIterator of one step. They must be arrays: a generator or a list of batches is
    fit's data, not a batch."""
    if not is_arrays(x) or is_batch_list(x) or isinstance(x, dict) and not x:
        raise ValueError(f"{caller}: x must be one batch of arrays (NumPy arrays, tensors, or a "
                         f"list/dict of them for several inputs), got {type(x).__name__}; fit "
                         f"takes generators and lists of batches")
    n = _length(_arrays(x, "x"), "x")
    if n == 0:
        raise ValueError(f"{caller}: the batch has no samples (x has 0 rows)")
    return EpochIterator(x, y, sample_weight, batch_size=n, class_weight=class_weight)


class EpochIterator:
    """Batches, epoch by epoch, as tuples of tensors: (x,), (x, y) or (x, y, sample_weight).

    `enumerate_epoch()` yields (step, batch) for one epoch; `num_batches` is the epoch's
    number of steps when known (None for a generator without steps_per_epoch); `drawn`
    counts the batches drawn so far, over every epoch.
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
            self.x, self.y = _arrays(x, "x"), _arrays(y, "y")
            self.sample_weight = _arrays(sample_weight, "sample_weight")
            self.n = _length(x if not isinstance(self.x, np.ndarray) else self.x, "x")
            for name, a in (("y", self.y), ("sample_weight", self.sample_weight)):
                if a is not None and _length(a, name) != self.n:
                    raise ValueError(f"x has {self.n} samples but {name} has "
                                     f"{_length(a, name)}; they must have the same first "
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
        kind = ("a PyDataset" if _is_pydataset(x) else "a list of batches"
                if is_batch_list(x) else "a generator or iterator" if _is_iterator(x) else None)
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
        if _is_pydataset(x):
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
                yield tuple(_take(p, index) for p in parts)
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
                batch = _add_class_weight(batch, self.class_weight)
        return tuple(_tensors(part) for part in batch)

    def first_batch(self):
        """The first batch without using up the data (a generator's: the one drawn at once)."""
        if self.kind == "arrays":
            parts = tuple(a for a in (self.x, self.y, self.sample_weight) if a is not None)
            return self._as_batch(tuple(_take(p, slice(0, self.batch_size)) for p in parts))
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
        step = 0
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


def _empty_generator(what, data):   # Keras 3.15's words, and which data it is
    return ValueError(f"When passing a Python generator to a Keras model, the generator must "
                      f"yield at least one batch. Received an empty generator: {what} "
                      f"({type(data).__name__}) gave no batch")


def _ran_out():
    warnings.warn("Your input ran out of data; interrupting training. Make sure that your "
                  "dataset or generator can generate at least `steps_per_epoch * epochs` "
                  "batches.", stacklevel=3)
