"""A Variable's writes by index (`v.scatter_nd_update`, `v.scatter_add`, ...), TensorFlow's names.

Each computes the variable's new value with one op, `scatter_write` (the rows or elements at an
index replaced, added to, multiplied, ... by the updates), then assigns it: `v.assign(new)`. So a
tk.function records the write as one op and one assignment, and replays both. A write is not
differentiable (in TensorFlow neither): while it runs, the gradient tapes and forward
accumulators that are recording do not see it, and a later read of `v` reads the new value.

- `scatter_nd_update / _add / _sub / _max / _min(indices, updates)`: `indices` as in
  tk.tensor_scatter_nd_update, index vectors along its last axis;
- `scatter_update / _add / _sub / _mul / _div / _max / _min(sparse_delta)`: a
  tk.IndexedSlices(values, indices), whose indices pick rows (the first axis).

    >>> v = tk.Variable([1.0, 2.0, 3.0, 4.0])
    >>> v.scatter_nd_update([[1], [3]], [10.0, 20.0])
    <tk.Variable 'Variable:0' shape=(4,) dtype=float32, numpy=[ 1. 10.  3. 20.]>
    >>> v.scatter_add(tk.IndexedSlices(tk.constant([1.0, 1.0]), tk.constant([0, 0]))).numpy()
    array([ 3., 10.,  3., 20.], dtype=float32)
"""
import contextlib

import numpy as np

from ..context import state
from ..errors import InvalidArgumentError
from .conversion import convert_to_tensor
from .gather_scatter import index_array, scatter_index, scatter_update
from .registry import defop

# How each write combines the old values with the updates (an index given twice: both applied
# in turn, for `update` one of them).
_COMBINE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
            "max": np.maximum, "min": np.minimum}


def _scatter_write(x, updates, index, how):
    if how == "update":
        return scatter_update.forward(x, updates, index)   # tensor_scatter_nd_update's
    out = x.copy()
    _COMBINE[how].at(out, index, updates)
    return out


scatter_write = defop("scatter_write", _scatter_write, args="x updates", same_dtype=True,
                      doc="x with the places `index` combined with `updates` by `how`.")


@contextlib.contextmanager
def _unseen_by_gradients():
    """Pause the gradient tapes and accumulators (a tk.function's tracer records on)."""
    tapes, accumulators = state.tapes, state.accumulators
    state.tapes = [t for t in tapes if t.records_writes]
    state.accumulators = []
    try:
        yield
    finally:
        state.tapes, state.accumulators = tapes, accumulators


def _write(variable, how, index, updates, what):
    if how == "div" and variable.dtype.kind != "f":
        raise TypeError(f"{what}: the variable has dtype {variable.dtype.name}; tapekit divides "
                        f"floating variables only (TensorFlow's integer division truncates)")
    with _unseen_by_gradients():
        new = scatter_write(variable.read_value(), updates, index=index, how=how)
        return variable.assign(new)


def _updates(variable, updates, what):
    updates = updates if hasattr(updates, "_value") else convert_to_tensor(updates,
                                                                           dtype=variable.dtype)
    if updates.dtype != variable.dtype:
        raise TypeError(f"{what}: the updates have dtype {updates.dtype.name}, the variable "
                        f"{variable.dtype.name}; cast them: tk.cast(updates, tk.{variable.dtype.name})")
    return updates


def _nd(how):
    def method(self, indices, updates, name=None):
        what = f"Variable.scatter_nd_{how}"
        updates = _updates(self, updates, what)
        idx = index_array(indices, what)
        index = scatter_index(idx, updates.shape, tuple(self.shape), what, "a variable of shape")
        return _write(self, how, index, updates, what)
    method.__doc__ = (f"Write `updates` into this variable at `indices` (index vectors along "
                      f"its last axis) by {how} (`tf.Variable.scatter_nd_{how}`); returns the "
                      f"variable.")
    return method


def _rows(how):
    def method(self, sparse_delta, use_locking=False, name=None):
        what = f"Variable.scatter_{how}"
        if not (hasattr(sparse_delta, "values") and hasattr(sparse_delta, "indices")):
            raise TypeError(f"{what}: sparse_delta must be a tk.IndexedSlices(values, indices), "
                            f"got {type(sparse_delta).__name__}; for index vectors use "
                            f"v.scatter_nd_{'update' if how == 'update' else how}(indices, updates)")
        rows = np.asarray(sparse_delta.indices._value if hasattr(sparse_delta.indices, "_value")
                          else sparse_delta.indices)
        updates = _updates(self, sparse_delta.values, what)
        shape = tuple(self.shape)
        if not shape:
            raise InvalidArgumentError(f"{what}: the variable is a scalar; it has no rows to write")
        expected = tuple(rows.shape) + shape[1:]
        if tuple(updates.shape) not in (expected, ()):
            raise InvalidArgumentError(
                f"{what}: the values have shape {list(updates.shape)}; indices of shape "
                f"{list(rows.shape)} into a variable of shape {list(shape)} need values of shape "
                f"{list(expected)} (the indices' shape, then the variable's shape without its "
                f"first axis), or a scalar")
        index = scatter_index(rows[..., None], expected, shape, what, "a variable of shape")
        return _write(self, how, index, updates, what)
    method.__doc__ = (f"Write the rows of `sparse_delta` (a tk.IndexedSlices) into this variable "
                      f"by {how} (`tf.Variable.scatter_{how}`); returns the variable.")
    return method


# (name, method) for ops/operators.py's METHODS table: the Variable's methods.
METHODS = {f"scatter_nd_{how}": _nd(how) for how in ("update", "add", "sub", "max", "min")}
METHODS.update({f"scatter_{how}": _rows(how)
                for how in ("update", "add", "sub", "mul", "div", "max", "min")})
