"""Keras 3's dtype rules, which keras.ops follows and TensorFlow's ops do not.

TensorFlow refuses `tf.maximum(int32 tensor, 2.5)`; Keras 3 promotes both to float32, by a
table shared by its backends (JAX's): an integer meets a float and gives that float, two
floats or two integers give the wider one (int8 and uint8 give int16), and a Python number is
"weak": it takes the other argument's kind and width when it can (float32 and 2 give float32,
int32 and 2.5 give float32, Keras's floatx). A Python number alone is int32 or float32.

    >>> from tapekit.keras.ops.promotion import result_type
    >>> result_type(tk.constant([1, 2]), 2.5), result_type(tk.constant([1.0]), 2)
    (dtype('float32'), dtype('float32'))
    >>> result_type(np.array([1], "int8"), np.array([1], "uint8"))
    dtype('int16')
"""
import builtins
import numbers

import numpy as np

from ...dtypes import as_dtype
from ...ops.conversion import convert_to_tensor
from ...ops.passthrough import cast
from ...tensor import Tensor

FLOATX = np.dtype("float32")      # keras.config.floatx(): the default float of Keras 3
INT = np.dtype("int32")           # a Python int's dtype
BOOL = np.dtype("bool")


def is_float(dtype):
    return np.issubdtype(dtype, np.floating)


def is_weak(value):
    """A Python number (not a NumPy scalar, not an array): Keras lets it adapt."""
    return isinstance(value, (builtins.bool, numbers.Number)) and not isinstance(value, np.generic)


def dtype_of(value):
    """The dtype keras.ops.convert_to_tensor gives `value`: a tensor's or array's own, int32
    for Python ints and lists of them, float32 for Python floats."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        return np.dtype(value.dtype)
    return np.dtype(convert_to_tensor(value).dtype)


def _promote(a, b):
    """Two strong dtypes, by Keras 3's table (JAX's)."""
    if a == b:
        return a
    if a == BOOL or b == BOOL:
        return b if a == BOOL else a
    if is_float(a) != is_float(b):        # an integer meets a float: the float
        return a if is_float(a) else b
    return np.promote_types(a, b)         # two floats or two integers: the wider


def _weak_kind(value):
    if isinstance(value, builtins.bool):
        return BOOL
    return INT if isinstance(value, numbers.Integral) else FLOATX


def result_type(*values):
    """The dtype of an op on `values` (tensors, arrays, Python numbers or lists), by Keras 3's
    promotion (the module's docstring). `float` among them asks for a floating result
    (keras.ops.divide's, mean's)."""
    strong = [dtype_of(v) for v in values if v is not float and not is_weak(v)]
    weak = [_weak_kind(v) for v in values if v is not float and is_weak(v)]
    if any(v is float for v in values):     # `float in values` would compare tensors with ==
        weak.append(FLOATX)
    if not strong:
        strong, weak = weak[:1], weak[1:]
    out = strong[0]
    for dt in strong[1:]:
        out = _promote(out, dt)
    for kind in weak:     # a weak value changes only the kind: bool to int32, an integer to float32
        if kind == FLOATX and not is_float(out):
            out = FLOATX
        elif kind == INT and out == BOOL:
            out = INT
    return out


def to_tensor(value, dtype=None):
    """`value` as a tk.Tensor (of `dtype` when given): a tensor is kept, so a tape still sees
    the same object, and cast only when its dtype differs."""
    dtype = as_dtype(dtype)
    if isinstance(value, Tensor):
        return value if dtype is None or value.dtype == dtype else cast(value, dtype)
    if dtype is None:
        return convert_to_tensor(value, dtype=dtype_of(value))
    if isinstance(value, (np.ndarray, np.generic)) and np.dtype(value.dtype) != dtype:
        return cast(convert_to_tensor(value), dtype)
    if isinstance(value, builtins.bool) and dtype != BOOL:
        value = int(value)             # True meets numbers as 1 (maximum(x, True) in Keras)
    return convert_to_tensor(value, dtype=dtype)


def promoted(*values, dtype=None):
    """The tensors of `values`, all of their common dtype (`result_type`, or `dtype`)."""
    dtype = as_dtype(dtype) if dtype is not None else result_type(*values)
    return [to_tensor(v, dtype) for v in values]


def floating(x):
    """x as a tensor of a floating dtype: an integer or bool becomes float32 (sqrt, exp, mean
    of int32 give float32 in Keras 3); a float keeps its width."""
    x = to_tensor(x)
    return x if is_float(x.dtype) else cast(x, FLOATX)


def float_only(x, what):
    """x as a tensor, refused unless it is floating (keras.ops.sigmoid and softmax refuse an
    int tensor too)."""
    x = to_tensor(x)
    if not is_float(x.dtype):
        raise TypeError(f"keras.ops.{what}: x has dtype {x.dtype}, and {what} takes a floating "
                        f"tensor (as Keras 3 does); cast it first: "
                        f"keras.ops.{what}(keras.ops.cast(x, 'float32'))")
    return x
