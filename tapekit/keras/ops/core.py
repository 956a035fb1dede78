"""keras.ops's core functions (Keras keeps them in keras/src/ops/core.py): shape, cast,
conversion to and from tensors, slice.

    >>> x = tk.keras.ops.convert_to_tensor([[1, 2, 3], [4, 5, 6]])
    >>> tk.keras.ops.shape(x)                  # a tuple of ints, as in Keras 3
    (2, 3)
    >>> tk.keras.ops.slice(x, (0, 1), (2, -1))  # -1: to the end of that axis
    tk.Tensor(
    [[2 3]
     [5 6]], shape=(2, 2), dtype=int32)
"""
import numpy as np

from ...namespaces import missing, public_dir
from ...ops.passthrough import cast as tf_cast
from ...dtypes import as_dtype
from ...tensor import Tensor
from .promotion import to_tensor

__all__ = ["cast", "convert_to_numpy", "convert_to_tensor", "shape", "slice"]


def shape(x):
    """x's shape as a tuple of Python ints (`keras.ops.shape`; tk.shape gives a tensor)."""
    if isinstance(x, Tensor):
        return tuple(int(d) for d in x.shape)
    return tuple(int(d) for d in np.shape(x))


def cast(x, dtype):
    """x as `dtype` (floats to integers truncate toward zero, as in Keras 3 on TensorFlow)."""
    return tf_cast(to_tensor(x), as_dtype(dtype))


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """x as a tensor: Python ints give int32, Python floats float32, a NumPy array keeps its
    dtype (float64 stays float64), a tensor is returned as it is (cast to `dtype` if given).
    tapekit has no sparse or ragged tensors: `sparse=True` / `ragged=True` are refused."""
    if sparse or ragged:
        raise ValueError(f"keras.ops.convert_to_tensor: tapekit has no "
                         f"{'sparse' if sparse else 'ragged'} tensors; leave sparse and ragged "
                         f"at None or False for a dense tensor")
    return to_tensor(x, dtype)


def convert_to_numpy(x):
    """x's value as a NumPy array (a copy, not a view of the tensor)."""
    return np.array(x.numpy() if isinstance(x, Tensor) else x)


def slice(inputs, start_indices, shape):  # noqa: A001 - Keras's name
    """The block of `inputs` that starts at `start_indices` and has `shape` (`-1` in `shape`:
    up to the end of that axis), as `keras.ops.slice` / `tf.slice`. Differentiable: the
    gradient is zero outside the block."""
    x = to_tensor(inputs)
    starts, sizes = [int(s) for s in np.ravel(start_indices)], [int(s) for s in np.ravel(shape)]
    dims = tuple(int(d) for d in x.shape)
    if not len(starts) == len(sizes) == len(dims):
        raise ValueError(f"keras.ops.slice: inputs has shape {dims} ({len(dims)} axes), but "
                         f"start_indices has {len(starts)} entries and shape {len(sizes)}; "
                         f"give one start and one size per axis")
    index = []
    for axis, (start, size, dim) in enumerate(zip(starts, sizes, dims)):
        stop = dim if size == -1 else start + size
        if start < 0 or size < -1 or stop > dim:
            raise ValueError(f"keras.ops.slice: on axis {axis} (length {dim}) the block "
                             f"[{start}, {stop}) does not fit; starts must be >= 0 and "
                             f"start + size <= {dim} (size -1 means to the end)")
        index.append(np.s_[start:stop])
    return x[tuple(index)]


__dir__ = public_dir(globals())
__getattr__ = missing(__name__)
