"""Ops that move elements without changing them: reshape, transpose, concat, stack, split,
expand/squeeze, and the broadcast pair sum_to / broadcast_to (indexing and gather:
indexing.py).

Every rule names axes from the right or skips `lead` leading axes, so a batch of
cotangents (jacobian) flows through unchanged.
"""
import functools
import math

import numpy as np

from ..errors import InvalidArgumentError
from .indexing import getitem, ndim_of
from .inputs import as_axis, as_int, check_alike, input_shape, python_value
from .registry import defop, numpy_function


def _lead(g, ans):
    """The leading batch axes a cotangent carries beyond the op's output."""
    return tuple(g.shape[: g.ndim - ans.ndim])


# --- broadcasting: sum_to and broadcast_to are each other's adjoint -----------------------
@functools.lru_cache(maxsize=64)
def ones_vector(n, dtype):
    """A read-only vector of n ones (the same bias gradients are summed at every step)."""
    ones = np.ones(n, dtype)
    ones.flags.writeable = False
    return ones


def _sum_to(x, shape, nlead):
    # x.shape = lead + extra + b, with b broadcast-compatible with `shape`.
    lead_axes = nlead
    extra = x.ndim - nlead - len(shape)
    if extra > 0 and nlead == 0 and x.dtype.kind == "f" and x.flags.c_contiguous and x.size:
        # Summing leading axes (a bias gradient) as ones @ x: NumPy's reduction over a long
        # outer axis with a short inner one is many times slower than one BLAS call.
        tail = x.shape[extra:]
        rows = x.reshape(-1, math.prod(tail))
        x = (ones_vector(rows.shape[0], x.dtype) @ rows).reshape(tail)
        if tail == shape:
            return x
    elif extra > 0:
        axes = tuple(range(lead_axes, lead_axes + extra))
        x = np.add.reduce(x, axis=axes)
    ones = tuple(nlead + i for i, n in enumerate(shape) if n == 1 and x.shape[nlead + i] != 1)
    if ones:
        x = np.add.reduce(x, axis=ones, keepdims=True)
    return x


def _sum_to_vjp(g, ans, x, shape, nlead):
    # Put back the summed-away axes as size 1, then broadcast to x's shape.
    outer = g.ndim - ans.ndim
    extra = x.ndim - nlead - len(shape)
    g = reshape(g, tuple(g.shape[: outer + nlead]) + (1,) * extra + tuple(g.shape[outer + nlead:]))
    return broadcast_to(g, shape=tuple(g.shape[:outer]) + tuple(x.shape))


sum_to = defop("sum_to", _sum_to,
               vjp=[_sum_to_vjp],
               jvp=[lambda t, ans, x, shape, nlead: sum_to(t, shape=shape, nlead=nlead)],
               doc="Sum a broadcast result back to `shape`, keeping `nlead` leading axes.")


def _broadcast_to_vjp(g, ans, x, shape):
    nlead = g.ndim - ans.ndim
    return sum_to(g, shape=tuple(x.shape), nlead=nlead)   # `shape` excludes the nlead axes


def _broadcast_to(x, shape):
    if ((type(x) is np.ndarray and x.ndim == 0 or isinstance(x, np.generic))
            and type(shape) is tuple and (not shape or min(shape) >= 0)):
        # One number to any shape (the cotangent of a full reduction): the read-only view
        # np.broadcast_to returns, made directly; its Python layer costs more than the rule.
        view = np.ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
        view.flags.writeable = False
        return view
    return np.broadcast_to(x, shape)


broadcast_to_op = defop("broadcast_to", _broadcast_to,
                        vjp=[_broadcast_to_vjp],
                        jvp=[lambda t, ans, x, shape: broadcast_to_op(t, shape=shape)])


def broadcast_to(input, shape, name=None):  # noqa: A002
    """`input` repeated along new or size-1 axes to `shape` (NumPy's broadcasting rules);
    the gradient sums back over the repeated axes.

    >>> tk.broadcast_to([1, 2], [2, 2])
    tk.Tensor(
    [[1 2]
     [1 2]], shape=(2, 2), dtype=int32)
    >>> x = tk.constant([1.0, 2.0])
    >>> with tk.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = tk.reduce_sum(tk.broadcast_to(x, [3, 2]))
    >>> tape.gradient(y, x)                  # each entry was used 3 times
    tk.Tensor([3. 3.], shape=(2,), dtype=float32)
    """
    if type(shape) is not tuple or any(type(d) is not int for d in shape):
        shape = shape_argument(shape, "broadcast_to", allow_unknown=False)
    x_shape = tuple(np.shape(python_value(input))) if not hasattr(input, "shape") else tuple(input.shape)
    try:
        np.broadcast_shapes(x_shape, shape)
        ok = len(shape) >= len(x_shape) and np.broadcast_shapes(x_shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"broadcast_to: cannot broadcast an input of shape {x_shape} to "
                         f"{shape}: each axis of the input, counted from the last, must be 1 or "
                         f"equal to the target's")
    return broadcast_to_op(input, shape=shape)


def broadcast_to_shape(input, shape, name=None):  # noqa: A002 - TensorFlow's argument name
    """`input` repeated along new or size-1 axes to `shape` (`tf.broadcast_to`).

    Exported as tk.broadcast_to; the gradient sums back over the repeated axes.

    >>> tk.broadcast_to(tk.constant([1.0, 2.0]), [2, 2])
    tk.Tensor(
    [[1. 2.]
     [1. 2.]], shape=(2, 2), dtype=float32)
    """
    dims = python_value(shape)
    dims = tuple(as_int(d, "broadcast_to: shape") for d in np.asarray(dims).reshape(-1))
    return broadcast_to(input, shape=dims)


# --- reshape family: the VJP reshapes back ------------------------------------------------
def _reshape_back(g, ans, x, **attrs):
    return reshape_op(g, shape=_lead(g, ans) + tuple(x.shape))


def _reshape_fwd(g, ans, x, **attrs):
    return reshape_op(g, shape=tuple(ans.shape))


reshape_op = defop("reshape", lambda x, shape: x.reshape(shape),
                   vjp=[_reshape_back], jvp=[_reshape_fwd])


def shape_argument(shape, op, arg="shape", allow_unknown=True):
    """`shape` (an int, a list/tuple, or a 1-D integer tensor or array) as a tuple of ints.

    Each entry must be an integer (3.9 raises: int() would make it 3), >= 0, or -1 once
    (an unknown dimension) when `allow_unknown`. `op` and `arg` name the call in errors.
    """
    shape = python_value(shape)   # a traced tensor's value: guarded (tk.function)
    if isinstance(shape, np.ndarray):
        if shape.ndim > 1:
            raise ValueError(f"{op}: {arg} must be a list of integers, got an array of shape {shape.shape}")
        if shape.dtype.kind not in "iu":
            raise TypeError(f"{op}: {arg} must hold integers, got dtype {shape.dtype.name}: {shape.tolist()}")
        shape = shape.tolist()
    elif not isinstance(shape, (list, tuple)):
        shape = [shape]
    dims = tuple(as_int(d, f"{op}: {arg}[{i}]") for i, d in enumerate(shape))
    unknown = [d for d in dims if d < 0]
    if unknown and not (allow_unknown and unknown == [-1]):
        what = "one -1 (an unknown dimension) and sizes >= 0" if allow_unknown else "sizes >= 0"
        raise ValueError(f"{op}: {arg} = {list(dims)} is not a valid shape; it takes {what}")
    return dims


@numpy_function(np.reshape)
def reshape(tensor, shape, name=None):
    """`tensor` with a new shape of the same size (-1 infers one dimension).

    >>> tk.reshape(tk.range(6), [2, 3])
    tk.Tensor(
    [[0 1 2]
     [3 4 5]], shape=(2, 3), dtype=int32)
    >>> tk.reshape(tk.range(6), [-1, 2]).shape
    (3, 2)
    """
    return reshape_op(tensor, shape=shape_argument(shape, "reshape"))


def _expand_dims(x, axis):
    # np.expand_dims as one reshape (the NumPy function is a Python layer of ~1.5 us)
    n = x.ndim + 1
    if not -n <= axis < n:
        raise ValueError(f"axis {axis} is out of bounds for a result of {n} dimensions")
    a = axis % n
    return x.reshape(x.shape[:a] + (1,) + x.shape[a:])


expand_dims_op = defop("expand_dims", _expand_dims,
                       vjp=[_reshape_back], jvp=[_reshape_fwd])


@numpy_function(np.expand_dims)
def expand_dims(input, axis, name=None):  # noqa: A002
    """Insert a size-1 axis at `axis`.

    >>> tk.expand_dims(tk.constant([1.0, 2.0]), axis=0).shape
    (1, 2)
    >>> tk.expand_dims(tk.constant([1.0, 2.0]), axis=-1).shape
    (2, 1)
    """
    return expand_dims_op(input, axis=as_int(axis, "expand_dims: axis"))


squeeze_op = defop("squeeze", lambda x, axis: np.squeeze(x, axis),
                   vjp=[_reshape_back], jvp=[_reshape_fwd])


@numpy_function(np.squeeze)
def squeeze(input, axis=None, name=None):  # noqa: A002
    """Remove size-1 axes (all of them, or those in `axis`).

    >>> tk.squeeze(tk.zeros([1, 3, 1])).shape
    (3,)
    >>> tk.squeeze(tk.zeros([1, 3, 1]), axis=0).shape
    (3, 1)
    """
    if axis is not None:
        ndim = ndim_of(input)
        axis = tuple(as_axis(a, ndim, "squeeze: axis") for a in np.atleast_1d(axis).tolist())
    return squeeze_op(input, axis=axis)


# --- transpose ------------------------------------------------------------------------------
def _transpose_vjp(g, ans, x, perm):
    nlead = g.ndim - ans.ndim
    inverse = np.argsort(perm)
    return transpose_op(g, perm=tuple(range(nlead)) + tuple(nlead + int(p) for p in inverse))


transpose_op = defop("transpose", lambda x, perm: x.transpose(perm),   # the method: no Python layer
                     vjp=[_transpose_vjp],
                     jvp=[lambda t, ans, x, perm: transpose_op(t, perm=perm)])


@numpy_function(np.transpose)
def transpose(a, perm=None, conjugate=False, name=None):
    """Permute axes (reverse them when `perm` is None).

    >>> tk.transpose(tk.constant([[1, 2, 3]]))
    tk.Tensor(
    [[1]
     [2]
     [3]], shape=(3, 1), dtype=int32)
    >>> tk.transpose(tk.zeros([2, 3, 4]), perm=[2, 0, 1]).shape
    (4, 2, 3)
    """
    ndim = np.ndim(a) if not hasattr(a, "ndim") else a.ndim
    if perm is None:
        return transpose_op(a, perm=tuple(range(ndim))[::-1])
    given = shape_argument(perm, "transpose", "perm", allow_unknown=False) if not isinstance(perm, list) \
        else tuple(as_int(p, f"transpose: perm[{i}]") for i, p in enumerate(perm))
    axes = tuple(p + ndim if -ndim <= p < 0 else p for p in given)
    if sorted(axes) != list(range(ndim)):
        raise ValueError(f"transpose: perm = {list(given)} is not a permutation of the {ndim} axes "
                         f"of a tensor of shape {tuple(np.shape(a))}; it must list each of "
                         f"{list(range(ndim))} once")
    return transpose_op(a, perm=axes)


def swapaxes_last2(x):
    """Transpose the last two axes (for matmul rules)."""
    if type(x) is np.ndarray:
        # A plain array (a rule in an unrecorded backward pass, or a constant input): there is
        # nothing to record, so NumPy's view directly, without the op's dispatch.
        return x.swapaxes(-1, -2)
    n = x.ndim
    return transpose_op(x, perm=tuple(range(n - 2)) + (n - 1, n - 2))


# --- concat and stack: variadic ----------------------------------------------------------------
def _concat_vjp(g, ans, *xs, axis):
    # axis is negative (normalised at call time), so it also counts right in a batch.
    pieces, start = [], 0
    tail = (slice(None),) * (-axis - 1)
    for x in xs:
        n = x.shape[axis]
        pieces.append(getitem(g, (Ellipsis, slice(start, start + n)) + tail))
        start += n
    return pieces


def _concat_jvp(ts, ans, *xs, axis):
    return concat_op(*[t if t is not None else zeros_like_meta(x) for t, x in zip(ts, xs)], axis=axis)


concat_op = defop("concat", lambda *xs, axis: np.concatenate(xs, axis=axis), args="values",
                  save="", variadic=True, same_dtype=True, bools=True, vjp=_concat_vjp,
                  jvp=_concat_jvp)


def negative_axis(axis, ndim, op="concat"):
    axis = as_axis(axis, ndim, f"{op}: axis")
    return axis - ndim if axis >= 0 else axis


@numpy_function(np.concatenate)
def concat(values, axis, name=None):
    """Join tensors along an existing axis.

    >>> a = tk.constant([[1.0, 2.0]])
    >>> b = tk.constant([[3.0, 4.0]])
    >>> tk.concat([a, b], axis=0)
    tk.Tensor(
    [[1. 2.]
     [3. 4.]], shape=(2, 2), dtype=float32)
    >>> tk.concat([a, b], axis=1)
    tk.Tensor([[1. 2. 3. 4.]], shape=(1, 4), dtype=float32)
    """
    values = list(values)
    if not values:
        raise ValueError("concat: needs at least one tensor")
    shapes = [input_shape(x, "concat", k) for k, x in enumerate(values)]
    axis = negative_axis(axis, len(shapes[0]))
    check_alike("concat: inputs must all have the same rank", shapes,
                "Give every input one rank first (tk.reshape, tk.expand_dims), or leave the odd "
                "ones out", key=len, like=lambda shape: f"rank {len(shape)}")
    check_alike(f"concat: inputs must have the same size in every axis but the axis joined "
                f"(axis {axis + len(shapes[0])})", shapes,
                "Slice, pad or reshape the odd ones first, or join along another axis",
                key=lambda shape: shape[:axis] + shape[axis + 1:] if axis != -1 else shape[:-1],
                like=lambda shape: f"shape {_any_along(shape, axis)}")
    return concat_op(*values, axis=axis)


def _any_along(shape, axis):
    """(2, ?, 3): a shape with the joined axis left open, as the error of concat shows it."""
    dims = [str(n) for n in shape]
    dims[axis] = "?"
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _stack_vjp(g, ans, *xs, axis):
    tail = (slice(None),) * (-axis - 1)
    return [getitem(g, (Ellipsis, i) + tail) for i in range(len(xs))]


def _stack_jvp(ts, ans, *xs, axis):
    return stack_op(*[t if t is not None else zeros_like_meta(x) for t, x in zip(ts, xs)], axis=axis)


stack_op = defop("stack", lambda *xs, axis: np.stack(xs, axis=axis), args="values", save="",
                 variadic=True, same_dtype=True, bools=True, vjp=_stack_vjp, jvp=_stack_jvp)


@numpy_function(np.stack)
def stack(values, axis=0, name=None):
    """Join tensors along a new axis.

    >>> tk.stack([tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0])])
    tk.Tensor(
    [[1. 2.]
     [3. 4.]], shape=(2, 2), dtype=float32)
    >>> tk.stack([tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0])], axis=1)
    tk.Tensor(
    [[1. 3.]
     [2. 4.]], shape=(2, 2), dtype=float32)
    """
    values = list(values)
    if not values:
        raise ValueError("stack: needs at least one tensor")
    shapes = [input_shape(x, "stack", k) for k, x in enumerate(values)]
    axis = negative_axis(axis, len(shapes[0]) + 1, "stack")
    check_alike("stack: inputs must all have the same shape", shapes,
                "Give every input one shape first (tk.reshape, slicing, tk.pad), or leave the odd "
                "ones out")
    return stack_op(*values, axis=axis)


# --- split: concat's inverse, one slice per piece ---------------------------------------------
def split_sizes(num_or_size_splits, n, axis, num=None):
    """The piece sizes `tk.split` cuts an axis of size `n` into: `k` equal pieces, or the
    sizes of a list (one of them may be -1: the rest). Raises InvalidArgumentError, as
    TensorFlow's Split and SplitV do, when they do not add up to `n`.

    >>> from tapekit.ops.shapes import split_sizes
    >>> split_sizes(3, 6, 0), split_sizes([1, -1, 2], 6, 0)
    ([2, 2, 2], [1, 3, 2])
    """
    given = python_value(num_or_size_splits)
    if np.ndim(given) == 0:
        k = as_int(given, "split: num_or_size_splits")
        if k < 1 or n % k:
            raise InvalidArgumentError(
                f"split: {k} pieces do not divide axis {axis} (size {n}) evenly; give a "
                f"number of pieces that divides {n}, or the sizes as a list "
                f"(num_or_size_splits=[...], one of them may be -1 for the rest)")
        return [n // k] * k
    if np.ndim(given) != 1:
        raise ValueError(f"split: num_or_size_splits must be an integer or a 1-D list of "
                         f"sizes, got an array of shape {np.shape(given)}")
    sizes = [as_int(s, f"split: num_or_size_splits[{i}]")
             for i, s in enumerate(np.asarray(given).tolist())]
    if num is not None and as_int(num, "split: num") != len(sizes):
        raise ValueError(f"split: num={num} but num_or_size_splits lists {len(sizes)} sizes")
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in sizes):
        raise InvalidArgumentError(f"split: sizes {sizes} may hold one -1 (the rest) and "
                                   f"sizes >= 0 only")
    known = sum(s for s in sizes if s >= 0)
    if unknown and known <= n:
        sizes[unknown[0]] = n - known
    elif unknown or known != n:
        raise InvalidArgumentError(
            f"split: sizes {sizes} add up to {known}, but axis {axis} has size {n}; the "
            f"sizes must add up to {n} (or one of them be -1 for the rest)")
    return sizes


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """`value` cut along `axis` into a list of tensors (`tf.split`): `num_or_size_splits`
    equal pieces, or pieces of the sizes listed (-1 once: what is left). Each piece is a
    slice of `value`, so its gradient flows back into that slice; concat undoes split.

    >>> a, b = tk.split(tk.constant([[1, 2, 3, 4], [5, 6, 7, 8]]), 2, axis=1)
    >>> b
    tk.Tensor(
    [[3 4]
     [7 8]], shape=(2, 2), dtype=int32)
    >>> [piece.shape for piece in tk.split(tk.zeros((2, 6)), [1, -1, 2], axis=-1)]
    [(2, 1), (2, 3), (2, 2)]
    """
    shape = input_shape(value, "split", 0)
    if not shape:
        raise ValueError("split: cannot split a scalar; give a tensor of rank 1 or more")
    axis = as_axis(axis, len(shape), "split: axis") % len(shape)
    sizes = split_sizes(num_or_size_splits, shape[axis], axis, num)
    lead, pieces, start = (slice(None),) * axis, [], 0
    for size in sizes:
        pieces.append(getitem(value, lead + (slice(start, start + size),)))
        start += size
    return pieces


def zeros_like_meta(x):
    return np.zeros(x.shape, x.dtype)


# --- the shape as data: tk.shape, tk.size, tk.rank, TensorShape ---------------------------------
from ..tensor import wrap_array  # noqa: E402
from ..tensor_shape import TensorShape, ConcreteShape  # noqa: E402,F401


def _shape_of(value):
    if hasattr(value, "shape") and not isinstance(value, (list, tuple)):
        return tuple(value.shape)
    return np.shape(python_value(value))


def _int_dtype(out_type, op):
    dtype = np.dtype(out_type)
    if dtype not in (np.dtype("int32"), np.dtype("int64")):
        raise TypeError(f"{op}: out_type must be tk.int32 or tk.int64, got {dtype.name}")
    return dtype


def shape(input, out_type=None, name=None):  # noqa: A002
    """The shape of `input` as a 1-D int32 tensor (`tf.shape`); `x.shape` is the same as a
    TensorShape. The shape is data: no gradient flows through it.

    >>> tk.shape(tk.zeros((2, 3)))
    tk.Tensor([2 3], shape=(2,), dtype=int32)
    """
    return wrap_array(np.array(_shape_of(input), _int_dtype(out_type or "int32", "shape")))


def size(input, out_type=None, name=None):  # noqa: A002
    """The number of elements of `input`, an int32 scalar tensor (`tf.size`).

    >>> tk.size(tk.zeros((2, 3)))
    tk.Tensor(6, shape=(), dtype=int32)
    """
    return wrap_array(np.array(math.prod(_shape_of(input)), _int_dtype(out_type or "int32", "size")))


def rank(input, name=None):  # noqa: A002
    """The number of axes of `input`, an int32 scalar tensor (`tf.rank`).

    >>> tk.rank(tk.zeros((2, 3)))
    tk.Tensor(2, shape=(), dtype=int32)
    """
    return wrap_array(np.array(len(_shape_of(input)), np.int32))
