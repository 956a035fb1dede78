"""Tensor's Python operators (`+`, `*`, `@`, `-x`, `x[i]`, `np.sin(x)`, ...) as tapekit ops.

tensor.py cannot import the ops, which are built on Tensor, so the ops give Tensor its
operators: `attach()`, which tapekit.ops calls once when it loads, sets every method listed
in the tables below, as JAX and TensorFlow do for their arrays. Those tables are the only
place a method of Tensor or Variable is set from outside tensor.py (besides `v[i]` for a
Variable, variable_slice.py).
"""
from ..tensor import Tensor, Variable
from . import numpy_dispatch
from .dispatch import apply2
from .arithmetic import abs, add, divide, multiply, negative, pow, subtract
from .comparison import (equal, greater, greater_equal, less, less_equal, logic_operator,
                         logical_and_operator, logical_or_operator, not_equal)
from .indexing import getitem
from .linalg import matmul_operator
from .passthrough import cast, identity
from .rounding import floordiv, floormod

# Python's binary operator -> the op it runs; `__r<name>__` (the tensor on the right) too
# for those in _REFLECTED.
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
    (Variable, "read_value"): _read_value,
    (Variable, "_cast"): _cast,
}


def _binary_operator(apply2, op, reflected):
    # `x * c` calls dispatch.apply2 straight away: no *args, no Op.__call__ frame, which
    # matters when the arrays are small (one call per op of every forward pass).
    if reflected:
        def operator(self, other):
            return apply2(op, other, self)
    else:
        def operator(self, other):
            return apply2(op, self, other)
    return operator


def _call(function, a, b):
    return function(a, b)


def attach():
    """Give Tensor its operators and Variable its reads: every entry of the tables above."""
    for name, op in BINARY_OPERATORS.items():
        for dunder, reflected in ((f"__{name}__", False), (f"__r{name}__", True)):
            if reflected and name not in _REFLECTED:
                continue
            # `@` calls linalg.matmul_operator (rank and shape checks), `&` and `|` pick logical
            # or bitwise ops by the dtypes (comparison.py), the rest apply2 (an op).
            method = _binary_operator(apply2 if name not in ("matmul", "and", "or") else _call,
                                      op, reflected)
            method.__name__, method.__qualname__ = dunder, f"Tensor.{dunder}"
            setattr(Tensor, dunder, method)
    for (cls, name), function in METHODS.items():
        function.__name__, function.__qualname__ = name, f"{cls.__name__}.{name}"
        setattr(cls, name, function)
