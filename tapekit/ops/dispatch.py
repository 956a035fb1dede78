"""The one path every op call takes: convert the inputs, run the forward, wrap the result,
and show the op to every active tape and forward accumulator (`_emit`).

`apply` is the general path; `apply1` (one tensor) and `apply2` (two tensors, or a tensor
and a Python number, no attributes) are its shortcuts for the common calls. Inputs are
checked here: dtypes that would change a number raise (where TensorFlow raises, int32 + 1.5,
and where it converts silently, a NumPy float array into an int32 op), and a forward that
fails names the op and its inputs' shapes and dtypes.
"""
import sys
from collections import Counter

import numpy as np

from ..context import ACCUMULATORS, state
from ..context import hints as _hints
from ..errors import InvalidArgumentError
from ..tensor import Tensor, new_tensor, next_tid, to_array, wrap_array


_SCALARS = (int, float, bool)
_BOOL = np.dtype(bool)
_NO_ATTRS = {}  # shared by every call without attributes; nothing writes to a record's attrs


def apply(op, args, attrs):
    """Run `op` on tensors: convert inputs, compute, wrap, record on tapes and accumulators."""
    # One pass over the inputs; apply1/apply2 below are the shortcuts for the common calls.
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
                elif _tape_saves(op, len(values)):
                    a = a.copy()   # the caller's array, which a tape saves: see _keep_private
            values.append(a)
            tids.append(None)
    if convert or first is None:
        args, values = _convert(op, args, values, first)
    elif (scalars and op.same_dtype) or op.float_only:
        _check_scalars(op, values, first)
    if op.no_bool and (first is None or first._value.dtype is _BOOL) and any(
            type(v) is bool or getattr(v, "dtype", None) is _BOOL for v in values):
        raise _bool_error(op, values)   # True + True: TensorFlow refuses, NumPy gives True
    try:
        if attrs:
            out = op.forward(*values, **attrs)
        elif len(values) == 2:  # a direct call: cheaper than *values for small arrays
            out = op.forward(values[0], values[1])
        elif len(values) == 1:
            out = op.forward(values[0])
        else:
            out = op.forward(*values)
    except _FORWARD_ERRORS as e:
        raise _op_error(op, values, attrs, e) from None
    # A view of the caller's array has a base; forwards that return an input itself
    # (identity, cast to the same dtype) have one input, converted (copied) above.
    if arrays and (convert or type(out) is np.ndarray and out.base is not None) and first is not None:
        out = _keep_private(op, values, tids, out, saved=convert)
    return _emit(op, args, tuple(values), tuple(tids), out, attrs)


def _keep_private(op, values, tids, out, saved=True):
    """Make sure neither the result nor a tape holds a NumPy array the caller still has.

    TensorFlow copies NumPy inputs; so does tapekit, but only where it would otherwise
    keep the caller's array: the result when it is a view of one (x[0], reshape, identity),
    and an input a recording tape saves for the backward pass (X in X @ w). Without a copy,
    `X[:] = 0` after the forward pass would change the gradient. Everywhere else (no tape,
    or an input the rules do not read) the array is only read once, now.
    apply copies the saved inputs itself when they need no conversion (`saved=False`).
    """
    for k, v in enumerate(values):
        if tids[k] is not None or type(v) is not np.ndarray:
            continue   # a tensor or a Python number
        if (type(out) is np.ndarray and (out is v or out.base is not None)
                and np.may_share_memory(out, v) and not _frozen(v)):
            out = out.copy()
        if saved and _tape_saves(op, k) and not _frozen(v):
            values[k] = v.copy()
    return out


def _tape_saves(op, k):
    """True when a recording tape would keep input k of `op` for the backward pass."""
    return bool(state.tapes) and not op.save_none and (
        op.save_all or not op.variadic and op.save_mask[k])


def _frozen(v):
    """True for an array nobody can write to: read-only and owning its memory (what
    np.asarray(tensor) hands out). Such an array needs no copy."""
    return v.base is None and not v.flags.writeable


# The common calls, one input (elementwise functions, reductions, reshapes) or two without
# attributes (every arithmetic operator), skip apply's loop and its two lists when the
# inputs are tensors or weak Python numbers. Anything else (an array or list input, mixed
# dtypes where the op needs one) goes to apply.

def apply1(op, a, attrs=_NO_ATTRS):
    """apply(op, (a,), attrs) for a tensor `a`."""
    if not isinstance(a, Tensor):
        return apply(op, (a,), attrs)
    v = a._value
    if op.float_only and v.dtype.kind not in "fc":
        raise _not_float(op, v)
    try:
        out = op.forward(v, **attrs) if attrs else op.forward(v)
    except _FORWARD_ERRORS as e:
        raise _op_error(op, (v,), attrs, e) from None
    return _emit(op, (a,), (v,), (a._tid,), out, attrs)


def apply2(op, a, b):
    """apply(op, (a, b), {}) for two tensors, or a tensor and a Python number (`lr * g`),
    or a tensor and a NumPy array of its dtype (`x * c`)."""
    if isinstance(a, Tensor):
        va = a._value
        if isinstance(b, Tensor):
            vb = b._value
            if op.same_dtype and (va.dtype is not vb.dtype or va.dtype is _BOOL):
                return apply(op, (a, b), _NO_ATTRS)  # which raises the error that names both
            tids = (a._tid, b._tid)
        elif type(b) in _SCALARS:  # a weak number: stays as it is, takes the tensor's dtype
            if op.same_dtype and va.dtype.kind not in "fc":
                _check_scalars(op, (va, b), a)   # int32 + 1.5: TensorFlow raises, NumPy promotes
            vb = b
            tids = (a._tid, None)
        elif type(b) is np.ndarray and b.dtype is va.dtype and not op.variadic and b.dtype is not _BOOL:
            # The caller's array: copied where apply would copy it (see _keep_private).
            vb = b.copy() if _tape_saves(op, 1) else b
            try:
                out = op.forward(va, vb)
            except _FORWARD_ERRORS as e:
                raise _op_error(op, (va, vb), _NO_ATTRS, e) from None
            if type(out) is np.ndarray and out.base is not None and vb is b and np.may_share_memory(out, b):
                out = out.copy()
            return _emit(op, (a, b), (va, vb), (a._tid, None), out, _NO_ATTRS)
        else:
            return apply(op, (a, b), _NO_ATTRS)
    elif type(a) in _SCALARS and isinstance(b, Tensor):
        va = a
        vb = b._value
        if op.same_dtype and vb.dtype.kind not in "fc":
            _check_scalars(op, (a, vb), b)
        tids = (None, b._tid)
    else:
        return apply(op, (a, b), _NO_ATTRS)
    try:
        out = op.forward(va, vb)
    except _FORWARD_ERRORS as e:
        raise _op_error(op, (va, vb), _NO_ATTRS, e) from None
    return _emit(op, (a, b), (va, vb), tids, out, _NO_ATTRS)


def _emit(op, args, values, tids, out, attrs):
    """Wrap `out` in a new tensor and show the op to every active tape and accumulator.

    `values` (the inputs' arrays) and `tids` (their tape ids, None for a non-tensor) are
    tuples: a record keeps them as they are.
    """
    result = new_tensor(Tensor)   # wrap_array(out), written out: one call less per op
    result._value = out
    result._tid = next_tid()
    result._name = None
    tapes = state.tapes
    if tapes:
        for tape in tapes:
            tape._record(op, args, values, tids, result, attrs)
    if _hints[ACCUMULATORS] and state.accumulators:
        for acc in tuple(state.accumulators):
            acc._propagate(op, args, values, tids, result, attrs)
    return result


def _convert(op, args, values, first):
    """Inputs that are not tensors: weak Python scalars stay, the rest become arrays."""
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
        _check_scalars(op, values, first)
    return args, values


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
        # Not copied here: apply copies what it would keep (_keep_private).
        values[k] = to_array(a, dtype, copy=False, what=f"{op.name}: input {k}")


def _check_scalars(op, values, first):
    """TensorFlow's dtype rules where NumPy would promote silently.

    same_dtype ops: a Python float with an integer tensor (int32 + 1.5 would become
    float64), a Python number with a bool tensor. float_only ops: integer or bool inputs
    (exp of a bool would become float16). Both raise TypeError naming the op and the fix.
    """
    dtype = first._value.dtype if first is not None else None
    if op.float_only:
        for v in values:
            if hasattr(v, "dtype") and v.dtype.kind not in "fc":
                raise _not_float(op, v)
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


def _not_float(op, v):
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


# What a forward may raise for bad inputs: re-raised naming the op (_op_error). NumPy raises
# OverflowError for a Python int that does not fit the tensor's dtype (int32 + 2**40).
_FORWARD_ERRORS = (ValueError, TypeError, IndexError, OverflowError)


def _op_error(op, values, attrs, err):
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
