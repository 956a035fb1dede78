"""Tensor's Python operators (`+`, `*`, `@`, `<`, `&`, ...) as tapekit ops.

tapekit.ops binds them onto Tensor when it loads (`bind`): tensor.py cannot import the
ops, which are built on Tensor, so the ops module fills the operators in, as JAX and
TensorFlow do for their arrays. The unary operators and `x[i]` call the same namespace
through `tensor._ops`, which `bind` sets.
"""
from .. import tensor as _tensor
from ..tensor import Tensor
from .dispatch import apply2


# Python operator -> op name; `r` operators take the tensor as the second input.
_BINARY_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "pow": "pow",
    "matmul": "matmul_operator", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "eq": "equal", "ne": "not_equal", "and": "logical_and",
    "or": "logical_or", "mod": "floormod", "floordiv": "floordiv",
}
_REFLECTED = ("add", "sub", "mul", "truediv", "pow", "matmul", "and", "or", "mod", "floordiv")


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


def bind(ops_namespace):
    """Give Tensor its operators, from the ops in `ops_namespace` (tapekit.ops)."""
    _tensor._ops = ops_namespace
    for name, op_name in _BINARY_OPERATORS.items():
        op = getattr(ops_namespace, op_name)
        for dunder, reflected in ((f"__{name}__", False), (f"__r{name}__", True)):
            if reflected and name not in _REFLECTED:
                continue
            # `@` calls linalg.matmul_operator (rank and shape checks), the rest apply2 (an op).
            method = _binary_operator(apply2 if name != "matmul" else _call, op, reflected)
            method.__name__, method.__qualname__ = dunder, f"Tensor.{dunder}"
            setattr(Tensor, dunder, method)
