"""What fit/evaluate/predict accept as data (Keras 3's data adapters): which kind it is, its
arrays, its batches' parts, class weights and the validation split; epoch_iterator.py cuts it
into the batches of each epoch.

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
"""
import numpy as np

from ... import nest
from ...convert import convert_to_tensor
from ...tensor import Tensor

_ARRAY_TYPES = (np.ndarray, Tensor)


def unpack_x_y_sample_weight(data):
    """(x, y, sample_weight) from a batch: x, (x,), (x, y) or (x, y, sample_weight).

    >>> from tapekit.keras.trainers.data_adapter import unpack_x_y_sample_weight
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


def is_pydataset(x):
    return (hasattr(x, "__getitem__") and hasattr(x, "__len__")
            and not isinstance(x, (list, tuple, dict, str, bytes, np.ndarray, Tensor)))


def is_iterator(x):
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


def as_arrays(structure, what):
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


def as_tensors(structure):
    if structure is None:
        return None
    return nest.pack_like(structure, [_tensor(a) for a in nest.flatten(structure)])


def num_samples(structure, what):
    sizes = {len(a) for a in nest.flatten(structure)}
    if len(sizes) != 1:
        raise ValueError(f"{what}: its arrays have different numbers of samples "
                         f"{sorted(sizes)}; every input/output needs one row per sample")
    return sizes.pop()


def take(structure, index):
    if structure is None:
        return None
    return nest.pack_like(structure, [a[index] for a in nest.flatten(structure)])


def class_weight_to_sample_weight(y, class_weight):
    """Per-sample weights from {class index: weight}, as Keras 3 makes them: each sample's
    class is its label rounded to an integer (or the argmax of a one-hot row); a class the
    dict leaves out weighs 1.

    >>> from tapekit.keras.trainers.data_adapter import class_weight_to_sample_weight
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


def add_class_weight(batch, class_weight):
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
    x, y = as_arrays(x, "x"), as_arrays(y, "y")
    sample_weight = as_arrays(sample_weight, "sample_weight")
    n = num_samples(x, "x")
    split_at = int(np.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"validation_split={validation_split} of {n} samples leaves "
                         f"{split_at} for training and {n - split_at} for validation; both "
                         f"need at least one")
    first, last = slice(0, split_at), slice(split_at, n)
    return ((take(x, first), take(y, first), take(sample_weight, first)),
            (take(x, last), take(y, last), take(sample_weight, last)))
