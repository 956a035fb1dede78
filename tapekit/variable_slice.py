"""`v[index].assign(value)`: writing into part of a Variable, as TensorFlow's sliced variables.

`v[index]` is a recorded read (as `x[index]` is); the object it returns also has `assign`,
`assign_add` and `assign_sub`, which write the whole variable with that part replaced. As in
TensorFlow the write is not differentiable: later reads see the new value, and no gradient
flows into the assigned value through the variable.
"""
import numpy as np

from .context import state as _state
from .ops.indexing import getitem
from .tensor import Tensor, Variable, to_array, writes_are_traced


def _variable_getitem(self, index):
    """`v[index]`: a read (recorded, as `x[index]` is) that can also be written back,
    `v[0, 0].assign(5.0)`, as in TensorFlow.

    >>> v = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    >>> _ = v[0, 0].assign(5.0)
    >>> _ = v[1].assign([7.0, 8.0])
    >>> _ = v[:, 1].assign_add([1.0, 1.0])
    >>> v.numpy()
    array([[5., 3.],
           [7., 9.]], dtype=float32)
    """
    read = getitem(self, index)
    out = _VariableSlice.__new__(_VariableSlice)
    out._value, out._tid, out._name = read._value, read._tid, read._name
    out._variable, out._index = self, index
    return out


# Set here, as ops/operators.py sets Tensor's operators (tapekit/__init__ imports this).
Variable.__getitem__ = _variable_getitem


class _VariableSlice(Tensor):
    """The value of `v[index]` (a recorded read), with `assign`, `assign_add` and `assign_sub`
    writing into that part of the variable (TensorFlow's sliced variables have `assign` only)."""

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
        if _state.tapes and writes_are_traced():
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
