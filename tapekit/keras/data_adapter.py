"""What fit/evaluate/predict accept as data, cut into batches: the helpers beside the loop.

    batches = EpochIterator(x, y, batch_size=32, shuffle=True)
    for step, batch in enumerate(batches):     # batch = (x, y) or (x, y, sample_weight)
        ...

Data is either NumPy-like arrays (x, y and sample_weight, sliced along the first axis,
like Keras's array adapter) or a "dataset": a list (or any re-iterable) of batches,
each a tuple (x, y) or (x, y, sample_weight) — tapekit's stand-in for tf.data. float64
arrays become float32, as in Keras.
"""
import numpy as np

from .. import random
from ..convert import convert_to_tensor
from ..tensor import Tensor

__all__ = ["EpochIterator", "unpack_x_y_sample_weight", "train_validation_split"]


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
    raise ValueError(f"a batch must be x, (x,), (x, y) or (x, y, sample_weight); got a tuple "
                     f"of {len(data)} items")


def _is_dataset(x, y):
    """A list of (x, y) batches, or another re-iterable that is not an array."""
    if y is not None or isinstance(x, (np.ndarray, Tensor)):
        return False
    if isinstance(x, (list, tuple)):
        return len(x) > 0 and all(isinstance(b, (tuple, list)) and 1 <= len(b) <= 3
                                  and not np.isscalar(b[0]) for b in x)
    return hasattr(x, "__iter__") and not isinstance(x, (dict, str))


def _array(a, what):
    if a is None:
        return None
    if isinstance(a, (list, tuple)) and a and isinstance(a[0], (np.ndarray, Tensor)):
        return [_array(item, what) for item in a]        # several inputs
    arr = a.numpy() if isinstance(a, Tensor) else np.asarray(a)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    if arr.ndim == 0:
        raise ValueError(f"{what} must have a batch axis (one row per sample), got a scalar")
    return arr


def _length(a):
    return len(a[0]) if isinstance(a, list) else len(a)


def _take(a, index):
    if a is None:
        return None
    if isinstance(a, list):
        return [_take(item, index) for item in a]
    return a[index]


def _tensor(a):
    if a is None or isinstance(a, Tensor):
        return a
    if isinstance(a, list):
        return [_tensor(item) for item in a]
    return convert_to_tensor(a)


def train_validation_split(x, y, sample_weight, validation_split):
    """The last `validation_split` of the samples for validation, before any shuffling
    (as Keras does): returns ((x, y, sample_weight), (x_val, y_val, sample_weight_val))."""
    if not 0 < validation_split < 1:
        raise ValueError(f"validation_split must be in (0, 1), got {validation_split!r}")
    if _is_dataset(x, y):
        raise ValueError("validation_split works only with array data (x, y); for a list of "
                         "batches, pass validation_data= instead")
    x, y, sample_weight = _array(x, "x"), _array(y, "y"), _array(sample_weight, "sample_weight")
    n = _length(x)
    split_at = int(np.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"validation_split={validation_split} of {n} samples leaves "
                         f"{split_at} for training and {n - split_at} for validation; both "
                         f"need at least one")
    first, last = slice(0, split_at), slice(split_at, n)
    return ((_take(x, first), _take(y, first), _take(sample_weight, first)),
            (_take(x, last), _take(y, last), _take(sample_weight, last)))


class EpochIterator:
    """One epoch of batches, as tuples of tensors: (x, y) or (x, y, sample_weight) or (x,).

    Arrays are shuffled (per epoch, with tk.random's generator, so tk.random.set_seed
    makes fit reproducible) unless shuffle=False; the last batch may be smaller.
    `steps_per_epoch` caps the batches of an epoch. `len()` is the number of batches.
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False,
                 steps_per_epoch=None):
        if batch_size is not None and (not isinstance(batch_size, (int, np.integer))
                                       or batch_size <= 0):
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.steps_per_epoch = steps_per_epoch
        self.dataset = None
        if _is_dataset(x, y):
            if batch_size is not None:
                raise ValueError("batch_size is for array data; a list of batches is already "
                                 "batched: leave batch_size=None")
            if sample_weight is not None:
                raise ValueError("sample_weight is for array data; put it in each batch: "
                                 "(x, y, sample_weight)")
            self.dataset = x
            return
        self.x, self.y = _array(x, "x"), _array(y, "y")
        self.sample_weight = _array(sample_weight, "sample_weight")
        self.n = _length(self.x)
        for name, a in (("y", self.y), ("sample_weight", self.sample_weight)):
            if a is not None and _length(a) != self.n:
                raise ValueError(f"x has {self.n} samples but {name} has {_length(a)}; they "
                                 f"must have the same first dimension")
        if self.y is None and self.sample_weight is not None:
            raise ValueError("sample_weight was given without y: weights weigh the loss of "
                             "each (x, y) sample")
        self.parts = tuple(a for a in (self.x, self.y, self.sample_weight) if a is not None)
        self.batch_size, self.shuffle = batch_size or 32, shuffle

    def __len__(self):
        if self.dataset is not None:
            n = len(self.dataset) if hasattr(self.dataset, "__len__") else None
        else:
            n = -(-self.n // self.batch_size)
        if self.steps_per_epoch is not None:
            return self.steps_per_epoch if n is None else min(n, self.steps_per_epoch)
        return n

    def first_batch(self):
        """The first batch, without shuffling (and without drawing random numbers)."""
        if self.dataset is not None:
            return next(iter(self), None)
        return tuple(_tensor(_take(a, slice(0, self.batch_size))) for a in self.parts)

    def __iter__(self):
        if self.dataset is not None:
            for step, batch in enumerate(self.dataset):
                if self.steps_per_epoch is not None and step >= self.steps_per_epoch:
                    return
                yield tuple(_tensor(_array(a, "batch")) for a in
                            ((batch,) if not isinstance(batch, (tuple, list)) else batch))
            return
        order = random._rng(None).permutation(self.n) if self.shuffle else None
        for step, start in enumerate(range(0, self.n, self.batch_size)):
            if self.steps_per_epoch is not None and step >= self.steps_per_epoch:
                return
            index = slice(start, start + self.batch_size) if order is None else \
                order[start:start + self.batch_size]
            yield tuple(_tensor(_take(a, index)) for a in self.parts)
