"""NumPy calls on tapekit tensors: recorded like tapekit ops, or refused loudly.

`np.sin(x)` reaches `Tensor.__array_ufunc__` and `np.sum(x)` reaches
`Tensor.__array_function__`. Each is answered by the op registered for it
(`defop(..., ufunc=np.sin)`, `@numpy_function(np.sum)`), so the tape records it.
A NumPy function with no tapekit op (np.linalg.det, np.median, np.sort) would return an
unrecorded array: on a tensor a tape records, that breaks the gradient path silently, so
there it raises, naming the tapekit function to use when there is one (API.md: "recorded or
loud"). Where no tape records the tensor, no path can break, and it returns NumPy's array on
the tensor's values, as TensorFlow's eager tensors do. A few read-only functions (shapes,
comparisons of whole arrays) cannot carry a gradient and always return NumPy's answer.

This differs from TensorFlow on purpose: there, `np.mean(x)` inside a tape turns x into a
NumPy array, the tape loses the path, and `tape.gradient` gives None (the autodiff guide's
"calculations outside of TensorFlow"); in tapekit the same code is recorded and gives the
gradient (for y = mean(x ** 2): 2x / n).

A NumPy function keeps NumPy's signature on tensors. The registered tapekit functions take
TensorFlow's (tk.reduce_sum(input_tensor, axis, keepdims)), which differs position by position
from NumPy's (np.sum(a, axis, dtype, out, keepdims)): passed straight through, np.sum(t, 0,
np.float64) would have set keepdims. So a call is first bound to the installed NumPy's own
signature, then one adapter per function (NUMPY_CALLS, below) hands the tapekit function what
it supports with NumPy's meaning and refuses the rest by name.
"""
import inspect
import sys

import numpy as np

from ..context import state
from ..tensor import Tensor, Variable
from .passthrough import cast
from .inputs import python_value
from .registry import FUNCTIONS, UFUNCS
from .shapes import reshape

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


def _plain(x, read_only=False):
    """The tensors among `x` (nested in lists and tuples) as their arrays. `read_only`: as
    read-only views, so that a NumPy function that writes (np.put, np.add.at, out=) raises
    instead of changing a tensor, which is immutable."""
    if isinstance(x, Tensor):
        if not read_only:
            return x._value
        view = x._value.view()
        view.flags.writeable = False
        return view
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v, read_only) for v in x)
    return x


def _on_values(call, name, args, kwargs):
    """NumPy's own answer on the tensors' values (no tape records them): call(*args, **kwargs)."""
    try:
        return call(*_plain(args, True), **{k: _plain(v, True) for k, v in kwargs.items()})
    except ValueError as e:
        if "read-only" not in str(e):
            raise
        raise TypeError(_IMMUTABLE.format(name=name)) from None


_IMMUTABLE = ("{name} cannot write into a tapekit tensor: tensors are immutable (a tape may have "
              "saved this value); use the returned value, or Variable.assign for a variable")


def numpy_name(func, method="__call__"):
    """The name a user wrote: numpy.linalg.det, numpy.sort, numpy.add.at."""
    module = getattr(func, "__module__", None) or "numpy"
    name = f"{module if module.startswith('numpy') else 'numpy'}.{func.__name__}"
    return name if method == "__call__" else f"{name}.{method}"


def _tapekit_function(func):
    """'tk.linalg.det' when tapekit has a function of that name where TensorFlow keeps it."""
    where = "linalg" if getattr(func, "__module__", None) == "numpy.linalg" else "math"
    namespace = sys.modules.get(f"tapekit.{where}")
    if namespace is not None and func.__name__ in getattr(namespace, "__all__", ()):
        return f"tk.{where}.{func.__name__}"
    return None


def _tracked(args, kwargs):
    """True when a tensor among the arguments is tracked by a recording tape, or is a
    trainable Variable that a tape would watch on access (as any op would make it). An inert
    tensor (integers, bools, stop_gradient's output: never a source) breaks no path."""
    tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
    tids = [a._tid for a in tensors]
    for tape in state.tapes:
        tracked = getattr(tape, "_tracked", None)
        if tracked is None:                                      # a tk.function trace: all
            return True
        inert = getattr(tape, "_inert", ())
        if any(t in tracked and t not in inert for t in tids):
            return True
        if getattr(tape, "_watch_accessed", False) and any(
                isinstance(a, Variable) and a.trainable for a in tensors):
            return True
    return False


def _breaks_path(func, method="__call__"):
    name = numpy_name(func, method)
    own = _tapekit_function(func) if method == "__call__" else None
    instead = f"Use {own}, which is recorded" if own else "Compute it with tapekit ops (tk.math, tk.linalg)"
    return TypeError(
        f"{name} on a tensor that a GradientTape records: tapekit does not record {name}, so "
        f"its result would be a plain NumPy array and the gradient path would break silently. "
        f"{instead}, or leave the tape on purpose: {name}(x.numpy()) (its result then carries "
        f"no gradient)")


def array_ufunc(ufunc, method, inputs, kwargs):
    op = UFUNCS.get(ufunc)
    if getattr(op, "no_bool", False) and method == "__call__" and any(
            isinstance(a, (bool, np.bool_)) or getattr(_plain(a), "dtype", None) == bool for a in inputs):
        # tk.add refuses bools, as TensorFlow's arithmetic does; np.add(b, b) on TensorFlow's
        # tensors is NumPy's answer, and so here (a bool carries no gradient: no path breaks)
        name = numpy_name(ufunc, method)
        _refuse_out(name, kwargs)
        return _on_values(getattr(ufunc, method), name, inputs, kwargs)
    if method == "__call__" and op is not None and not kwargs:
        return op(*inputs)
    if method == "__call__" and op is not None and set(kwargs) <= {"dtype", "casting"} \
            and kwargs.get("dtype") is None:
        return op(*inputs)
    if op is None and method == "__call__" and ufunc in READ_ONLY_UFUNCS:
        return ufunc(*_plain(inputs), **kwargs)
    name = numpy_name(ufunc, method)
    _refuse_out(name, kwargs)
    if state.tapes and _tracked(inputs, kwargs):
        raise _breaks_path(ufunc, method)
    return _on_values(getattr(ufunc, method), name, inputs, kwargs)


def array_function(func, args, kwargs):
    fn = FUNCTIONS.get(func)
    if fn is not None:
        return call_with_numpy_signature(func, fn, args, kwargs)
    if func in READ_ONLY:
        if func in VALUES_OUT and state.tapes and _tracked(args, kwargs):
            raise _breaks_path(func)
        k, name = _DESTINATION.get(func, (None, "out"))
        dst = args[k] if k is not None and len(args) > k else kwargs.get(name)
        if any(isinstance(d, Tensor) for d in (dst if isinstance(dst, tuple) else (dst,))):
            raise TypeError(_IMMUTABLE.format(name=numpy_name(func)))
        return func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})
    if state.tapes and _tracked(args, kwargs):
        raise _breaks_path(func)
    return _on_values(func, numpy_name(func), args, kwargs)


# --- NumPy's signatures on tapekit functions -------------------------------------------------
# Each adapter gets the tapekit function registered for `func` and the call's arguments bound
# to NumPy's signature (`given`: only what the caller passed, by NumPy's parameter name).

def call_with_numpy_signature(func, fn, args, kwargs):
    """Answer `func(*args, **kwargs)` (a NumPy call on tensors) with the tapekit function `fn`."""
    adapter = NUMPY_CALLS.get(func)
    if adapter is None:
        raise TypeError(f"numpy.{func.__name__} is registered for tapekit tensors without an adapter "
                        f"from NumPy's signature (tapekit/ops/numpy_dispatch.py NUMPY_CALLS)")
    try:
        bound = numpy_signature(func).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"numpy.{func.__name__}: {e}") from None
    given = dict(bound.arguments)
    given.update(given.pop("kwargs", {}))           # np.clip's **kwargs (ufunc keywords)
    return adapter(fn, f"numpy.{func.__name__}", given)


_SIGNATURES = {}


def numpy_signature(func):
    """NumPy's signature of `func`, as the installed NumPy states it. Functions written in C
    state none before NumPy 2.4 (np.concatenate, np.where on 2.2): for those, the signature
    NumPy documents, written out below."""
    if func not in _SIGNATURES:
        try:
            _SIGNATURES[func] = inspect.signature(func)
        except ValueError:
            _SIGNATURES[func] = inspect.signature(_DOCUMENTED[func])
    return _SIGNATURES[func]


def _concatenate_signature(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """np.concatenate's documented signature."""


def _where_signature(condition, x=None, y=None, /):
    """np.where's documented signature."""


_DOCUMENTED = {np.concatenate: _concatenate_signature, np.where: _where_signature}


def _dtype_of(x):
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


def _shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _refuse_out(name, given):
    if given.get("out") is not None:
        raise TypeError(f"{name}(..., out=...) cannot write into a tapekit tensor: tensors are "
                        f"immutable; use the returned value instead")


def _refuse_dtype(name, given, own):
    dtype = given.get("dtype")
    if dtype is not None and np.dtype(dtype) != own:
        raise TypeError(f"{name}(..., dtype={np.dtype(dtype).name}) on a tapekit tensor of dtype "
                        f"{own.name}: tapekit computes in the tensor's own dtype; cast first with "
                        f"tk.cast(x, tk.{np.dtype(dtype).name}) and call {name} without dtype")


def _refuse(name, given, arg, allowed, fix):
    """Raise unless `arg` was not given or is one of `allowed` (NumPy's default, mostly)."""
    if arg not in given:
        return
    value = given[arg]
    if not (any(value is a for a in allowed) or (isinstance(value, str) and value in allowed)):
        shown = repr(value) if isinstance(value, (str, int, float)) else "..."
        raise TypeError(f"{name}(..., {arg}={shown}) is not supported on tapekit tensors; {fix}")


def numpy_sum_dtype(dtype):
    """The dtype NumPy's sum and prod give for `dtype` when none is asked for: bools and integers
    narrower than the platform integer add up in it (np.sum of int32 is int64 on Linux), so
    np.sum(t) of a tensor does not wrap around where the same call on an ndarray would not."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < np.dtype(np.int_).itemsize):
        return np.dtype(np.int_)
    if dtype.kind == "u" and dtype.itemsize < np.dtype(np.uint).itemsize:
        return np.dtype(np.uint)
    return dtype


def _reduction(initial_fix, where_fix, integers_to_float=False, widen_integers=False):
    """np.sum/prod/mean (a, axis, dtype, out, keepdims, [initial,] where) and np.max/min/amax/amin
    (a, axis, out, keepdims, initial, where) -> tk.reduce_*(input_tensor, axis, keepdims)."""
    def adapt(fn, name, given):
        a = given["a"]
        _refuse_out(name, given)
        own = _dtype_of(a)
        wide = numpy_sum_dtype(own) if widen_integers else own
        if wide != own and given.get("dtype") in (None, wide):
            a = cast(a, wide.name)                 # as NumPy: no wrap-around in a narrow integer
        else:
            _refuse_dtype(name, given, own)
        _refuse(name, given, "initial", (), f"apply it to the result instead: {initial_fix}")
        _refuse(name, given, "where", (True,), f"mask first: {where_fix} (the gradient is then "
                                                f"0 where mask is False)")
        if integers_to_float and given.get("dtype") is None and own.kind in "iu":
            a = cast(a, "float64")                 # NumPy's mean of integers is a float64
        return fn(a, axis=given.get("axis"), keepdims=given.get("keepdims", False))
    return adapt


def _take(fn, name, given):
    """np.take(a, indices, axis=None, out=None, mode='raise') -> tk.gather(params, indices, axis).
    axis=None takes from the flattened array; negative indices count from the end."""
    _refuse_out(name, given)
    _refuse(name, given, "mode", ("raise",),
            "tapekit's gather raises on an out-of-range index; clip or wrap the indices first "
            "(np.clip(indices, 0, n - 1), indices % n) and call numpy.take without mode")
    a, indices, axis = given["a"], given["indices"], given.get("axis")
    if axis is None:
        a, axis = reshape(a, [-1]), 0
    if not isinstance(indices, Tensor):             # a constant: wrap -n..-1 as NumPy does
        indices = np.asarray(indices)
        if indices.dtype.kind in "iu":
            n = _shape_of(a)[axis]
            indices = np.where((indices < 0) & (indices >= -n), indices + n, indices)
    return fn(a, indices, axis=axis)


def _reshape(fn, name, given):
    """np.reshape(a, /, shape, order='C', *, copy=None) -> tk.reshape(tensor, shape)."""
    _refuse(name, given, "order", ("C",),
            f"tapekit reshapes in C order only; call np.reshape(t.numpy(), ..., "
            f"order={given.get('order')!r}) outside the tape (no gradient), or transpose, reshape "
            f"in C order and transpose back")
    # copy: a tensor is immutable, so a view and a copy cannot be told apart; any value is fine.
    # newshape: the name of `shape` before NumPy 2.1 (still accepted, deprecated, until 2.4)
    return fn(given["a"], given["shape"] if "shape" in given else given["newshape"])


def _expand_dims(fn, name, given):
    """np.expand_dims(a, axis) -> tk.expand_dims(input, axis); a tuple of axes inserts each."""
    a, axis = given["a"], given["axis"]
    if not isinstance(axis, (tuple, list)):
        return fn(a, axis)
    n = len(_shape_of(a)) + len(axis)               # NumPy counts the axes in the result
    for ax in sorted(int(x) + n if int(x) < 0 else int(x) for x in axis):
        a = fn(a, ax)
    return a


def _squeeze(fn, name, given):
    """np.squeeze(a, axis=None) -> tk.squeeze(input, axis)."""
    return fn(given["a"], axis=given.get("axis"))


def _transpose(fn, name, given):
    """np.transpose(a, axes=None) -> tk.transpose(a, perm)."""
    return fn(given["a"], perm=given.get("axes"))


def _joined(flatten_none):
    """np.concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting='same_kind') and
    np.stack (same, no axis=None) -> tk.concat(values, axis) / tk.stack(values, axis)."""
    def adapt(fn, name, given):
        arrays = list(given["arrays"])
        _refuse_out(name, given)
        dtypes = {_dtype_of(x) for x in arrays}
        if given.get("dtype") is not None and len(dtypes) > 1:
            raise TypeError(f"{name}(..., dtype=...) with inputs of dtypes "
                            f"{sorted(d.name for d in dtypes)}: cast them first with tk.cast")
        for own in dtypes:
            _refuse_dtype(name, given, own)
        # casting governs a conversion to dtype or out; with neither there is nothing to cast.
        axis = given.get("axis", 0)
        if axis is None and flatten_none:           # NumPy flattens every input first
            arrays, axis = [reshape(x, [-1]) for x in arrays], 0
        return fn(arrays, axis=axis)
    return adapt


def _where(fn, name, given):
    """np.where(condition, x, y, /) -> tk.where; np.where(condition) is np.nonzero(condition):
    a tuple of index arrays, one per axis (tk.where(condition) is TensorFlow's (n, ndim))."""
    if "x" not in given and "y" not in given:
        return np.nonzero(python_value(given["condition"]))
    return fn(given["condition"], given.get("x"), given.get("y"))


def _clip(fn, name, given):
    """np.clip(a, a_min, a_max, out=None, *, min, max, **kwargs) -> tk.clip_by_value(t, lo, hi).
    A missing or None bound is the dtype's end (-inf/inf for floats), so the gradient passes
    at the other bound as clip_by_value's does."""
    _refuse_out(name, given)
    a = given["a"]
    own = _dtype_of(a)
    _refuse_dtype(name, given, own)
    for arg in sorted(set(given) - {"a", "a_min", "a_max", "min", "max", "out", "dtype"}):
        _refuse(name, given, arg, (), "call numpy.clip without it (tapekit has clip_by_value only)")
    bounds = []
    for old, new in (("a_min", "min"), ("a_max", "max")):
        if old in given and new in given:
            raise TypeError(f"{name}: give {old} or {new}, not both")
        bounds.append(given.get(old, given.get(new)))
    lo, hi = bounds
    if own.kind == "f":
        ends = (-np.inf, np.inf)
    elif own.kind in "iu":
        ends = (int(np.iinfo(own).min), int(np.iinfo(own).max))
    else:
        ends = (None, None)
    lo = ends[0] if lo is None else lo
    hi = ends[1] if hi is None else hi
    return fn(a, lo, hi)


NUMPY_CALLS = {
    np.sum: _reduction("np.sum(t) + initial", "np.sum(tk.where(mask, t, 0))", widen_integers=True),
    np.prod: _reduction("np.prod(t) * initial", "np.prod(tk.where(mask, t, 1))", widen_integers=True),
    np.mean: _reduction(None, "np.sum(tk.where(mask, t, 0)) / np.sum(mask)",     # no initial
                        integers_to_float=True),
    np.max: _reduction("tk.maximum(np.max(t), initial)", "np.max(tk.where(mask, t, -np.inf))"),
    np.amax: _reduction("tk.maximum(np.amax(t), initial)", "np.amax(tk.where(mask, t, -np.inf))"),
    np.min: _reduction("tk.minimum(np.min(t), initial)", "np.min(tk.where(mask, t, np.inf))"),
    np.amin: _reduction("tk.minimum(np.amin(t), initial)", "np.amin(tk.where(mask, t, np.inf))"),
    np.take: _take,
    np.reshape: _reshape,
    np.expand_dims: _expand_dims,
    np.squeeze: _squeeze,
    np.transpose: _transpose,
    np.concatenate: _joined(flatten_none=True),
    np.stack: _joined(flatten_none=False),
    np.where: _where,
    np.clip: _clip,
}
