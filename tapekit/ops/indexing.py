"""Ops that pick elements: `x[index]` (getitem, whose adjoint is scatter_add) and gather;
and `v[index]` of a Variable, a read that can be written back (`v[0, 0].assign(5.0)`).

Their gradients are dense: an array of the input's shape, zeros where nothing was picked,
and the cotangents added where an element was picked (twice picked: added twice).

>>> x = tk.constant([1.0, 2.0, 3.0])
>>> x[tk.newaxis].shape, x[:, tk.newaxis].shape      # tk.newaxis is None, as tf.newaxis
((1, 3), (3, 1))
"""
import numpy as np

from ..context import state
from ..tensor import Tensor, to_array, writes_are_traced
from .inputs import as_axis
from .registry import defop, numpy_function


# `x[tk.newaxis]` adds an axis of size 1, as `x[None]` does (`tf.newaxis` is None too).
newaxis = None


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


# --- v[index] of a Variable: a recorded read, and a place to write into (TensorFlow's sliced variables)
def variable_getitem(variable, index):
    """`v[index]`: a read (recorded, as `x[index]` is) that can also be written back,
    `v[0, 0].assign(5.0)`, as in TensorFlow. As there, the write is not differentiable: later
    reads see the new value, and no gradient flows into the assigned value through the variable.

    >>> v = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    >>> _ = v[0, 0].assign(5.0)
    >>> _ = v[1].assign([7.0, 8.0])
    >>> _ = v[:, 1].assign_add([1.0, 1.0])
    >>> v.numpy()
    array([[5., 3.],
           [7., 9.]], dtype=float32)
    """
    read = getitem(variable, index)
    out = VariableSlice.__new__(VariableSlice)
    out._value, out._tid, out._name = read._value, read._tid, read._name
    out._variable, out._index = variable, index
    return out


class VariableSlice(Tensor):
    """The value of `v[index]` (a recorded read), with `assign`, `assign_add` and `assign_sub`
    writing into that part of the variable (TensorFlow's sliced variables have `assign` only):
    each writes the whole variable with that part replaced."""

    __slots__ = ("_variable", "_index")

    def assign(self, value):
        return self._write(None, value, "assign")

    def assign_add(self, delta):
        return self._write(np.add, delta, "assign_add")

    def assign_sub(self, delta):
        return self._write(np.subtract, delta, "assign_sub")

    def _write(self, ufunc, value, what):
        var = self._variable
        where = f"{var.path!r}[{_index_text(self._index)}].{what}"
        part = to_array(value._value if isinstance(value, Tensor) else value, var.dtype,
                        what=where)
        if state.tapes and writes_are_traced():
            raise NotImplementedError(f"{where}: assigning to a slice of a variable inside a "
                                      f"tk.function is not supported yet; assign the whole "
                                      f"variable, v.assign(new_value)")
        current = var._value[self._index]
        try:
            np.broadcast_to(part, np.shape(current))
        except ValueError:
            raise ValueError(f"{where}: the slice has shape {np.shape(current)}, got a value of "
                             f"shape {part.shape}") from None
        new = np.array(var._value)
        new[self._index] = part if ufunc is None else ufunc(new[self._index], part)
        return var.assign(new)       # the whole variable's write: its checks and notes apply


def _index_text(index):
    parts = index if isinstance(index, tuple) else (index,)

    def one(i):
        if isinstance(i, slice):
            return ":".join("" if v is None else str(v) for v in (i.start, i.stop)) + \
                ("" if i.step is None else f":{i.step}")
        return "..." if i is Ellipsis else repr(i)
    return ", ".join(one(i) for i in parts)


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
