"""Tensor and Variable: immutable values and mutable model state.

A Tensor wraps a NumPy array (or NumPy scalar) and a tape id (`_tid`), a number
that is never reused. Tapes track tensors by that id, never by `id()`, so records
stay valid and display ids stay stable.

The methods that run an op are not written here: this module comes before the ops, which
are built on Tensor. tapekit.ops sets them when it loads, from the tables of
ops/operators.py: the operators (`+`, `-`, `*`, `/`, `**`, `@`, `%`, `//`, comparisons, `&`,
`|`, unary `-`, `abs`, `~`), `x[i]`, NumPy's `__array_ufunc__` and `__array_function__`, and
Variable's `v[i]` (a read that can be assigned to), `read_value` (and `_cast`, for a traced
assign_add). Values become tensors in ops/conversion.py (`tk.constant`, `tk.convert_to_tensor`).
"""
import itertools
import os as _os
import sys as _sys
import threading

import numpy as np

from . import dtypes
from .context import UNDO as _UNDO, hints as _hints, state as _state
from .dtypes import short_repr
from .namespaces import no_attribute
from .tensor_shape import ConcreteShape, TensorShape
from .writes import note as _note_write

next_tid = itertools.count().__next__


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

    NumPy functions on a tensor (`np.mean(t)`) are recorded too, or refused: unlike TensorFlow,
    where they leave the tape and the gradient comes back None (ops/numpy_dispatch.py).
    """
    # Set from outside this file: the operators (+, *, @, comparisons, -x, abs, ~), x[i],
    # __array_ufunc__ and __array_function__, by ops/operators.py (attach(), from its tables),
    # when tapekit.ops loads: they run ops, which are built on Tensor.

    # `_keras_mask`: the mask a Keras layer attached to its output (Keras 3 keeps it there as
    # `tensor._keras_mask`); set only by tapekit.keras's layers, unset on every other tensor.
    __slots__ = ("_value", "_tid", "_name", "_keras_mask", "__weakref__")
    __array_priority__ = 100  # NumPy defers binary operators to us

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, value, dtype=None, name=None):
        self._value = to_array(value, dtypes.as_dtype(dtype))
        self._tid = next_tid()
        self._name = name

    # --- basic properties ---------------------------------------------------
    @property
    def shape(self):
        return tuple.__new__(ConcreteShape, self._value.shape)   # a tk.TensorShape, unchecked

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

    # TensorFlow's name of the one device tapekit computes on (the CPU, in this process)
    DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"

    @property
    def device(self):
        """The device holding the tensor, in TensorFlow's spelling: always the CPU.

        >>> tk.constant(1.0).device
        '/job:localhost/replica:0/task:0/device:CPU:0'
        """
        return Tensor.DEVICE

    def set_shape(self, shape):
        """Check that this tensor's shape is `shape` (`tf.Tensor.set_shape`), where None (a
        size, or the whole shape) matches any size. In TensorFlow it refines what a graph
        knows of a shape; an eager tensor's shape is known, so it only checks, and raises
        ValueError, as TensorFlow does, when the shapes differ. The tensor is unchanged.

        >>> x = tk.zeros((2, 3))
        >>> x.set_shape([None, 3])                     # compatible: nothing happens
        >>> x.set_shape([3, 2])
        Traceback (most recent call last):
        ...
        ValueError: Tensor's shape (2, 3) is not compatible with supplied shape (3, 2).
        """
        if shape is None:
            return
        given = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
        mine = self._value.shape
        if len(given) != len(mine) or any(g is not None and g != m for g, m in zip(given, mine)):
            raise ValueError(f"Tensor's shape {mine} is not compatible with supplied shape "
                             f"{tuple(given)}.")

    def numpy(self):
        """A copy of the value: a NumPy array, or a NumPy scalar for shape ()."""
        v = self._value
        if _state.tapes:   # in user code inside tk.function: a guard on the value
            guard_read(self, "numpy", v, user_only=True)
        return v.copy() if isinstance(v, np.ndarray) and v.ndim else v[()]

    def __array__(self, dtype=None, copy=None):
        """The value, read-only (`np.asarray(x)`), as TensorFlow hands it out.

        The tensor's own array, frozen: writing into it raises "assignment destination is
        read-only" instead of changing the tensor and every tape that saved it. Freezing
        costs nothing and the tensor never writes into its value (a Variable's assign*
        write a new array).
        """
        v = self._value
        if _state.tapes:
            guard_read(self, "numpy", v, user_only=True)
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return np.asarray(v).astype(dtype)     # a new array: the caller's to change
        if copy or type(v) is not np.ndarray:
            return np.array(v)                     # a copy (a NumPy scalar's 0-d array)
        v.flags.writeable = False
        return v

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a scalar tensor (shape ()) is not defined")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a scalar tensor (shape ()) is not possible")
        return (self[i] for i in range(self.shape[0]))

    def _scalar(self, kind):
        if _state.tapes:   # inside tk.function: a guard, checked by every replay
            guard_read(self, kind, self._value)
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

    def __format__(self, spec):   # f"{t}", f"{t:.3f}": the value, as TensorFlow (str(t) is the repr)
        v = self._value
        return format(v[()] if v.ndim == 0 else v, spec)

    __hash__ = object.__hash__  # identity; == is elementwise, as in TensorFlow 2

    def __repr__(self):
        return f"tk.Tensor({_format_value(self._value, 'tk.Tensor(')}, shape={self.shape}, dtype={self.dtype.name})"

    __str__ = __repr__

    # --- operators: each is one tapekit op, set by ops/operators.py (see above) ---------
    def __pos__(self):
        return self


def wrap_array(value, tid=None):
    """A Tensor around `value` (already an array), with a fresh or the given tape id."""
    t = new_tensor(Tensor)
    t._value = value
    t._tid = next_tid() if tid is None else tid
    t._name = None
    return t


new_tensor = object.__new__
_NUMBERS = (float, int)   # Variable: assigned straight when |value| < 6e4 (fits every float dtype)


def _in_place(symbol, fix):
    return RuntimeError(
        f"`v {symbol}= value` on a tk.Variable is not supported (as in TensorFlow): it would make "
        f"a new tensor and rebind the name v to it, and the variable itself would not change. "
        f"Use {fix} to change the variable, or `out = v {symbol} value` for a new tensor")


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
    # Set from outside this file: v[i] (ops/indexing.py's variable_getitem), read_value,
    # _cast, and the writes by index scatter_nd_update / _add / _sub / _max / _min and
    # scatter_update / _add / _sub / _mul / _div / _max / _min (ops/variable_scatter.py), by
    # ops/operators.py (attach(), its METHODS table), as Tensor's operators.

    __slots__ = ("_trainable", "_lock", "_path", "_constraint")
    _count = itertools.count()

    def __init__(self, initial_value, trainable=True, dtype=None, name=None, constraint=None):
        if constraint is not None and not callable(constraint):
            raise ValueError(f"Variable: constraint must be a callable w -> w (such as "
                             f"tk.constraints.NonNeg()), got {constraint!r:.100}")
        if callable(initial_value):
            initial_value = initial_value()
        if initial_value is None:
            raise TypeError("Variable: initial_value is None; give a number, a list, an array or "
                            "a tensor")
        value = to_array(initial_value, dtypes.as_dtype(dtype), what="Variable")
        # Its own writeable buffer: never the caller's array, nor a tensor's (immutable) one.
        if isinstance(initial_value, Tensor) or type(value) is not np.ndarray \
                or not value.flags.writeable or value.base is not None:
            value = np.array(value)
        self._value = value
        self._tid = next_tid()
        self._trainable = bool(trainable)
        self._name = name if name is not None else "Variable"
        self._path = None   # a layer's weight (add_weight): "dense/kernel", and its name is "kernel"
        self._constraint = constraint   # applied by an optimizer after each update (Keras 3)
        # Held while assign* replaces or updates the value: 8 threads adding 1.0 2,000 times
        # each give 16,000, not the 6,000-15,000 an unguarded read-add-write gave.
        self._lock = threading.Lock()
        if _state.tapes:   # a tk.function tracing: only its first call may create variables
            for recorder in _state.tapes:
                recorder.record_create(self)

    def __getstate__(self):       # copy/deepcopy/pickle: everything but the lock
        return {k: getattr(self, k) for k in ("_value", "_tid", "_name", "_trainable", "_path",
                                              "_constraint")}

    def __setstate__(self, state):
        self._constraint = None           # a pickle made before variables had constraints
        for k, v in state.items():
            setattr(self, k, v)
        # A copy is another variable: a tape that watched the original must not take the
        # copy for it (a shared id gave the copy the original's gradient).
        self._tid = next_tid()
        self._lock = threading.Lock()

    @property
    def trainable(self):
        return self._trainable

    @property
    def name(self):   # TensorFlow's "w:0"; a Keras 3 layer weight's is "kernel" (its path: .path)
        return self._name if self._path is not None else f"{self._name}:0"

    @property
    def constraint(self):
        """The projection an optimizer applies after each update of this variable (TF's and
        Keras's `constraint=`), or None; a layer weight's comes from its `kernel_constraint=`."""
        return self._constraint

    path = property(lambda self: self._path or self._name, doc="Keras 3's path: 'dense/kernel' for a layer weight, else the name.")

    def assign(self, value):
        new = self._checked(value, "assign")
        if _state.tapes:  # a tk.function tracing this call records the write
            for recorder in _state.tapes:
                recorder.record_assign(self, value, new)
        with self._lock:
            old, self._value = self._value, new
        # In writes.all_or_nothing (a training step) the old value is logged: undone if it fails.
        if _hints[_UNDO] and _state.undo is not None:
            _state.undo.append((self, old))
        return self

    def assign_add(self, delta):
        # While tracing, the delta stays a recorded tensor and the tracer records one update
        # step, which a replay runs under the lock as this does (read, add, write as one).
        if _state.tapes and writes_are_traced():
            return self._traced_update(np.add, self._delta(delta, "assign_add"))
        self._update(np.add, self._checked(delta, "assign_add"))
        return self

    def assign_sub(self, delta):
        if _state.tapes and writes_are_traced():
            return self._traced_update(np.subtract, self._delta(delta, "assign_sub"))
        self._update(np.subtract, self._checked(delta, "assign_sub"))
        return self

    # `v += d` would make a new tensor and rebind the name `v` to it: the variable keeps its
    # value, and a tape or a later step no longer sees the name as the variable (a gradient
    # None, or a tk.function's value that leaks). TensorFlow 2.21 refuses these five; so do we.
    def __iadd__(self, other):
        raise _in_place("+", "v.assign_add(value)")

    def __isub__(self, other):
        raise _in_place("-", "v.assign_sub(value)")

    def __imul__(self, other):
        raise _in_place("*", "v.assign(v * value)")

    def __itruediv__(self, other):
        raise _in_place("/", "v.assign(v / value)")

    def __ipow__(self, other):
        raise _in_place("**", "v.assign(v ** value)")

    def _traced_update(self, ufunc, delta):
        for recorder in _state.tapes:
            recorder.record_update(self, ufunc, delta)
        self._update(ufunc, delta._value if isinstance(delta, Tensor) else delta)
        return self

    def _update(self, ufunc, delta):
        # Always a new array, so everything that kept the old value (a tape record, the
        # user's np.asarray(var), a display copy) keeps it. (Updating in place when nothing
        # else held the array was measured at 3% of an MLP step and removed; see
        # docs/PERFORMANCE.md.) Under the variable's lock: read, add and write are one
        # step for other threads.
        with self._lock:
            old = self._value
            self._value = ufunc(old, delta)
        if _hints[_UNDO] and _state.undo is not None:
            _state.undo.append((self, old))

    def _delta(self, delta, what):
        # Same checks and casts as the eager path, but a Tensor delta stays a Tensor (recorded).
        checked = self._checked(delta, what)
        if not isinstance(delta, Tensor):
            return checked
        return delta if delta.dtype == self.dtype else self._cast(delta)   # ops/operators.py

    def _checked(self, value, what):   # a new array each time, never in place: records keep the old
        _state.tapes and _note_write(self, what, value)   # for tape.explain (tapekit/writes.py)
        mine = self._value
        dtype = mine.dtype
        if isinstance(value, Tensor):
            arr = value._value
            if arr.dtype != dtype:
                if not np.can_cast(arr.dtype, dtype, casting="same_kind"):
                    raise TypeError(f"{_Where(self, what)}: got a tensor of dtype {arr.dtype.name}; "
                                    f"cast it with tk.cast(value, tk.{dtype.name})")
                arr = dtypes.check_cast(arr, dtype, _Where(self, what))
            elif what == "assign":
                arr = np.array(arr)   # the variable's own buffer, never the tensor's
        elif type(value) in _NUMBERS and dtype.kind == "f" and -6e4 < value < 6e4 or type(value) is int and dtype.kind in "iu":
            try:    # the common `v.assign_add(1.0)`, without to_array's general path
                arr = np.array(value, dtype)
            except OverflowError:   # 2**40 into int32: to_array says so clearly
                arr = to_array(value, dtype, what=_Where(self, what))
        elif value is None:
            raise TypeError(f"{_Where(self, what)}: the value is None; did a gradient or a "
                            f"function return None?")
        else:
            # A copy in the variable's dtype; 0.9 into an int variable, 2**40 into int32 raise.
            arr = to_array(value, dtype, what=_Where(self, what))
        if arr.shape != mine.shape:   # TensorFlow does not broadcast a scalar delta either
            raise ValueError(f"{_Where(self, what)}: cannot give it a value of shape {arr.shape}")
        return arr

    def __repr__(self):
        return (f"<tk.Variable {self._path or self.name!r} shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={_format_value(self._value, '')}>")

    __str__ = __repr__


class _Where:
    """"Variable.assign of 'w:0' (float32, shape (3,))": str() builds it, for errors only."""

    __slots__ = ("variable", "what")

    def __init__(self, variable, what):
        self.variable, self.what = variable, what

    def __str__(self):
        v = self.variable
        return f"Variable.{self.what} of {v._path or v.name!r} ({v.dtype.name}, shape {v.shape})"

    def __format__(self, spec):
        return format(str(self), spec)


class TracedValueWarning(UserWarning):
    """A traced value read into Python inside tk.function: the number is frozen into the program."""


_PACKAGE_DIR = _os.path.dirname(_os.path.abspath(__file__)) + _os.sep


def guard_read(tensor, kind, value, user_only=False):
    """Python read `kind` (bool, int, float, index, numpy) of `tensor` while a tk.function
    traces: the tracer records a guard, and a replay whose value decides otherwise traces
    that path too. `user_only`: x.numpy() and np.asarray(x) count only from user code
    (tapekit reads dtypes and values of its inputs that way without deciding anything)."""
    if user_only:
        caller = _sys._getframe(2).f_code.co_filename
        if caller.startswith(_PACKAGE_DIR):
            return
    for recorder in _state.tapes:
        recorder.record_guard(tensor, kind, value)


def writes_are_traced():
    """True while a tk.function traces: some active recorder records variable writes."""
    return bool(_state.tapes) and any(t.records_writes for t in _state.tapes)


def _format_value(value, prefix):
    text = np.array2string(np.asarray(value), separator=" ") if np.ndim(value) else str(value[()] if isinstance(value, np.ndarray) else value)
    if "\n" in text and prefix:
        return "\n" + text
    return text


def to_array(value, dtype=None, copy=True, what="convert_to_tensor"):
    """A NumPy array for `value` with TensorFlow's dtype defaults, that the tensor may keep.

    A NumPy array (or anything else that may share memory with the caller) is copied, as
    TensorFlow copies it: the caller may change theirs later, and neither a tensor's value
    nor what a tape saved may change with it. Not copied: a tensor's value (immutable), a
    new array made from a Python list or number, and an array that cannot change (read-only
    and owning its memory, such as np.asarray(tensor) hands out). `copy=False` (op inputs:
    ops/inputs.py's copy rule decides) never copies. Conversions that would change numbers (1.5 to an
    int dtype, 2**40 to int32) raise (dtypes.check_cast); `what` names the operation.
    """
    if isinstance(value, Tensor):
        arr = value._value
        return arr if dtype is None or arr.dtype == dtype else dtypes.check_cast(np.asarray(arr), dtype, what)
    try:
        arr = dtypes.natural_array(value, what)
    except (TypeError, ValueError) as e:
        if "ragged" in str(e) or isinstance(e, dtypes.TextInputError):
            raise type(e)(str(e).replace("convert_to_tensor", str(what))) from None
        raise TypeError(f"{what}: cannot convert {type(value).__name__} {short_repr(value)} to a "
                        f"tensor: {e}") from None
    if arr.dtype == object:
        raise TypeError(f"{what}: cannot convert {short_repr(value)} to a tensor: it holds Python "
                        f"objects (None, mixed types or tensors of different shapes)")
    # Made here from Python values (np.float64 is a float too, but keeps its dtype).
    fresh = (arr is not value and isinstance(value, (list, tuple, int, float, bool, complex))
             and not isinstance(value, np.generic))
    if dtype is None and fresh:
        dtype = dtypes.default_dtype_of(arr)
    if dtype is not None and arr.dtype != dtype:
        return dtypes.check_cast(arr, dtype, what, value)   # a new array
    if copy and not fresh and not (arr.base is None and not arr.flags.writeable):
        return arr.copy()
    return arr
