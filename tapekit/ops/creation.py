"""Tensors made from shapes or ranges, and one_hot: constants, no gradient; zeros_like and
ones_like, recorded (a tape tracks what they compute from a tracked input, as TensorFlow's)."""
import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap_array
from .inputs import as_axis, as_int, python_value
from .registry import defop
from .shapes import reshape_op, shape_argument, sum_to


def _unguarded(x):
    # Only the shape or dtype is read: nothing about the values is decided, so no guard.
    return x._value if isinstance(x, Tensor) else x


def _plain(x):
    return python_value(x)   # range's bounds, linspace's ends: guarded under tk.function


def _shape(shape, op):
    # Integers >= 0 only: zeros([2.5]) raises, as in TensorFlow (it made 2 before).
    return () if shape is None else shape_argument(shape, op, allow_unknown=False)


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros (float32 unless `dtype` says otherwise).

    >>> tk.zeros([2, 2])
    tk.Tensor(
    [[0. 0.]
     [0. 0.]], shape=(2, 2), dtype=float32)
    """
    return wrap_array(np.zeros(_shape(shape, "zeros"), dtypes.as_dtype(dtype)))


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones (float32 unless `dtype` says otherwise).

    >>> tk.ones([2, 3])
    tk.Tensor(
    [[1. 1. 1.]
     [1. 1. 1.]], shape=(2, 3), dtype=float32)
    >>> tk.ones([2], dtype=tk.int32)
    tk.Tensor([1 1], shape=(2,), dtype=int32)
    """
    return wrap_array(np.ones(_shape(shape, "ones"), dtypes.as_dtype(dtype)))


def _fill(value, shape):
    # value is a scalar, or (a jacobian's batch of tangents) has leading axes, kept in front
    value = np.asarray(value)
    out = np.empty(value.shape + shape, value.dtype)
    out[...] = value.reshape(value.shape + (1,) * len(shape))
    return out


# Differentiable in the value, as TensorFlow's Fill: every element is the value, so its
# gradient is the sum of the cotangent. The shape is an attribute (no gradient).
fill_op = defop("fill", _fill, args="value",
                vjp=[lambda g, ans, value, shape: sum_to(g, shape=(), nlead=g.ndim - len(shape))],
                jvp=[lambda t, ans, value, shape: fill_op(t, shape=shape)])


def fill(dims, value, name=None, layout=None):
    """A tensor of shape `dims` with every element `value` (`tf.fill`); the dtype is the
    value's (an int gives int32, a float float32).

    >>> tk.fill([2, 3], 9)
    tk.Tensor(
    [[9 9 9]
     [9 9 9]], shape=(2, 3), dtype=int32)
    >>> tk.fill([2], 1.5)
    tk.Tensor([1.5 1.5], shape=(2,), dtype=float32)
    """
    if layout is not None:   # a DTensor layout: tapekit has one device, no sharding
        raise NotImplementedError("fill: layout= (DTensor sharding) is not supported; leave it None")
    shape = _shape(dims, "fill")
    size = np.size(_unguarded(value))
    if size != 1:
        raise InvalidArgumentError(f"fill: value must be a scalar (one number for every element), "
                                   f"got shape {np.shape(_unguarded(value))}")
    if np.ndim(_unguarded(value)):   # [1.5]: TensorFlow 2.21 takes its one element
        value = reshape_op(value, shape=())
    return fill_op(value, shape=shape)


def _fill_like(value):
    return lambda x: np.full(x.shape, value, x.dtype)


# Recorded, as TensorFlow's ZerosLike and OnesLike are: the result is a value computed from a
# tracked input (a gradient *with respect to it* exists), though none flows back through it.
zeros_like_op = defop("zeros_like", _fill_like(0), doc="Zeros of the input's shape and dtype (no gradient).")
ones_like_op = defop("ones_like", _fill_like(1), doc="Ones of the input's shape and dtype (no gradient).")


def _like(op, fill, input, dtype):
    if isinstance(input, (list, tuple)):
        input = Tensor(input)
    value = np.asarray(_unguarded(input))
    dtype = dtypes.as_dtype(dtype)
    if dtype is None or dtype == value.dtype:
        return op(input)
    # Another dtype: a constant, not computed from the input (so a tape does not track it,
    # as in TensorFlow, which makes it with tf.zeros / tf.ones).
    return wrap_array(np.full(value.shape, fill, dtype))


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """Zeros with the shape (and dtype) of `input`.

    >>> tk.zeros_like(tk.constant([1.5, 2.5]))
    tk.Tensor([0. 0.], shape=(2,), dtype=float32)
    """
    return _like(zeros_like_op, 0, input, dtype)


def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Ones with the shape (and dtype) of `input`.

    >>> tk.ones_like(tk.constant([[1, 2, 3]]))
    tk.Tensor([[1 1 1]], shape=(1, 3), dtype=int32)
    """
    return _like(ones_like_op, 1, input, dtype)


def range(start, limit=None, delta=1, dtype=None, name=None):  # noqa: A001 - tf.range
    """Numbers from start (inclusive) to limit (exclusive) in steps of delta.

    >>> tk.range(5)
    tk.Tensor([0 1 2 3 4], shape=(5,), dtype=int32)
    >>> tk.range(1.0, 2.0, 0.25)
    tk.Tensor([1.   1.25 1.5  1.75], shape=(4,), dtype=float32)
    """
    if limit is None:
        start, limit = 0, start
    start, limit, delta = _plain(start), _plain(limit), _plain(delta)
    if np.ndim(delta) == 0 and delta == 0:
        raise InvalidArgumentError(f"range: delta=0 would never reach limit={limit!r} from "
                                   f"start={start!r}; give a nonzero step (delta=1, or negative to "
                                   f"count down)")
    if dtype is not None and dtypes.as_dtype(dtype).kind in "iu" and any(
            np.asarray(v).dtype.kind == "f" for v in (start, limit, delta)):
        # TensorFlow refuses ("Cannot convert 0.0 to EagerTensor of dtype int32"); NumPy would
        # count in floats and truncate each value: range(0., 2.5, 0.5) -> [0 0 1 1 2]
        raise TypeError(f"range: start={start!r}, limit={limit!r}, delta={delta!r} include a float "
                        f"but dtype is {dtypes.as_dtype(dtype).name}; give integers, or a float "
                        f"dtype and cast the result")
    if dtype is None:
        dtype = dtypes.default_dtype_for([start, limit, delta]) if not any(
            isinstance(v, (np.ndarray, np.generic)) for v in (start, limit, delta)) else \
            np.result_type(start, limit, delta)
    return wrap_array(np.arange(start, limit, delta).astype(dtypes.as_dtype(dtype)))


def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from start to stop, both included.

    >>> tk.linspace(0.0, 1.0, 5)
    tk.Tensor([0.   0.25 0.5  0.75 1.  ], shape=(5,), dtype=float32)
    """
    start, stop = _plain(start), _plain(stop)
    dtype = dtypes.float32 if type(start) in (int, float) else np.result_type(start)
    if type(start) is int or dtype.kind in "iu":
        # TensorFlow converts stop to start's integer dtype, then divides integers: float64
        if type(stop) is float:
            raise TypeError(f"linspace: start={start!r} is an integer and stop={stop!r} a float; "
                            f"TensorFlow refuses this too. Give both as floats: "
                            f"tk.linspace(float(start), stop, num)")
        dtype = dtypes.float64
    elif dtype.kind not in "f":
        dtype = dtypes.float32
    num = as_int(_plain(num), "linspace: num")
    if num < 0:   # TensorFlow 2.21 gives an empty tensor for num=0, and raises below 0
        raise InvalidArgumentError(f"linspace: num must be at least 0 (the number of values from "
                                   f"start to stop), got num={num}")
    return wrap_array(np.linspace(start, stop, num, axis=as_int(axis, "linspace: axis")).astype(dtype))


def _one_hot(indices, depth, on, off, axis, dtype):
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"indices must be integers, got dtype {idx.dtype}")
    hot = idx[..., None] == np.arange(depth)   # out-of-range indices give all-off rows, as TF
    out = np.where(hot, np.asarray(on, dtype), np.asarray(off, dtype))
    return np.moveaxis(out, -1, axis) if axis != -1 else out


one_hot_op = defop("one_hot", _one_hot, args="indices",
                   doc="A new axis of size depth: on at each index, off elsewhere (no gradient).")


def one_hot(indices, depth, on_value=None, off_value=None, axis=-1, dtype=None, name=None):
    """A new last axis of size `depth`: on_value at each index, off_value elsewhere.

    >>> tk.one_hot([0, 2], depth=3)
    tk.Tensor(
    [[1. 0. 0.]
     [0. 0. 1.]], shape=(2, 3), dtype=float32)

    Labels often arrive as a NumPy float array (`y_train.astype("float32")`): TensorFlow
    converts such an array to integers, truncating toward zero, and so does tapekit. A float
    tensor or a Python list of floats is refused, as in TensorFlow.

    >>> tk.one_hot(np.array([1.0, 2.0]), 3)
    tk.Tensor(
    [[0. 1. 0.]
     [0. 0. 1.]], shape=(2, 3), dtype=float32)
    """
    dtype = dtypes.as_dtype(dtype) or dtypes.float32
    if isinstance(indices, (np.ndarray, np.floating)) and np.asarray(indices).dtype.kind == "f":
        indices = np.asarray(indices).astype(np.int64)       # TF's conversion of an ndarray
    elif np.asarray(_unguarded(indices)).dtype.kind in "fc":
        got = "a float tensor" if isinstance(indices, Tensor) else "Python floats"
        raise TypeError(f"one_hot: indices must be integers, got {got} (dtype "
                        f"{np.asarray(_unguarded(indices)).dtype.name}), which TensorFlow refuses "
                        f"too. Cast them: tk.one_hot(tk.cast(indices, tk.int32), depth)")
    on = 1 if on_value is None else _plain(on_value)
    off = 0 if off_value is None else _plain(off_value)
    depth = as_int(_plain(depth), "one_hot: depth")
    if depth < 0:
        raise ValueError(f"one_hot: depth must be >= 0, got {depth}")
    ndim = np.ndim(_unguarded(indices)) + 1
    axis = as_axis(axis, ndim, "one_hot: axis")
    return one_hot_op(indices, depth=depth, on=on, off=off, axis=axis, dtype=dtype)


def where_indices(condition):
    return wrap_array(np.argwhere(np.asarray(_plain(condition))).astype(np.int64))
