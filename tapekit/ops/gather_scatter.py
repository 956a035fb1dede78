"""Picking and placing elements by index, TensorFlow's way: tf.slice, tf.boolean_mask,
tf.gather_nd, tf.scatter_nd, tf.tensor_scatter_nd_add / _sub / _update and
tf.nn.embedding_lookup.

Each is indexing.py's `getitem` (x[index]) or `scatter_add` (zeros with values added at an
index) with TensorFlow's arguments checked first, so their gradients are those two ops'
rules, already on the table: picking sends the cotangent back to the places picked (added
up where a place was picked twice), placing gathers it from the places written. Writing over
places (tensor_scatter_nd_update) is the one op of its own here, `scatter_update`.

Examples (an object's reference entry shows the paragraphs that name it):

>>> x = tk.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
>>> tk.gather_nd(x, [[0, 1], [1, 2]])          # one element per row of indices
tk.Tensor([2. 6.], shape=(2,), dtype=float32)
>>> tk.scatter_nd([[1], [3]], [10.0, 20.0], shape=[5])
tk.Tensor([ 0. 10.  0. 20.  0.], shape=(5,), dtype=float32)
>>> tk.boolean_mask(x, [False, True])
tk.Tensor([[4. 5. 6.]], shape=(1, 3), dtype=float32)
"""
import builtins

import numpy as np

from ..errors import InvalidArgumentError
from .arithmetic import add, negative
from .clipping import clip_by_norm
from .conversion import convert_to_tensor
from .indexing import getitem_op, scatter_add
from .registry import defop
from .inputs import as_int, python_value
from .shapes import concat, shape_argument

_slice = builtins.slice   # this module's `slice_` is exported as tk.slice


def _tensor(x, dtype=None):
    return x if hasattr(x, "_value") and dtype is None else convert_to_tensor(x, dtype=dtype)


def index_array(indices, op):
    """`indices` as a NumPy integer array of rank >= 1 (TensorFlow takes int16/32/64 only)."""
    idx = np.array(python_value(indices))           # a copy: the tape may keep it
    if idx.dtype.kind not in "iu":
        if idx.size == 0:
            return idx.astype(np.int64)
        raise InvalidArgumentError(f"{op}: indices must be integers, got dtype {idx.dtype.name}; "
                                   f"cast them with tk.cast(indices, tk.int32)")
    if idx.ndim == 0:
        raise InvalidArgumentError(f"{op}: indices must have rank 1 or more (each index is a "
                                   f"vector along the last axis), got a scalar {idx.item()}")
    return idx


def _nd_index(idx, shape, op, what="param shape", lead=()):
    """The NumPy index (a tuple of integer arrays) of the rows of `idx` into `shape`; a row
    outside `shape` raises InvalidArgumentError, as TensorFlow does (NumPy would wrap a
    negative index around)."""
    k = idx.shape[-1]
    if k > len(shape):
        raise InvalidArgumentError(f"{op}: each index has {k} coordinates (the indices' last "
                                   f"axis) but the {what} {list(shape)} has only {len(shape)} "
                                   f"axes")
    if k == 0:
        raise InvalidArgumentError(f"{op}: the indices' last axis has size 0 (no coordinates); "
                                   f"each index needs at least one")
    rows = idx.reshape(-1, k)
    bad = np.nonzero(((rows < 0) | (rows >= np.asarray(shape[:k]))).any(axis=1))[0]
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(f"{op}: indices[{i}] = {rows[i].tolist()} does not index "
                                   f"into {what} {list(shape)}; every coordinate j must be in "
                                   f"[0, shape[j]) (negative indices do not count from the end)")
    return lead + tuple(idx[..., j] for j in range(k))


def _check_policy(policy, op):
    if policy not in ("", "DEFAULT", "ERROR"):
        raise NotImplementedError(f"{op}: bad_indices_policy={policy!r} is not supported; "
                                  f"tapekit always raises on an index out of range (\"ERROR\")")


# --- gather_nd ---------------------------------------------------------------------------------
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """The slices of `params` at the index vectors along the last axis of `indices`
    (`tf.gather_nd`): an index of length k picks `params[i0, ..., ik-1]`, an element or a
    slice of the remaining axes. With `batch_dims=b`, the first b axes of `params` and
    `indices` are a batch, indexed each with its own indices.

    >>> x = tk.constant([[1, 2], [3, 4]])
    >>> tk.gather_nd(x, [[1, 0], [0, 1]])
    tk.Tensor([3 2], shape=(2,), dtype=int32)
    >>> tk.gather_nd(x, [[1]])                      # a row
    tk.Tensor([[3 4]], shape=(1, 2), dtype=int32)
    """
    _check_policy(bad_indices_policy, "gather_nd")
    params = _tensor(params)
    idx = index_array(indices, "gather_nd")
    b = as_int(batch_dims, "gather_nd: batch_dims")
    shape = tuple(params.shape)
    if not 0 <= b < idx.ndim or b > len(shape):
        raise ValueError(f"gather_nd: batch_dims = {b} must be >= 0 and less than the rank of "
                         f"indices ({idx.ndim}) and at most the rank of params ({len(shape)})")
    if shape[:b] != idx.shape[:b]:
        raise InvalidArgumentError(f"gather_nd: the batch axes (the first {b}) of params "
                                   f"{list(shape)} and indices {list(idx.shape)} must be equal")
    outer = idx.ndim - 1
    lead = tuple(np.arange(n).reshape((1,) * i + (n,) + (1,) * (outer - i - 1))
                 for i, n in enumerate(shape[:b]))
    index = _nd_index(idx, shape[b:], "gather_nd", lead=lead)
    return getitem_op(params, index=index)


# --- scatter_nd and tensor_scatter_nd_add --------------------------------------------------------
def scatter_index(idx, updates_shape, shape, op, what):
    k = idx.shape[-1]
    index = _nd_index(idx, shape, op, what)
    expected = tuple(idx.shape[:-1]) + tuple(shape[k:])
    if tuple(updates_shape) != expected:
        raise InvalidArgumentError(
            f"{op}: updates have shape {list(updates_shape)}, but indices of shape "
            f"{list(idx.shape)} into {what} {list(shape)} need updates of shape {list(expected)} "
            f"(the indices' shape without its last axis, then the axes an index leaves)")
    return index


def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """A tensor of `shape`, zeros but for `updates` added at `indices` (`tf.scatter_nd`; an
    index given twice adds both updates). gather_nd's adjoint: the gradient with respect
    to `updates` is the cotangent gathered at `indices`.

    >>> tk.scatter_nd([[0], [2], [0]], [1.0, 2.0, 3.0], shape=[4])
    tk.Tensor([4. 0. 2. 0.], shape=(4,), dtype=float32)
    """
    _check_policy(bad_indices_policy, "scatter_nd")
    idx = index_array(indices, "scatter_nd")
    updates = _tensor(updates)
    shape = shape_argument(shape, "scatter_nd", allow_unknown=False)
    index = scatter_index(idx, updates.shape, shape, "scatter_nd", "shape")
    return scatter_add(updates, index=index, shape=shape)


def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """`tensor` with `updates` added at `indices` (`tf.tensor_scatter_nd_add`): a new tensor,
    the input is unchanged. The gradient is the cotangent itself for `tensor`, and the
    cotangent gathered at `indices` for `updates`.

    >>> tk.tensor_scatter_nd_add(tk.ones([4]), [[1], [1]], [5.0, 5.0])
    tk.Tensor([ 1. 11.  1.  1.], shape=(4,), dtype=float32)
    """
    tensor, updates, index = _tensor_scatter_args(tensor, indices, updates, bad_indices_policy,
                                                  "tensor_scatter_nd_add")
    return add(tensor, scatter_add(updates, index=index, shape=tuple(tensor.shape)))


def _tensor_scatter_args(tensor, indices, updates, bad_indices_policy, op):
    """The tensor_scatter_nd_* ops' arguments checked: the tensor, the updates (in its dtype
    when given as Python numbers) and the NumPy index of the places they go."""
    _check_policy(bad_indices_policy, op)
    tensor = _tensor(tensor)
    idx = index_array(indices, op)
    if not hasattr(updates, "_value"):
        updates = convert_to_tensor(updates, dtype=tensor.dtype)
    index = scatter_index(idx, updates.shape, tuple(tensor.shape), op, "tensor of shape")
    return tensor, updates, index


def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """`tensor` with `updates` subtracted at `indices` (`tf.tensor_scatter_nd_sub`; an index
    given twice subtracts both).

    >>> tk.tensor_scatter_nd_sub(tk.ones([4]), [[0], [3]], [5.0, 2.0])
    tk.Tensor([-4.  1.  1. -1.], shape=(4,), dtype=float32)
    """
    tensor, updates, index = _tensor_scatter_args(tensor, indices, updates, bad_indices_policy,
                                                  "tensor_scatter_nd_sub")
    return add(tensor, scatter_add(negative(updates), index=index, shape=tuple(tensor.shape)))


def _scatter_update(x, updates, index):
    out = x.copy()
    out[index] = updates
    return out


def _kept(g, x, index):
    """1 where x survives the write, 0 where `index` overwrote it, in g's dtype."""
    mask = np.ones(x.shape, dtype=g.dtype)
    mask[index] = 0
    return mask


def _leading(g, x, index):
    return (_slice(None),) * (g.ndim - x.ndim) + index    # a jacobian's batch axes first


scatter_update = defop(
    "scatter_update", _scatter_update, args="x updates", same_dtype=True,
    vjp=[lambda g, ans, x, updates, index: g * _kept(g, x, index),
         lambda g, ans, x, updates, index: getitem_op(g, index=_leading(g, x, index))],
    jvp=[lambda t, ans, x, updates, index: t * _kept(t, x, index),
         lambda t, ans, x, updates, index: scatter_add(t, index=index, shape=tuple(x.shape))],
    doc="x with the places `index` overwritten by `updates`.")


def tensor_scatter_nd_update(tensor, indices, updates, bad_indices_policy="", name=None):
    """`tensor` with the places at `indices` replaced by `updates` (`tf.tensor_scatter_nd_update`):
    a new tensor, the input unchanged. The gradient is the cotangent with zeros at the places
    written for `tensor`, and the cotangent at those places for `updates`. An index given twice
    keeps one of its updates (TensorFlow does not say which either): give each place once.

    >>> tk.tensor_scatter_nd_update(tk.zeros([2, 3]), [[1, 0], [0, 2]], [5.0, 7.0])
    tk.Tensor(
    [[0. 0. 7.]
     [5. 0. 0.]], shape=(2, 3), dtype=float32)
    """
    tensor, updates, index = _tensor_scatter_args(tensor, indices, updates, bad_indices_policy,
                                                  "tensor_scatter_nd_update")
    return scatter_update(tensor, updates, index=index)


# --- slice and boolean_mask ----------------------------------------------------------------------
def slice_(input_, begin, size, name=None):
    """The block of `input_` that starts at `begin` and has `size` (`tf.slice`, exported as
    tk.slice): one start and one size per axis, a size of -1 taking the rest of that axis.
    `x[1:3, 0:2]` is the same block.

    >>> x = tk.reshape(tk.range(12), (3, 4))
    >>> tk.slice(x, begin=[1, 0], size=[2, -1])
    tk.Tensor(
    [[ 4  5  6  7]
     [ 8  9 10 11]], shape=(2, 4), dtype=int32)
    """
    x = _tensor(input_)
    shape = tuple(x.shape)
    starts = np.asarray(python_value(begin)).reshape(-1) if np.ndim(python_value(begin)) <= 1 else None
    sizes = np.asarray(python_value(size)).reshape(-1) if np.ndim(python_value(size)) <= 1 else None
    if starts is None or sizes is None or starts.size != len(shape) or sizes.size != len(shape):
        raise InvalidArgumentError(
            f"slice: begin and size must be vectors of one number per axis of the input (shape "
            f"{list(shape)}: {len(shape)} each), got begin={np.asarray(python_value(begin)).tolist()} "
            f"and size={np.asarray(python_value(size)).tolist()}")
    index = []
    for axis, (b, s, n) in enumerate(zip(starts.tolist(), sizes.tolist(), shape)):
        b, s = as_int(b, f"slice: begin[{axis}]"), as_int(s, f"slice: size[{axis}]")
        if not 0 <= b <= n:
            raise InvalidArgumentError(f"slice: begin[{axis}] = {b} is outside [0, {n}] (axis "
                                       f"{axis} of the input, shape {list(shape)}); begin does "
                                       f"not count from the end")
        if s == -1:
            s = n - b
        if not 0 <= s <= n - b:
            raise InvalidArgumentError(f"slice: size[{axis}] = {s} is outside [0, {n - b}]: "
                                       f"from begin[{axis}] = {b}, axis {axis} (size {n}) has "
                                       f"{n - b} left; -1 takes them all")
        index.append(_slice(b, b + s))
    return getitem_op(x, index=tuple(index))


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of `tensor` where `mask` is true (`tf.boolean_mask`): the mask covers the
    axes `axis`, `axis + 1`, ... (its shape must be theirs), and those axes become one, of
    the length the mask's count of trues. The gradient sends each cotangent back to its
    entry; entries masked out get 0.

    >>> x = tk.constant([[1, 2], [3, 4], [5, 6]])
    >>> tk.boolean_mask(x, [True, False, True])
    tk.Tensor(
    [[1 2]
     [5 6]], shape=(2, 2), dtype=int32)
    >>> tk.boolean_mask(x, x > 2)
    tk.Tensor([3 4 5 6], shape=(4,), dtype=int32)
    """
    x = _tensor(tensor)
    m = np.asarray(python_value(mask))
    if m.ndim == 0:
        raise ValueError("boolean_mask: mask cannot be a scalar; give one truth value per "
                         "entry of the axes it masks")
    m = m != 0 if m.dtype != bool else m.copy()
    a = 0 if axis is None else as_int(axis, "boolean_mask: axis")
    if a < 0:
        # TensorFlow 2.21 fails on a negative axis too (ValueError: "Shapes () and (4,) are
        # incompatible"); tapekit says why.
        raise ValueError(f"boolean_mask: axis = {a} is negative; give it counted from the "
                         f"front (the input has rank {x.ndim}: axis={x.ndim + a})")
    shape = tuple(x.shape)
    if a + m.ndim > len(shape) or shape[a:a + m.ndim] != m.shape:
        raise ValueError(f"boolean_mask: a mask of shape {m.shape} does not fit the axes "
                         f"{a}..{a + m.ndim - 1} of a tensor of shape {shape} "
                         f"({shape[a:a + m.ndim]}); the mask's shape must be theirs")
    return getitem_op(x, index=(_slice(None),) * a + (m,))


# --- embedding_lookup --------------------------------------------------------------------------
def embedding_lookup(params, ids, max_norm=None, name=None):
    """The rows of `params` at `ids` (`tf.nn.embedding_lookup`): the result has the shape of
    `ids` followed by a row's shape. A list of tensors is one table cut into consecutive
    blocks of rows (TensorFlow's "div" sharding), looked up as their concatenation. With
    `max_norm`, each row looked up whose L2 norm is larger is scaled down to that norm.
    The gradient adds each cotangent into the row it came from.

    >>> table = tk.constant([[0.0, 0.0], [1.0, 1.0], [3.0, 4.0]])
    >>> tk.nn.embedding_lookup(table, [[2, 1], [2, 2]]).shape
    (2, 2, 2)
    >>> tk.nn.embedding_lookup(table, [2], max_norm=1.0)
    tk.Tensor([[0.6 0.8]], shape=(1, 2), dtype=float32)
    """
    if isinstance(params, (list, tuple)):
        params = params[0] if len(params) == 1 else concat(list(params), axis=0)
    params = _tensor(params)
    idx = np.array(python_value(ids))
    if idx.dtype.kind not in "iu" and idx.size:
        raise InvalidArgumentError(f"embedding_lookup: ids must be integers, got dtype "
                                   f"{idx.dtype.name}")
    n = int(params.shape[0]) if params.ndim else 0
    if params.ndim == 0:
        raise ValueError("embedding_lookup: params must have rank 1 or more (one row per id)")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise InvalidArgumentError(f"embedding_lookup: id {bad} is not in [0, {n}): params has "
                                   f"{n} rows")
    out = getitem_op(params, index=(idx.astype(np.int64),))
    if max_norm is not None:
        out = clip_by_norm(out, max_norm, axes=list(range(idx.ndim, out.ndim)))
    return out
