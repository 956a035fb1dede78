"""Tensor's Python operators (`+`, `*`, `@`, `-x`, `x[i]`, `np.sin(x)`, ...) as tapekit ops.

tensor.py cannot import the ops, which are built on Tensor, so the ops give Tensor its
operators: `attach()`, which tapekit.ops calls once when it loads, sets every method listed
in the tables below, as JAX and TensorFlow do for their arrays. These tables are the only
place a method of Tensor or Variable is set from outside tensor.py (its classes say so).
"""
from ..tensor import Tensor, Variable
from . import numpy_dispatch
from .arithmetic import abs, add, divide, multiply, negative, pow, subtract
from .comparison import (equal, greater, greater_equal, less, less_equal, logic_operator,
                         logical_and_operator, logical_or_operator, not_equal)
from .indexing import getitem, variable_getitem
from .linalg import matmul_operator
from .passthrough import cast, identity
from .registry import Op
from .rounding import floordiv, floormod
from .variable_scatter import METHODS as _SCATTER_METHODS

# Python's binary operator -> the op it runs (an Op), or the function that picks one (`@`
# checks the shapes first, `&` and `|` pick logical or bitwise ops by the dtypes);
# `__r<name>__` (the tensor on the right) too for those in _REFLECTED.
BINARY_OPERATORS = {
    "add": add, "sub": subtract, "mul": multiply, "truediv": divide, "pow": pow,
    "matmul": matmul_operator, "lt": less, "le": less_equal, "gt": greater,
    "ge": greater_equal, "eq": equal, "ne": not_equal, "and": logical_and_operator,
    "or": logical_or_operator, "mod": floormod, "floordiv": floordiv,
}
_REFLECTED = ("add", "sub", "mul", "truediv", "pow", "matmul", "and", "or", "mod", "floordiv")


def _neg(self):
    return negative(self)


def _abs(self):
    return abs(self)


def _invert(self):
    return logic_operator("~", self)


def _getitem(self, index):
    return getitem(self, index)


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    # NumPy interop: np.sin(x), np.add(x, y) are recorded like tk ops (numpy_dispatch.py).
    return numpy_dispatch.array_ufunc(ufunc, method, inputs, kwargs)


def _array_function(self, func, types, args, kwargs):
    # np.sum(x), np.matmul(a, b), np.mean(x): recorded, or refused (numpy_dispatch.py).
    return numpy_dispatch.array_function(func, args, kwargs)


def _read_value(self):
    """The value as a Tensor: a read tapes record, so gradients reach the variable."""
    return identity(self)


def _cast(self, tensor):
    # Variable.assign_add while tracing: a delta tensor of another dtype, cast to the variable's.
    return cast(tensor, self.dtype)


# (class, method name) -> function: every other method of Tensor and Variable that runs an op.
METHODS = {
    (Tensor, "__neg__"): _neg,
    (Tensor, "__abs__"): _abs,
    (Tensor, "__invert__"): _invert,
    (Tensor, "__getitem__"): _getitem,
    (Tensor, "__array_ufunc__"): _array_ufunc,
    (Tensor, "__array_function__"): _array_function,
    (Variable, "__getitem__"): variable_getitem,   # v[0, 0].assign(5.0) (ops/indexing.py)
    (Variable, "read_value"): _read_value,
    (Variable, "_cast"): _cast,
    # v.scatter_nd_update(indices, updates), v.scatter_add(IndexedSlices), ... (variable_scatter.py)
    **{(Variable, name): method for name, method in _SCATTER_METHODS.items()},
}


_NO_ATTRS = {}   # shared by every operator call: nothing writes to a record's attrs


def _binary_operator(op, reflected):
    # `x * c` runs the op: Op.run, as Op.__call__ does, without the packing of *args and
    # **attrs (which costs more than the rest of a call on small arrays).
    run = Op.run if isinstance(op, Op) else None
    if run is None:             # `@`, `&`, `|`: a function that checks or picks the op
        if reflected:
            def operator(self, other):
                return op(other, self)
        else:
            def operator(self, other):
                return op(self, other)
    elif reflected:
        def operator(self, other):
            return run(op, (other, self), _NO_ATTRS)
    else:
        def operator(self, other):
            return run(op, (self, other), _NO_ATTRS)
    return operator


def attach():
    """Give Tensor its operators and Variable its reads: every entry of the tables above."""
    for name, op in BINARY_OPERATORS.items():
        for dunder, reflected in ((f"__{name}__", False), (f"__r{name}__", True)):
            if reflected and name not in _REFLECTED:
                continue
            method = _binary_operator(op, reflected)
            method.__name__, method.__qualname__ = dunder, f"Tensor.{dunder}"
            setattr(Tensor, dunder, method)
    for (cls, name), function in METHODS.items():
        function.__name__, function.__qualname__ = name, f"{cls.__name__}.{name}"
        setattr(cls, name, function)
