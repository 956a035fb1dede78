"""NumPy calls on tapekit tensors: recorded like tapekit ops, or refused loudly.

`np.sin(x)` reaches `Tensor.__array_ufunc__` and `np.sum(x)` reaches
`Tensor.__array_function__`. Each is answered by the op registered for it
(`defop(..., ufunc=np.sin)`, `@numpy_function(np.sum)`), so the tape records it.
A NumPy function with no tapekit op would silently return an unrecorded array and
break the gradient path, so it raises instead, unless it is one of the few
read-only functions below (shapes, comparisons of whole arrays), which cannot
carry a gradient anyway. Of those, the ones that return the tensor's values themselves
(np.sort, np.unique, np.round) raise too while a tape records the tensor: the result
would be a plain array, and the path from it to the tape would break silently
(API.md: "recorded or loud"). Outside any tape they return arrays.

This differs from TensorFlow on purpose: there, `np.mean(x)` inside a tape turns x into a
NumPy array, the tape loses the path, and `tape.gradient` gives None (the autodiff guide's
"calculations outside of TensorFlow"); in tapekit the same code is recorded and gives the
gradient (for y = mean(x ** 2): 2x / n).
"""
import numpy as np

from ..context import state
from ..tensor import Tensor, Variable
from .registry import FUNCTIONS, UFUNCS

# Functions that only read values and return no differentiable result.
READ_ONLY = {np.shape, np.ndim, np.size, np.allclose, np.isclose, np.array_equal,
             np.argmax, np.argmin, np.array_equiv, np.count_nonzero, np.result_type,
             np.iscomplexobj, np.isrealobj, np.sort, np.argsort, np.unique, np.copyto,
             np.can_cast, np.min_scalar_type, np.asarray, np.array, np.asanyarray,
             np.ascontiguousarray, np.nonzero, np.argwhere, np.any, np.all, np.round, np.around,
             np.isscalar, np.printoptions, np.array2string, np.array_repr, np.array_str}
READ_ONLY_UFUNCS = {np.isinf, np.signbit, np.isnat}
# Of those, the ones that return the values themselves: refused on a tensor a tape tracks.
VALUES_OUT = {np.sort, np.unique, np.round, np.around}
# Where those that can write take their destination: (position, keyword). A tensor there
# would be written into (np.copyto(t, a) changed t and what tapes saved of it): refused.
_DESTINATION = {np.copyto: (0, "dst"), np.round: (2, "out"), np.around: (2, "out"),
                np.any: (2, "out"), np.all: (2, "out"), np.argmax: (2, "out"), np.argmin: (2, "out")}


def _plain(x):
    if isinstance(x, Tensor):
        return x._value
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


def _unsupported(what):
    return TypeError(
        f"{what} is not supported on tapekit tensors: tapekit has no op for it, so it cannot be "
        f"recorded and the gradient path would break silently. Use a tapekit op (tk.math), or "
        f"leave the tape on purpose with x.numpy() first.")


def _tracked(args, kwargs):
    """True when a tensor among the arguments is tracked by a recording tape, or is a
    trainable Variable that a tape would watch on access (as any op would make it)."""
    tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
    tids = [a._tid for a in tensors]
    for tape in state.tapes:
        tracked = getattr(tape, "_tracked", None)
        if tracked is None or any(t in tracked for t in tids):   # a tk.function trace: all
            return True
        if getattr(tape, "_watch_accessed", False) and any(
                isinstance(a, Variable) and a.trainable for a in tensors):
            return True
    return False


def _breaks_path(func):
    name = f"numpy.{func.__name__}"
    return TypeError(
        f"{name} on a tensor that a GradientTape records: tapekit does not record {name}, so "
        f"its result would be a plain NumPy array and the gradient path would break silently. "
        f"Compute it with tapekit ops (tk.math), or leave the tape on purpose: {name}(x.numpy()) "
        f"(its result then carries no gradient)")


def array_ufunc(ufunc, method, inputs, kwargs):
    op = UFUNCS.get(ufunc)
    if method == "__call__" and op is not None and not kwargs:
        return op(*inputs)
    if method == "__call__" and op is not None and set(kwargs) <= {"dtype", "casting"} \
            and kwargs.get("dtype") is None:
        return op(*inputs)
    if op is None and method == "__call__" and ufunc in READ_ONLY_UFUNCS:
        return ufunc(*_plain(inputs), **kwargs)
    name = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    if kwargs.get("out") is not None:
        raise TypeError(f"{name}(..., out=...) cannot write into a tapekit tensor: tensors are "
                        f"immutable; use the returned value instead")
    raise _unsupported(name)


def array_function(func, args, kwargs):
    fn = FUNCTIONS.get(func)
    if fn is not None:
        return fn(*args, **kwargs)
    if func in READ_ONLY:
        if func in VALUES_OUT and state.tapes and _tracked(args, kwargs):
            raise _breaks_path(func)
        k, name = _DESTINATION.get(func, (None, "out"))
        dst = args[k] if k is not None and len(args) > k else kwargs.get(name)
        if any(isinstance(d, Tensor) for d in (dst if isinstance(dst, tuple) else (dst,))):
            raise TypeError(f"numpy.{func.__name__} cannot write into a tapekit tensor: tensors are "
                            f"immutable (a tape may have saved this value); use the returned "
                            f"value, or Variable.assign for a variable")
        return func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})
    raise _unsupported(f"numpy.{func.__name__}")
