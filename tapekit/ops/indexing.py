"""Ops that pick elements: `x[index]` (getitem, whose adjoint is scatter_add) and gather.

Their gradients are dense: an array of the input's shape, zeros where nothing was picked,
and the cotangents added where an element was picked (twice picked: added twice).
"""
import numpy as np

from .registry import as_axis, defop, numpy_function


# --- indexing: getitem and its adjoint scatter_add ----------------------------------------------
def _normalize_index(index, ndim):
    """A tuple index with Ellipsis expanded and tensors as their arrays (masks stay masks)."""
    if not isinstance(index, tuple):
        index = (index,)
    parts = []
    for i in index:
        if hasattr(i, "_value"):
            i = np.asarray(i._value)
        elif isinstance(i, list):
            i = np.asarray(i)
        elif type(i) is np.ndarray and (i.base is not None or i.flags.writeable):
            i = i.copy()   # the caller's index array: the record keeps it for the gradient
        parts.append(i)
    if any(i is Ellipsis for i in parts):
        k = next(n for n, i in enumerate(parts) if i is Ellipsis)
        used = sum(i.ndim if isinstance(i, np.ndarray) and i.dtype == bool else 1
                   for i in parts if i is not None and i is not Ellipsis)
        parts = parts[:k] + [slice(None)] * (ndim - used) + parts[k + 1:]
    return tuple(parts)


def _scatter_add(g, index, shape):
    nlead = g.ndim - _result_ndim(shape, index)
    out = np.zeros(tuple(g.shape[:nlead]) + tuple(shape), dtype=g.dtype)
    np.add.at(out, (slice(None),) * nlead + index, g)
    return out


def _result_ndim(shape, index):
    return np.empty(shape, dtype=np.bool_)[index].ndim


def _getitem_vjp(g, ans, x, index):
    return scatter_add(g, index=index, shape=tuple(x.shape))


getitem_op = defop("getitem", lambda x, index: x[index],
                   vjp=[_getitem_vjp],
                   jvp=[lambda t, ans, x, index: getitem_op(t, index=index)])


def _scatter_vjp(g, ans, x, index, shape):
    nlead = g.ndim - len(shape)  # every leading axis: the batch and x's own lead
    return getitem_op(g, index=(slice(None),) * nlead + index)


scatter_add = defop("scatter_add", _scatter_add,
                    vjp=[_scatter_vjp],
                    jvp=[lambda t, ans, x, index, shape: scatter_add(t, index=index, shape=shape)],
                    doc="Zeros of `shape` with x added at `index` (repeated indices add up).")


def getitem(x, index):
    """x[index] with NumPy's basic and advanced indexing."""
    return getitem_op(x, index=_normalize_index(index, ndim_of(x)))


# --- gather: a dense gradient --------------------------------------------------------------------
def _gather_vjp(g, ans, params, indices, axis):
    index = (slice(None),) * axis + (np.asarray(indices),)
    return scatter_add(g, index=index, shape=tuple(params.shape))


def _gather(params, indices, axis):
    # np.take wraps a negative index around (-1: the last); TensorFlow's gather raises for
    # any index outside [0, n), and so does tapekit (also when a tk.function replays).
    n = params.shape[axis]
    indices = np.asarray(indices)                  # a Python int picks one slice, as in TensorFlow
    if indices.dtype.kind not in "iu":
        raise TypeError(f"indices must be integers, got dtype {indices.dtype.name}")
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        bad = indices.min() if indices.min() < 0 else indices.max()
        raise IndexError(f"index {bad} is out of range [0, {n}) for axis {axis} of params "
                         f"(shape {params.shape}); gather does not wrap negative indices around")
    return np.take(params, indices, axis=axis)


gather_op = defop("gather", _gather,
                  args="params indices", save="indices",
                  vjp=[_gather_vjp, None],
                  jvp=[lambda t, ans, p, indices, axis: gather_op(t, indices, axis=axis), None])


@numpy_function(np.take)
def gather(params, indices, axis=None, batch_dims=0, name=None):
    """Slices of `params` at integer `indices` along `axis` (dense gradient).

    >>> params = tk.constant([10.0, 20.0, 30.0])
    >>> tk.gather(params, [2, 0, 2])
    tk.Tensor([30. 10. 30.], shape=(3,), dtype=float32)

    >>> x = tk.Variable([10.0, 20.0, 30.0])
    >>> with tk.GradientTape() as tape:
    ...     y = tk.reduce_sum(tk.gather(x, [2, 0, 2]))
    >>> tape.gradient(y, x)               # repeated indices add up
    tk.Tensor([1. 0. 2.], shape=(3,), dtype=float32)
    """
    if batch_dims:
        raise NotImplementedError("gather: batch_dims other than 0 is not supported; "
                                  "index with tk.gather per batch or use x[...] indexing")
    ndim = ndim_of(params)
    axis = 0 if axis is None else as_axis(axis, ndim, "gather: axis") % max(ndim, 1)
    return gather_op(params, indices, axis=axis)


def ndim_of(x):
    return x.ndim if hasattr(x, "ndim") else np.ndim(x)
