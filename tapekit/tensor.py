"""Tensor and Variable: immutable values and mutable model state.

A Tensor wraps a NumPy array (or NumPy scalar) and a tape id (`_tid`), a number
that is never reused. Tapes track tensors by that id, never by `id()`, so records
stay valid and display ids stay stable. Operators (`+`, `@`, `x[i]`, ...) call the
ops in `tapekit.ops`, which are bound here at import time (`_bind_operators`).
"""
import itertools
import sys as _sys

import numpy as np

from . import dtypes
from .context import state as _state

_next_tid = itertools.count().__next__
_ops = None  # the tapekit.ops namespace, set by _bind_operators()


class Tensor:
    """An immutable value with a shape and a dtype, recorded by active tapes.

    >>> t = tk.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> t.shape, t.dtype, t.ndim
    ((2, 2), dtype('float32'), 2)
    >>> t.numpy()
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    >>> t[0] * 2.0 + 1.0                 # operators and indexing are recorded ops
    tk.Tensor([3. 5.], shape=(2,), dtype=float32)
    """

    __slots__ = ("_value", "_tid", "_name", "__weakref__")
    __array_priority__ = 100  # NumPy defers binary operators to us

    def __init__(self, value, dtype=None, name=None):
        self._value = _to_array(value, dtypes.as_dtype(dtype))
        self._tid = _next_tid()
        self._name = name

    # --- basic properties ---------------------------------------------------
    @property
    def shape(self):
        return self._value.shape

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def size(self):
        return self._value.size

    @property
    def name(self):
        return self._name

    def numpy(self):
        """A copy of the value: a NumPy array, or a NumPy scalar for shape ()."""
        v = self._value
        return v.copy() if isinstance(v, np.ndarray) and v.ndim else v[()]

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(self._value)
        if dtype is not None:
            v = v.astype(dtype, copy=False)
        return v.copy() if copy else v

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a scalar tensor (shape ()) is not defined")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a scalar tensor (shape ()) is not possible")
        return (self[i] for i in range(self.shape[0]))

    def _scalar(self, kind):
        if self._value.size != 1:
            raise TypeError(f"{kind}() needs a tensor with one element, got shape {self.shape}")
        return self._value.reshape(()).item()

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __index__(self):
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype}")
        return int(self._scalar("index"))

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __format__(self, spec):
        if spec:
            return format(self._value.reshape(()).item() if self._value.size == 1 and self.ndim == 0
                          else self._value, spec)
        return str(self)

    __hash__ = object.__hash__  # identity; == is elementwise, as in TensorFlow 2

    def __repr__(self):
        return f"tk.Tensor({_format_value(self._value, 'tk.Tensor(')}, shape={self.shape}, dtype={self.dtype.name})"

    __str__ = __repr__

    # --- operators: each is one tapekit op ----------------------------------
    # The binary operators (+, -, *, /, **, @, comparisons, &, |) are set by
    # _bind_operators from its table: each calls the op's dispatch directly.

    def __neg__(self):
        return _ops.negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ops.abs(self)

    def __invert__(self):
        return _ops.logical_not(self)

    def __getitem__(self, index):
        return _ops.getitem(self, index)

    # NumPy interop: np.sin(x), np.sum(x), np.matmul(a, b) are recorded like tk ops.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ops.numpy_dispatch.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _ops.numpy_dispatch.array_function(func, args, kwargs)


def _wrap(value, tid=None):
    """A Tensor around `value` (already an array), with a fresh or the given tape id."""
    t = _new_tensor(Tensor)
    t._value = value
    t._tid = _next_tid() if tid is None else tid
    t._name = None
    return t


_new_tensor = object.__new__


class Variable(Tensor):
    """Mutable state (model weights). Tapes watch trainable variables they see used.

    >>> v = tk.Variable([1.0, 2.0], name="v")
    >>> v
    <tk.Variable 'v:0' shape=(2,) dtype=float32, numpy=[1. 2.]>
    >>> _ = v.assign_add([0.5, 0.5])
    >>> v.numpy()
    array([1.5, 2.5], dtype=float32)
    >>> with tk.GradientTape() as tape:   # trainable variables are watched when used
    ...     y = tk.reduce_sum(v * v)
    >>> tape.gradient(y, v)
    tk.Tensor([3. 5.], shape=(2,), dtype=float32)
    """

    __slots__ = ("_trainable",)
    _count = itertools.count()

    def __init__(self, initial_value, trainable=True, dtype=None, name=None):
        if callable(initial_value):
            initial_value = initial_value()
        if isinstance(initial_value, Tensor):
            initial_value = initial_value._value
        value = _to_array(initial_value, dtypes.as_dtype(dtype))
        # Own copy: the caller's array may change later; ours must not.
        super().__init__(np.array(value, copy=True))
        self._trainable = bool(trainable)
        self._name = name if name is not None else "Variable"

    @property
    def trainable(self):
        return self._trainable

    @property
    def name(self):
        return f"{self._name}:0"

    def assign(self, value):
        self._value = self._checked(value, "assign")
        if _state.tapes:  # a tk.function tracing this call records the write
            for tape in _state.tapes:
                hook = getattr(tape, "_record_assign", None)
                if hook is not None:
                    hook(self, value)
        return self

    def assign_add(self, delta):
        # While tracing, compute the new value with a recorded op, so that a replay redoes it.
        if _state.tapes and _tracing():
            return self.assign(_ops.add(self, self._delta(delta, "assign_add")))
        self._update(np.add, self._checked(delta, "assign_add"))
        return self

    def assign_sub(self, delta):
        if _state.tapes and _tracing():
            return self.assign(_ops.subtract(self, self._delta(delta, "assign_sub")))
        self._update(np.subtract, self._checked(delta, "assign_sub"))
        return self

    def _update(self, ufunc, delta):
        # In place only when nothing but this variable holds the array (no tape record, no
        # np.asarray(var) in user code, no display copy): then nobody can see the change.
        # Otherwise a new array, so everything that kept the old value keeps it.
        value = self._value
        if (type(value) is np.ndarray and value.flags.writeable and value.flags.owndata
                and _sys.getrefcount(value) <= _SOLE_OWNER):
            ufunc(value, delta, out=value)
        else:
            self._value = ufunc(value, delta)

    def _delta(self, delta, what):
        # Same checks and casts as the eager path, but a Tensor delta stays a Tensor (recorded).
        checked = self._checked(delta, what)
        if not isinstance(delta, Tensor):
            return checked
        return delta if delta.dtype == self.dtype else _ops.cast(delta, self.dtype)

    def _checked(self, value, what):
        # A new array each time, never in place: records that saved the old value stay right.
        if isinstance(value, Tensor):
            value = value._value
        arr = np.asarray(value)
        mine = self._value
        if arr.shape != mine.shape and not (what != "assign" and arr.ndim == 0):
            raise ValueError(f"Variable.{what}: cannot give variable {self.name!r} of shape "
                             f"{self.shape} a value of shape {arr.shape}")
        if arr.dtype != mine.dtype:
            if not np.can_cast(arr.dtype, self.dtype, casting="same_kind") and not (
                    value is not arr and np.ndim(value) == 0):
                raise TypeError(f"Variable.{what}: variable {self.name!r} has dtype {self.dtype}, "
                                f"got a value of dtype {arr.dtype}; cast it with tk.cast(value, "
                                f"tk.{self.dtype.name})")
            arr = arr.astype(self.dtype)
        return np.array(arr, copy=True) if what == "assign" else arr

    def read_value(self):
        return _wrap(self._value)

    def __repr__(self):
        return (f"<tk.Variable {self.name!r} shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={_format_value(self._value, '')}>")

    __str__ = __repr__


def _probe_sole_owner():
    """The largest getrefcount Variable._update may see for an array only its variable holds.

    On CPython 3.11 that is 3 (the attribute, the local name, getrefcount's argument), but
    how many references the call path adds depends on the interpreter, and a count one too
    high would write into an array someone else holds (a tape's saved value: a wrong
    gradient). So it is measured once, on the real method: the smallest limit at which an
    array held only by its variable is updated in place and the same array with one more
    holder is not. 0 (never in place) if none is found.
    """
    in_place = []

    def ufunc(value, delta, out=None):
        in_place.append(out is not None)
        return value

    probe = _new_tensor(Variable)      # only what _update reads; no tape id is used up
    probe._value = np.zeros(1)

    def trial(limit):
        global _SOLE_OWNER
        _SOLE_OWNER = limit
        in_place.clear()
        probe._update(ufunc, None)     # only the variable holds it: in place
        held = probe._value            # one more holder: a new array
        probe._update(ufunc, None)
        del held
        return in_place

    return smallest_sole_limit(trial)


def smallest_sole_limit(trial):
    """The smallest getrefcount limit (2..15) at which `trial(limit)` reports [True, False]:
    written in place when one owner holds the array, not when a second one does. 0 if none."""
    for limit in range(2, 16):
        if trial(limit) == [True, False]:
            return limit
    return 0


_SOLE_OWNER = 0


def _tracing():
    """True while a tk.function traces: some active pseudo-tape records variable writes."""
    return bool(_state.tapes) and any(hasattr(t, "_record_assign") for t in _state.tapes)


def _format_value(value, prefix):
    text = np.array2string(np.asarray(value), separator=" ") if np.ndim(value) else str(value[()] if isinstance(value, np.ndarray) else value)
    if "\n" in text and prefix:
        return "\n" + text
    return text


def _to_array(value, dtype=None):
    """A NumPy array for `value` with TensorFlow's dtype defaults."""
    if isinstance(value, Tensor):
        value = value._value
    if dtype is None:
        dtype = dtypes.default_dtype_for(value)
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"cannot convert {type(value).__name__} {_short(value)} to a tensor: {e}") from None
    if arr.dtype == object:
        raise TypeError(f"cannot convert {_short(value)} to a tensor: it holds Python objects "
                        f"(ragged lists or mixed types are not supported)")
    return arr


def _short(value, n=60):
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def constant(value, dtype=None, shape=None, name=None):
    """A Tensor from a Python value or array (`tf.constant`).

    >>> tk.constant([[1, 2], [3, 4]])
    tk.Tensor(
    [[1 2]
     [3 4]], shape=(2, 2), dtype=int32)

    >>> tk.constant(1.0, dtype=tk.float64)
    tk.Tensor(1.0, shape=(), dtype=float64)

    >>> tk.constant(0.0, shape=(2, 3))
    tk.Tensor(
    [[0. 0. 0.]
     [0. 0. 0.]], shape=(2, 3), dtype=float32)
    """
    t = convert_to_tensor(value, dtype=dtype)
    if shape is not None:
        arr = np.broadcast_to(t._value, tuple(shape)).copy() if t.size == 1 else t._value.reshape(shape)
        t = _wrap(arr)
    elif type(t) is Variable or t is value:
        t = _wrap(t._value)
    t._name = name
    return t


def convert_to_tensor(value, dtype=None, name=None):
    """`value` as a Tensor; a Tensor is returned as is (its dtype must match `dtype`).

    >>> tk.convert_to_tensor([1.0, 2.0])
    tk.Tensor([1. 2.], shape=(2,), dtype=float32)
    >>> t = tk.constant(3.0)
    >>> tk.convert_to_tensor(t) is t          # a tensor is returned as it is
    True
    """
    dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(f"convert_to_tensor: the tensor has dtype {value.dtype.name}, "
                             f"requested {dtype.name}; use tk.cast(x, tk.{dtype.name})")
        return value
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return _ops.stack([convert_to_tensor(v, dtype) for v in value])
    t = _wrap(_to_array(value, dtype))
    t._name = name
    return t


def _holds_tensor(seq):
    return any(isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in seq)


# Python operator -> op name; `r` operators take the tensor as the second input.
_BINARY_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "pow": "pow",
    "matmul": "matmul_op", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "eq": "equal", "ne": "not_equal", "and": "logical_and",
    "or": "logical_or",
}
_REFLECTED = ("add", "sub", "mul", "truediv", "pow", "matmul", "and", "or")


def _binary_operator(apply2, op, reflected):
    # `x * c` calls registry.apply2 straight away: no *args, no Op.__call__ frame, which
    # matters when the arrays are small (one call per op of every forward pass).
    if reflected:
        def operator(self, other):
            return apply2(op, other, self)
    else:
        def operator(self, other):
            return apply2(op, self, other)
    return operator


def _bind_operators(ops_namespace):
    global _ops
    _ops = ops_namespace
    apply2 = ops_namespace.registry.apply2
    for name, op_name in _BINARY_OPERATORS.items():
        op = getattr(ops_namespace, op_name)
        for dunder, reflected in ((f"__{name}__", False), (f"__r{name}__", True)):
            if reflected and name not in _REFLECTED:
                continue
            method = _binary_operator(apply2, op, reflected)
            method.__name__, method.__qualname__ = dunder, f"Tensor.{dunder}"
            setattr(Tensor, dunder, method)


_SOLE_OWNER = _probe_sole_owner()
