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

TensorFlow's other numeric dtypes have its names too (image pixels are often uint8):

>>> tk.constant([0, 255], dtype=tk.uint8)
tk.Tensor([  0 255], shape=(2,), dtype=uint8)
>>> tk.cast(tk.constant([1.7, 300.0]), tk.int16)
tk.Tensor([  1 300], shape=(2,), dtype=int16)
>>> tk.double is tk.float64, tk.half is tk.float16
(True, True)

>>> [d.name for d in (tk.int8, tk.int16, tk.uint8, tk.uint16, tk.uint32, tk.uint64)]
['int8', 'int16', 'uint8', 'uint16', 'uint32', 'uint64']
>>> tk.constant([1 + 2j], dtype=tk.complex64).dtype, tk.complex128.itemsize
(dtype('complex64'), 16)
"""
import builtins

import numpy as np

from .namespaces import missing, public_dir

builtins_bool = builtins.bool   # before `bool` below names the dtype

# tk.dtypes as TensorFlow's tf.dtypes names it (the helpers below serve tapekit itself).
__all__ = ["as_dtype", "bool", "complex64", "complex128", "double", "float16", "float32", "float64",
           "half", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]

float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
bool = np.dtype("bool")  # noqa: A001 - TensorFlow's name, shadows the builtin only here
# TensorFlow's other numeric dtypes, by its names (NumPy has no bfloat16; the quantized
# qint types and string/resource/variant are not numbers tapekit computes with).
int8 = np.dtype("int8")
int16 = np.dtype("int16")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")
half = float16
double = float64

NUMERIC = {"float16": float16, "float32": float32, "float64": float64, "int8": int8,
           "int16": int16, "int32": int32, "int64": int64, "uint8": uint8, "uint16": uint16,
           "uint32": uint32, "uint64": uint64, "complex64": complex64, "complex128": complex128,
           "bool": bool, "half": half, "double": double}

DEFAULT_FLOAT = float32
DEFAULT_INT = int32


# TensorFlow's DataType enum (types.proto), as `tf.dtypes.as_dtype(1)` reads it: the numbers
# tapekit computes with. The others (string 7, quantized 11-16, bfloat16 14, resource 20,
# variant 21, float8 24-25) are refused by name.
DATA_TYPE_ENUM = {1: float32, 2: float64, 3: int32, 4: uint8, 5: int16, 6: int8, 8: complex64,
                  9: int64, 10: bool, 17: uint16, 18: complex128, 19: float16, 22: uint32,
                  23: uint64}
_OTHER_ENUM = {7: "string", 11: "qint8", 12: "quint8", 13: "qint32", 14: "bfloat16",
               15: "qint16", 16: "quint16", 20: "resource", 21: "variant", 24: "float8_e5m2",
               25: "float8_e4m3fn"}
# Spellings where TensorFlow and NumPy disagree: TensorFlow's meaning wins ("float" and
# Python's float are float32, as tf.as_dtype says; NumPy reads them as float64), and the ones
# TensorFlow refuses are refused with what to write instead.
_TF_MEANING = {"float": float32, float: float32, builtins_bool: bool}
_AMBIGUOUS = {"int": "tk.int32 (TensorFlow's dtype for Python ints) or tk.int64",
              int: "tk.int32 (TensorFlow's dtype for Python ints) or tk.int64",
              "complex": "tk.complex64 or tk.complex128",
              complex: "tk.complex64 or tk.complex128"}
_NAMES = ("use one of tk.float32, tk.float64, tk.int32, tk.int64, tk.bool, or TensorFlow's other "
          "names (tk.uint8, tk.int8, tk.int16, tk.uint16, ...)")


def as_dtype(dtype):
    """NumPy dtype for `dtype`, read as `tf.dtypes.as_dtype` reads it: a tapekit/NumPy dtype or
    scalar type, TensorFlow's name ("float32", "half", "double", "float"), its DataType enum
    number (1 is float32, 9 int64), or Python's float and bool.

    >>> tk.dtypes.as_dtype("float"), tk.dtypes.as_dtype(float), tk.dtypes.as_dtype(9)
    (dtype('float32'), dtype('float32'), dtype('int64'))
    """
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, builtins_bool):
        if int(dtype) in DATA_TYPE_ENUM:
            return DATA_TYPE_ENUM[int(dtype)]
        name = _OTHER_ENUM.get(int(dtype))
        raise TypeError(f"{dtype!r} is TensorFlow's DataType number for {name}, which tapekit "
                        f"does not have; {_NAMES}" if name else
                        f"{dtype!r} is not a dtype nor a DataType number of TensorFlow's "
                        f"(1 is float32, 2 float64, 3 int32, 9 int64, 10 bool); {_NAMES}")
    if isinstance(dtype, str) and dtype in NUMERIC:
        return NUMERIC[dtype]
    try:
        hash(dtype)
    except TypeError:                           # a list, a dict, ...: not a dtype either
        raise TypeError(f"{dtype!r} is not a dtype; {_NAMES}") from None
    if dtype in _TF_MEANING:
        return _TF_MEANING[dtype]
    if dtype in _AMBIGUOUS:
        raise TypeError(f"{dtype!r} is not a TensorFlow dtype (NumPy and TensorFlow read it "
                        f"differently): use {_AMBIGUOUS[dtype]}")
    if isinstance(dtype, str) and dtype in {*_OTHER_ENUM.values()}:
        what = ("NumPy has no bfloat16 dtype; use tk.float16 or tk.float32" if dtype == "bfloat16"
                else "tapekit has no string tensors" if dtype == "string" else _NAMES)
        raise TypeError(f"{dtype} is not supported: {what}")
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{dtype!r} is not a dtype; {_NAMES}") from None


def is_floating(dtype):
    return np.issubdtype(dtype, np.floating)


def default_dtype_for(value):
    """The dtype TensorFlow picks for a Python scalar or (nested) list, or None for arrays.

    Floats become float32; integers int32, or int64 when a value does not fit in int32
    (as TensorFlow does: tf.constant(2**40) is int64, never a wrapped int32).
    """
    if isinstance(value, (np.ndarray, np.generic)):
        return None
    return default_dtype_of(natural_array(value))


def natural_array(value, what="convert_to_tensor"):
    """np.asarray(value), with a clear error for a ragged list (NumPy's is about "sequences"),
    and for text (tapekit has no string tensors)."""
    try:
        arr = np.asarray(value)
    except ValueError as e:
        if "inhomogeneous" in str(e):
            raise ValueError(f"cannot convert {short_repr(value)} to a tensor: the nested lists have "
                             f"different lengths (a ragged list). A tensor is rectangular: give "
                             f"every row the same length (pad the short ones)") from None
        raise
    if arr.dtype.kind in "USV":
        raise TextInputError(f"{what}: cannot convert {short_repr(value)} to a tensor: NumPy reads it as dtype "
                    f"{arr.dtype} (text, or numbers mixed with text); tapekit tensors hold numbers "
                    f"and bools only. Give numbers: [1, 2], not [1, 'a']")
    return arr


class TextInputError(TypeError):
    """Raised by natural_array for text; passed on as it is (its message is complete)."""


def default_dtype_of(arr):
    """TensorFlow's dtype for `arr`, the NumPy array of a Python value (natural_array)."""
    if arr.dtype == np.float64:
        return DEFAULT_FLOAT
    if arr.dtype.kind in "iu":
        if arr.size and arr.dtype.itemsize > 4 and (arr.min() < _INT32.min or arr.max() > _INT32.max):
            return int64
        return DEFAULT_INT
    return arr.dtype


_INT32 = np.iinfo(np.int32)


def check_cast(arr, dtype, what, value=None):
    """`arr` as `dtype`, refusing conversions that would change numbers silently.

    A float value into an integer or bool dtype (1.5 -> 1, 0.9 -> 0), an integer outside the
    range of the target integer dtype (2**40 -> 0 in int32), and a number into bool are
    refused, with an error that names `what` (the operation and argument), the value and the
    fix. TensorFlow refuses only some of them (a Python 1.5 for int32, a tensor of another
    dtype); a NumPy 1.5 it truncates, and 2**40 it wraps to 0. Other casts (int -> float,
    float64 -> float32) happen.
    """
    dtype = np.dtype(dtype)
    src = arr.dtype
    if src == dtype:
        return arr
    shown = short_repr(arr if value is None else value)
    if dtype.kind in "iub" and src.kind in "fc":
        raise TypeError(f"{what}: cannot convert {shown} (dtype {src.name}) to {dtype.name}: it "
                        f"would drop the fraction silently. Use a float dtype, or cast on purpose: "
                        f"tk.cast(x, tk.{dtype.name}) truncates toward zero")
    if src.kind in "USO" and dtype.kind not in "USO":
        raise TypeError(f"{what}: cannot convert {shown} (a {src.name} string) to {dtype.name}: "
                        f"tapekit does not parse text. Give a number, e.g. float(text)")
    if src.kind == "b" and dtype.kind != "b":
        raise TypeError(f"{what}: cannot convert {shown} (dtype bool) to {dtype.name}: "
                        f"tapekit does not turn True into 1 silently. Cast on purpose: "
                        f"tk.cast(mask, tk.{dtype.name})")
    if dtype.kind == "b" and src.kind in "iu":
        raise TypeError(f"{what}: cannot convert {shown} (dtype {src.name}) to bool; compare "
                        f"instead, e.g. x != 0")
    if dtype.kind in "iu" and src.kind in "iu" and arr.size and not np.can_cast(src, dtype):
        info = np.iinfo(dtype)
        low, high = arr.min(), arr.max()
        if low < info.min or high > info.max:
            bad = low if low < info.min else high
            fix = " Use dtype tk.int64" if dtype.itemsize < 8 else ""
            raise ValueError(f"{what}: the value {bad} does not fit in {dtype.name} (range "
                             f"{info.min}..{info.max}); it would wrap around silently.{fix}")
    if dtype.kind == "f" and src.kind in "iuf" and (src.kind != "f" or src.itemsize > dtype.itemsize):
        return _narrowed(arr, dtype, what, shown)
    return arr.astype(dtype)


def _narrowed(arr, dtype, what, shown):
    """`arr` cast to a narrower float dtype; refused where a finite number becomes inf (1e40
    into float32, 70000 into float16). An inf or nan that was given stays."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = arr.astype(dtype)
    if out.size and np.isinf(out).any():
        grew = np.isinf(out) & np.isfinite(arr)
        if grew.any():
            bad = float(np.asarray(arr)[grew].flat[0])
            shown = f" (in {shown})" if arr.size > 1 else ""
            raise ValueError(f"{what}: the value {bad!r}{shown} overflows {dtype.name} "
                             f"(largest finite {np.finfo(dtype).max:.6g}); it would become inf "
                             f"silently. Use a wider dtype (tk.float64), or scale the value")
    return out


def short_repr(value, n=60):
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
__getattr__ = missing(__name__)   # a TensorFlow name tapekit refuses says what to use instead
