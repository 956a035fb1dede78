"""What an op is given: its inputs, as `Op.run` (registry.py) takes anything but tensors and weak
Python numbers, and the integer arguments an op's function reads (axes, sizes, shapes).

- `take_inputs` converts arrays, lists and numbers as TensorFlow converts an op's inputs (a
  Python number takes the tensor's dtype; two tensors of different dtypes raise; int32 + 1.5
  raises where NumPy would promote);
- `keep_private` is the copy rule: never keep the caller's array;
- `python_value`, `as_int`, `as_axis`: integers where TensorFlow wants integers (a float or
  a bool raises), a traced tensor's value guarded (tk.function);
- `input_shape`, `check_alike`: a list of inputs that must agree (add_n, stack, concat);
- a forward that fails is re-raised naming the op and its inputs' shapes and dtypes
  (`op_error`), a long list of inputs summarised by its odd ones (`describe_inputs`).
"""
import operator
import sys
from collections import Counter

import numpy as np

from ..context import state
from ..errors import InvalidArgumentError
from ..tensor import Tensor, guard_read, to_array, wrap_array


_SCALARS = (int, float, bool)
_BOOL = np.dtype(bool)


def take_inputs(op, args):
    """(args, values, tids, callers) for a call of `op` that Op.__call__ does not read directly:
    `args` with the inputs that became tensors, their arrays `values` and tape ids `tids`
    (None for a non-tensor), and whether a NumPy array of the caller's may be among the
    values (then Op.__call__ applies keep_private). TensorFlow's dtype rules are checked here."""
    values = []
    tids = []
    first = None
    convert = False
    arrays = False      # a NumPy array (the caller's) among the inputs
    scalars = False     # a weak Python number among the inputs
    for a in args:
        if isinstance(a, Tensor):
            if first is None:
                first = a
            elif op.same_dtype and a._value.dtype is not first._value.dtype:
                _check_same_dtype(op, args)
            values.append(a._value)
            tids.append(a._tid)
        else:
            # A weak Python scalar stays as it is; so does an array of the first tensor's
            # dtype (a constant such as `x * c`). Anything else goes through _convert.
            if type(a) in _SCALARS:
                scalars = True
            else:
                arrays = True
                if not (type(a) is np.ndarray and first is not None and a.dtype is first._value.dtype):
                    convert = True
            values.append(a)
            tids.append(None)
    if convert or first is None:
        args, values, copied = _convert(op, args, values, first)
        arrays = arrays and not copied
    elif (scalars and op.same_dtype) or op.float_only:
        check_scalars(op, values, first)
    if op.no_bool and (first is None or first._value.dtype is _BOOL) and any(
            type(v) is bool or getattr(v, "dtype", None) is _BOOL for v in values):
        raise _bool_error(op, values)   # True + True: TensorFlow refuses, NumPy gives True
    return args, tuple(values), tuple(tids), arrays


def keep_private(op, values, tids, out):
    """(out, values) holding no NumPy array the caller still has: the copy rule, once.

    TensorFlow copies NumPy inputs; so does tapekit, but only where it would otherwise
    keep the caller's array: the result when it is a view of one (x[0], reshape, identity),
    and an input a recording tape saves for the backward pass (X in X @ w). Without a copy,
    `X[:] = 0` after the forward pass would change the gradient. Everywhere else (no tape,
    or an input the rules do not read) the array is only read once, now. An array nobody
    can write to (read-only and owning its memory: what np.asarray(tensor) hands out) is
    never copied.
    """
    saving = bool(state.tapes) and not op.save_none
    kept = None
    for k, v in enumerate(values):
        if tids[k] is not None or type(v) is not np.ndarray or (v.base is None and not v.flags.writeable):
            continue   # a tensor's array, a Python number, or an array that cannot change
        if (type(out) is np.ndarray and (out is v or out.base is not None)
                and np.may_share_memory(out, v)):
            out = out.copy()
        if saving and op.saves_input(k):
            kept = list(values) if kept is None else kept
            kept[k] = v.copy()
    return out, (values if kept is None else tuple(kept))


def _convert(op, args, values, first):
    """Inputs that are not tensors: weak Python scalars stay, the rest become arrays.
    Returns (args, values, copied): `copied` is True when every array is a copy already."""
    copied = False
    if first is None:  # no tensor among the inputs at all: tk.sin(3.0), tk.add([1], [2])
        for a in args:
            if a is None:
                raise TypeError(f"{op.name}: an input is None; did a gradient come back None?")
        k = next((k for k, a in enumerate(args) if type(a) not in _SCALARS), None)
        weak = any(type(a) in _SCALARS for a in args)
        if k is None or not weak or not op.same_dtype:   # tk.add(1, 2), tk.add([1], [2.5])
            args = tuple(wrap_array(to_array(a, what=op.name)) for a in args)   # copies of arrays
            values = [a._value for a in args]
            first = args[0] if args else None
            if op.same_dtype and len(args) > 1:
                _check_same_dtype(op, args)   # tk.add(1, 2.5): int32 and float32, as TensorFlow
            copied = True
        else:
            # Arrays and Python numbers: the Python numbers take the first array's dtype, as
            # TensorFlow converts op inputs: tk.multiply(np.ones(2), 42) is float64 [42, 42]
            # (a NumPy array keeps its dtype; the number adapts to it).
            first = wrap_array(to_array(args[k], what=op.name))
            args = args[:k] + (first,) + args[k + 1:]
            values[k] = first._value
            _convert_rest(op, args, values, first)
    else:
        _convert_rest(op, args, values, first)
    if op.same_dtype or op.float_only:
        check_scalars(op, values, first)
    return args, values, copied


def _convert_rest(op, args, values, first):
    """Array-likes other than tensors, converted to the dtype of `first` (same_dtype ops)."""
    dtype = first._value.dtype if op.same_dtype else None
    for k, a in enumerate(args):
        if isinstance(a, Tensor) or type(a) in _SCALARS:
            continue  # weak Python scalar: takes the tensor's dtype (NEP 50)
        if type(a) is np.ndarray and a.dtype is dtype:
            continue  # already what to_array would return
        if a is None:
            raise TypeError(f"{op.name}: an input is None; did a gradient come back None?")
        # Not copied here: Op.__call__ copies what it would keep (keep_private).
        values[k] = to_array(a, dtype, copy=False, what=f"{op.name}: input {k}")


def check_scalars(op, values, first):
    """TensorFlow's dtype rules where NumPy would promote silently.

    same_dtype ops: a Python float with an integer tensor (int32 + 1.5 would become
    float64), a Python number with a bool tensor. float_only ops: integer or bool inputs
    (exp of a bool would become float16). Both raise TypeError naming the op and the fix.
    """
    dtype = first._value.dtype if first is not None else None
    if op.float_only:
        for v in values:
            if hasattr(v, "dtype") and v.dtype.kind not in "fc":
                raise not_float(op, v)
    if not op.same_dtype or dtype is None or dtype.kind in "fc":
        return
    for v in values:
        if type(v) is float or (dtype.kind == "b" and type(v) in (int, float)):
            raise TypeError(
                f"{op.name}: cannot combine a tensor of dtype {dtype.name} with the Python "
                f"{type(v).__name__} {v!r}: the result would silently become "
                f"{np.result_type(np.empty(0, dtype), v).name}. TensorFlow refuses this too; "
                f"cast the tensor first, e.g. tk.cast(x, tk.float32) {_SYMBOL.get(op.name, op.name)} {v!r}")
    if op.no_bool and dtype.kind == "b":   # a bool tensor with a Python bool: True + True
        raise _bool_error(op, values)


_SYMBOL = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "pow": "**"}


def _bool_error(op, values):
    shapes = describe_inputs(values)
    shapes = f" ({shapes})" if len(values) <= MAX_LISTED else f": {shapes}"
    return TypeError(f"{op.name}: cannot apply to bools{shapes}; TensorFlow refuses arithmetic "
                     f"on bools too (in NumPy, True + True is True). Cast first, e.g. "
                     f"tk.cast(x, tk.int32) to count, or use tk.logical_or / tk.logical_and")


def not_float(op, v):
    return TypeError(f"{op.name}: needs a floating input (float16/32/64), got dtype {v.dtype.name}; "
                     f"TensorFlow refuses it too, NumPy would silently give "
                     f"{_numpy_result(op, v)}. Cast first: {_public(op.name)}(tk.cast(x, tk.float32))")


def _public(name):
    """Where a user finds the op's function: tk.exp, tk.nn.softmax, tk.math.lgamma (for the hint;
    tapekit is loaded by then, read from sys.modules, not imported: no cycle)."""
    tk = sys.modules.get("tapekit")
    for space in ("", "nn", "math"):
        namespace = getattr(tk, space, None) if space else tk
        if namespace is not None and hasattr(namespace, name):
            return f"tk.{space + '.' if space else ''}{name}"
    return f"tk.{name}"


def _numpy_result(op, v):
    try:
        with np.errstate(all="ignore"):
            return f"a {np.asarray(op.forward(np.zeros(1, v.dtype))).dtype.name} result"
    except Exception:   # noqa: BLE001 - only for the message
        return "a promoted result"


def _check_same_dtype(op, args):
    dtype = None
    for a in args:
        if isinstance(a, Tensor):
            if dtype is None:
                dtype = a._value.dtype
            elif a._value.dtype != dtype:
                which, cast_to = "", dtype
                if len(args) > 2:   # a list (add_n, stack, concat): say which input differs
                    keys = [x._value.dtype if isinstance(x, Tensor) else None for x in args]
                    which, cast_to = _odd_dtypes(keys)
                raise TypeError(
                    f"{op.name}: inputs have different dtypes {dtype.name} and {a.dtype.name}{which}; "
                    f"tapekit does not convert between tensors silently (TensorFlow raises too). Cast one of them, "
                    f"e.g. tk.cast(x, tk.{cast_to.name})")


def _odd_dtypes(dtypes):
    """(' (input 4,217 is float64, the other 5,000 are float32)', the others' dtype) for the
    dtypes of a list's tensors (None: not a tensor, left out)."""
    common = Counter(d for d in dtypes if d is not None).most_common(1)[0][0]
    text = odd_inputs(dtypes, lambda k: f"is {dtypes[k].name}", f"are {common.name}",
                      skip=lambda key: key is None)
    return f" ({text})", common


MAX_LISTED = 8   # an error lists at most this many inputs one by one; a longer list is summarised


def describe_inputs(values):
    """An op's inputs as its error shows them: each one ('shape (2,) float32, 1.5'), or, for
    more than MAX_LISTED, the odd ones by position and what the others share ('5,001 inputs
    (input 4,217 has shape (3,) float32; the other 5,000 have shape (2,) float32)'). A list of
    5,001 inputs spelled out one by one made a 100 KB message that did not say which differs."""
    texts = [_describe(v) for v in values]
    if len(texts) <= MAX_LISTED:
        return ", ".join(texts)
    counts = Counter(texts)
    common = counts.most_common(1)[0][0]
    if len(counts) == 1:
        return f"{len(texts):,} inputs, each of {common}"
    verb = "have" if common.startswith("shape") else "are"
    text = odd_inputs(texts, lambda k: ("has " if texts[k].startswith("shape") else "is ") + texts[k],
                      f"{verb} {common}")
    return f"{len(texts):,} inputs ({text})"


def odd_inputs(keys, odd, others, skip=lambda key: False, most=3):
    """'input 4,217 has shape (3,); the other 5,000 have shape (2,)': the inputs whose key
    differs from the most common one, by position (at most `most`, the rest counted), then
    what the others share. keys: one hashable per input; odd(k): what input k is ('has shape
    (3,)'); others: what the inputs of the most common key are ('have shape (2,)');
    skip(key): inputs to leave out (those that are not tensors, for a dtype)."""
    counts = Counter(key for key in keys if not skip(key))
    common, n = counts.most_common(1)[0]
    if n == 1:   # no two alike: the first few
        listed = [k for k, key in enumerate(keys) if not skip(key)]
    else:
        listed = [k for k, key in enumerate(keys) if not skip(key) and key != common]
    text = ", ".join(f"input {k:,} {odd(k)}" for k in listed[:most])
    if len(listed) > most:
        text += f" and {len(listed) - most:,} more"
    return text + (", no two alike" if n == 1 else f"; the other {n:,} {others}")


# What a forward may raise for bad inputs: re-raised naming the op (op_error). NumPy raises
# OverflowError for a Python int that does not fit the tensor's dtype (int32 + 2**40).
FORWARD_ERRORS = (ValueError, TypeError, IndexError, OverflowError)


def op_error(op, values, attrs, err):
    shapes = describe_inputs(values)
    if len(values) <= MAX_LISTED:
        shapes = "inputs " + shapes
    extra = "".join(f", {k}={_clip(repr(v), 200)}" for k, v in attrs.items()
                    if not isinstance(v, np.ndarray))
    # A bad argument (shapes that do not broadcast, an axis out of range): TensorFlow's
    # InvalidArgumentError (tapekit's is a ValueError too; TensorFlow's is not).
    cls = type(err) if type(err) in (TypeError, IndexError) else InvalidArgumentError
    # NumPy's own message can list every operand too (einsum's does): clipped.
    return cls(f"{op.name}: cannot apply to {shapes}{extra}: {_clip(str(err), 400)}")


def _clip(text, width):
    return text if len(text) <= width else text[:width - 4] + " ..."


def _describe(v):
    if isinstance(v, (np.ndarray, np.generic)):
        return f"shape {v.shape} {v.dtype.name}"
    return repr(v)


# --- checked arguments: integers where TensorFlow wants integers ------------------------

def python_value(x):
    """The value of `x` for tapekit to decide with in Python: a shape, a size, an axis, a
    range's bounds. A Tensor gives its array; anything else comes back as it is.

    While a tk.function traces, reading a tensor here records a guard on its whole value, so
    a replay with another value traces again instead of reusing a program built for this
    one (tk.range(n) with n = 3, then 4, must not give the first call's 3 numbers).
    """
    if isinstance(x, Tensor):
        if state.tapes:
            guard_read(x, "numpy", x._value)
        return x._value
    return x


def as_int(value, what):
    """`value` as a Python int; a float (1.7), a bool or a non-integer tensor raises TypeError.

    int(1.7) would give 1, and reduce_sum(x, axis=1.7) would then sum axis 1 silently;
    TensorFlow refuses a float where it wants an integer, and so does tapekit. `what` names
    the operation and the argument ("reduce_sum: axis").
    """
    value = python_value(value)   # a traced tensor's value: guarded (tk.function)
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, np.ndarray) and value.dtype == bool):
        raise TypeError(f"{what} must be an integer, got the bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        pass
    raise TypeError(f"{what} must be an integer, got {value!r} ({type(value).__name__}); "
                    f"TensorFlow refuses a non-integer here too (int() would truncate it silently)")


def as_axis(value, ndim, what):
    """`value` checked as an axis of a rank-`ndim` tensor: an int in [-ndim, ndim)."""
    axis = as_int(value, what)
    if not -ndim <= axis < max(ndim, 1):
        raise InvalidArgumentError(f"{what} = {axis} is out of range for a tensor of rank {ndim} "
                         f"(valid: {-ndim} to {max(ndim, 1) - 1})")
    return axis


# --- a list of inputs that must agree (add_n, stack, concat) --------------------------------

def input_shape(x, what, k):
    """The shape of input `k` of a list (a tensor, array, list or number); None raises."""
    if x is None:
        raise TypeError(f"{what}: input {k:,} is None; did a gradient come back None?")
    if hasattr(x, "shape"):
        return tuple(int(n) for n in x.shape)
    try:
        return np.shape(x)
    except ValueError as e:   # a ragged list
        raise TypeError(f"{what}: cannot convert input {k:,} to a tensor: {e}") from None


def check_alike(what, shapes, fix, key=tuple, like=lambda shape: f"shape {shape}"):
    """Raise InvalidArgumentError when the inputs' `key(shape)` differ, with a short message
    that names the odd inputs by position and shape, says what the others have
    (`like(one of their shapes)`), and gives the `fix`.

    Up to MAX_LISTED inputs, every shape is listed ('got shapes (2,), (3,)'); beyond, only
    the odd ones ('input 4,217 has shape (3,); the other 5,000 have shape (2,)'): a
    5,001-input stack's error was 100 KB and did not say which input was the odd one."""
    keys = [key(s) for s in shapes]
    first = keys[0]
    if all(k == first for k in keys):
        return
    if len(shapes) <= MAX_LISTED:
        got = "got shapes " + ", ".join(str(s) for s in shapes)
    else:
        common = Counter(keys).most_common(1)[0][0]
        got = odd_inputs(keys, lambda k: f"has shape {shapes[k]}",
                         f"have {like(shapes[keys.index(common)])}")
    raise InvalidArgumentError(f"{what}: {got}. {fix}")
