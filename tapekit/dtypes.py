"""The six dtypes tapekit names, and TensorFlow's defaults for Python values.

Python floats become float32 and Python ints int32, as in TensorFlow; NumPy
arrays keep their own dtype. The dtypes are plain NumPy dtypes, so
``x.dtype == tk.float32`` and ``x.dtype == np.float32`` both hold.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.constant(1.0).dtype == tk.float32         # Python floats become float32
True
>>> tk.constant(1).dtype == tk.int32             # Python ints become int32
True
>>> tk.constant(np.arange(3)).dtype == tk.int64  # NumPy arrays keep their dtype
True
>>> tk.constant([True, False]).dtype == tk.bool
True

>>> tk.cast(tk.constant(1.5), tk.float64)
tk.Tensor(1.5, shape=(), dtype=float64)

>>> tk.cast(tk.constant(1.5), tk.float16)
tk.Tensor(1.5, shape=(), dtype=float16)
"""
import numpy as np

float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
bool = np.dtype("bool")  # noqa: A001 - TensorFlow's name, shadows the builtin only here

DEFAULT_FLOAT = float32
DEFAULT_INT = int32


def as_dtype(dtype):
    """NumPy dtype for `dtype` (a tapekit/NumPy dtype, a type such as float, or a name)."""
    if dtype is None:
        return None
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{dtype!r} is not a dtype; use one of tk.float32, tk.float64, "
                        f"tk.int32, tk.int64, tk.bool") from None


def is_floating(dtype):
    return np.issubdtype(dtype, np.floating)


def default_dtype_for(value):
    """The dtype TensorFlow picks for a Python scalar or (nested) list, or None for arrays."""
    if isinstance(value, (np.ndarray, np.generic)):
        return None
    arr = np.asarray(value)
    if arr.dtype == np.float64:
        return DEFAULT_FLOAT
    if arr.dtype.kind in "iu":
        return DEFAULT_INT
    return arr.dtype
