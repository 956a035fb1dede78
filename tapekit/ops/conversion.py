"""Values into tensors: `tk.constant` and `tk.convert_to_tensor` (TensorFlow's names).

A NumPy array that enters is copied, so that the caller changing theirs later changes
no tensor (tensor.to_array, which also applies TensorFlow's dtype defaults); a tensor
is returned as it is, and a Variable gives a snapshot of its value (a recorded read).

They live among the ops because they run ops (identity, stack) and ops convert their
inputs with them; tapekit/convert.py is their home for the modules above the ops.
"""
import numpy as np

from .. import dtypes
from ..tensor import Tensor, Variable, to_array, wrap_array
from .passthrough import identity
from .shapes import shape_argument, stack


def constant(value, dtype=None, shape=None, name=None):
    """A Tensor from a Python value or array (`tf.constant`).

    >>> tk.constant([[1, 2], [3, 4]])
    tk.Tensor(
    [[1 2]
     [3 4]], shape=(2, 2), dtype=int32)

    >>> tk.constant(1.0, dtype=tk.float64)
    tk.Tensor(1.0, shape=(), dtype=float64)

    >>> tk.constant(0.0, shape=(2, 3))
    tk.Tensor(
    [[0. 0. 0.]
     [0. 0. 0.]], shape=(2, 3), dtype=float32)
    """
    if isinstance(value, Tensor):   # a snapshot of its value, not recorded: a constant
        _check_tensor_dtype(value, dtypes.as_dtype(dtype), "constant")
        t = wrap_array(value._value)
    else:
        t = _convert(value, dtype, None, "constant")
        if t is value:
            t = wrap_array(t._value)
    if shape is not None:
        shape = shape_argument(shape, "constant", "shape")
        if t.size == 1:
            arr = np.broadcast_to(t._value, shape).copy()
        elif t.size == _prod(shape) and -1 not in shape:
            arr = t._value.reshape(shape)
        else:
            raise ValueError(f"constant: a value of shape {t.shape} ({t.size} elements) cannot "
                             f"take shape {shape}; give one number, or as many as the shape holds")
        t = wrap_array(arr)
    t._name = name
    return t


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def convert_to_tensor(value, dtype=None, name=None):
    """`value` as a Tensor (`tf.convert_to_tensor`).

    A Tensor is returned as it is (its dtype must match `dtype`). A Variable gives a new
    Tensor, a snapshot of its value: a read that tapes record, so gradients flow back to
    the variable (TensorFlow's ReadVariableOp). Anything else is converted (NumPy arrays
    copied).

    >>> tk.convert_to_tensor([1.0, 2.0])
    tk.Tensor([1. 2.], shape=(2,), dtype=float32)
    >>> t = tk.constant(3.0)
    >>> tk.convert_to_tensor(t) is t          # a tensor is returned as it is
    True
    >>> v = tk.Variable(2.0)
    >>> snapshot = tk.convert_to_tensor(v)   # a Tensor, not the Variable
    >>> _ = v.assign(5.0)
    >>> snapshot
    tk.Tensor(2.0, shape=(), dtype=float32)
    """
    return _convert(value, dtype, name, "convert_to_tensor")


def _convert(value, dtype, name, what):
    dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        _check_tensor_dtype(value, dtype, what)
        if isinstance(value, Variable):
            return identity(value)
        return value
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return stack([convert_to_tensor(v, dtype) for v in value])
    t = wrap_array(to_array(value, dtype, what=what))
    t._name = name
    return t


def _check_tensor_dtype(tensor, dtype, what):
    if dtype is not None and tensor.dtype != dtype:
        raise ValueError(f"{what}: the tensor has dtype {tensor.dtype.name}, requested "
                         f"{dtype.name}; use tk.cast(x, tk.{dtype.name})")


def _holds_tensor(seq):
    return any(isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in seq)
