"""The op table: one record per op, holding its forward function and derivative rules.

Vocabulary (as in derivatives.yaml): `g` is the cotangent arriving from the
output, `t` a tangent arriving at an input, `ans` the forward result, inputs use
the op's argument names, attributes (`axis`, `keepdims`, ...) are keywords.

    sin = defop("sin", np.sin, save="x",
                vjp=[lambda g, ans, x: g * cos(x)],      # one rule per input
                jvp=[lambda t, ans, x: t * cos(x)])

Rules are written with tapekit ops, so a backward pass that an outer tape
records is differentiable again (higher-order derivatives for free). When no
tape records, the backward pass runs the same rules on plain NumPy arrays
(`state.raw`), and every op below is then just its NumPy forward.

Batch convention: a cotangent may carry extra *leading* axes (a batch of
cotangents, used by `jacobian`). Rules therefore name axes from the right
(negative axes) and compute leading axes as `g.shape[:g.ndim - ans.ndim]`.

`save` names what the rules read ("x y", "ans"); everything else is kept only
as its shape and dtype (`Meta`), so a tape holds no more memory than its
rules need (tanh keeps its output, add keeps nothing).
"""
import operator

import numpy as np

from ..context import ACCUMULATORS, RAW, state
from ..context import hints as _hints
from ..tensor import Tensor, _new_tensor, _next_tid, _to_array, _wrap

OPS = {}           # name -> Op: the whole table, for tests, display and NumPy dispatch
UFUNCS = {}        # NumPy ufunc -> Op, for Tensor.__array_ufunc__
FUNCTIONS = {}     # NumPy function -> tapekit function, for Tensor.__array_function__


class Meta:
    """What a record keeps of an input its rules do not read: shape and dtype only."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"Meta(shape={self.shape}, dtype={self.dtype.name})"


_METAS = {}   # dtype -> {shape: Meta}: two look-ups without building a key tuple


def meta(value):
    """Meta for an array (shared between records of the same shape and dtype)."""
    try:
        return _METAS[value.dtype][value.shape]
    except (KeyError, AttributeError):
        pass
    if isinstance(value, (np.ndarray, np.generic)):
        shapes = _METAS.setdefault(value.dtype, {})
        if len(shapes) > 4096:
            shapes.clear()
        m = shapes[value.shape] = Meta(value.shape, value.dtype)
        return m
    return value  # Python scalars are kept as they are


class Op:
    """One differentiable operation: forward, per-input VJP and JVP rules, what it saves."""

    __slots__ = ("name", "forward", "args", "vjp", "jvp", "save_ans", "save_mask", "save_all", "save_none",
                 "variadic", "same_dtype", "differentiable", "doc", "float_only",
                 "call_vjp")

    def __init__(self, name, forward, args, vjp, jvp, save, variadic, same_dtype, doc,
                 float_only=False):
        self.name = name
        self.forward = forward
        self.float_only = float_only
        self.args = tuple(args.split()) if isinstance(args, str) else tuple(args)
        self.variadic = variadic
        self.vjp = vjp if variadic or vjp is None else tuple(vjp)
        self.jvp = jvp if variadic or jvp is None else tuple(jvp)
        saved = set(save.split()) if isinstance(save, str) else set(save)
        unknown = saved - set(self.args) - {"ans"}
        if unknown:
            raise ValueError(f"defop {name!r}: save names {sorted(unknown)} are not arguments {self.args}")
        self.save_ans = "ans" in saved
        self.save_mask = tuple(a in saved for a in self.args)
        self.save_all = variadic and self.args[0] in saved or (bool(self.args) and all(self.save_mask))
        self.save_none = not any(self.save_mask)
        self.same_dtype = same_dtype
        if vjp is None:
            self.differentiable = ()
        elif variadic:
            self.differentiable = True
        else:
            self.differentiable = tuple(r is not None for r in self.vjp)
        self.doc = doc
        self.call_vjp = _rule_caller(self.vjp, variadic)

    def __repr__(self):
        return f"<tapekit op {self.name}>"

    def __call__(self, *args, **attrs):
        if _hints[RAW] and state.raw:  # an unrecorded backward pass: plain NumPy
            return self.forward(*args, **attrs)
        if attrs and "name" in attrs:  # TensorFlow's name= of every op: no graph here to name
            del attrs["name"]
        n = len(args)
        if n == 1:
            return apply1(self, args[0], attrs)
        if n == 2 and not attrs:
            return apply2(self, args[0], args[1])
        return apply(self, args, attrs)

    def differentiable_input(self, i):
        d = self.differentiable
        return d is True or (bool(d) and d[i])


def _rule_caller(rules, variadic):
    """How backprop.backward calls an op's VJP rules; built once per op.

    The caller takes (g, ans, inputs, attrs, in_tids, reach) and returns one cotangent
    (or None) per input, calling only the rules of inputs in `reach` (on a path to a
    source). Specialised by arity: most records have one or two inputs and no
    attributes, and calling those rules without *args/**attrs saves more time than the
    small arrays' arithmetic takes (see docs/PERFORMANCE.md).
    """
    if rules is None:
        return None
    if variadic:  # one rule for all inputs, returning every cotangent
        def call(g, ans, inputs, attrs, in_tids, reach):
            return rules(g, ans, *inputs, **attrs)
    elif len(rules) == 1 and rules[0] is not None:
        rule = rules[0]

        def call(g, ans, inputs, attrs, in_tids, reach):
            # A recorded one-input op's input is always on the path (that is how its
            # output got into `reach`).
            return (rule(g, ans, inputs[0], **attrs) if attrs else rule(g, ans, inputs[0]),)
    elif len(rules) == 2:
        rx, ry = rules

        def call(g, ans, inputs, attrs, in_tids, reach):
            x, y = inputs
            if attrs:
                return (rx(g, ans, x, y, **attrs) if rx is not None and in_tids[0] in reach else None,
                        ry(g, ans, x, y, **attrs) if ry is not None and in_tids[1] in reach else None)
            return (rx(g, ans, x, y) if rx is not None and in_tids[0] in reach else None,
                    ry(g, ans, x, y) if ry is not None and in_tids[1] in reach else None)
    else:
        def call(g, ans, inputs, attrs, in_tids, reach):
            return [rule(g, ans, *inputs, **attrs) if rule is not None and tid in reach else None
                    for tid, rule in zip(in_tids, rules)]
    return call


def defop(name, forward, *, args="x", save="", vjp=None, jvp=None, variadic=False,
          same_dtype=False, ufunc=None, doc=None, float_only=False):
    """Register an op; `vjp=None` marks it non-differentiable (comparisons, argmax, ...).

    `same_dtype=True`: the inputs must share one dtype (TensorFlow's arithmetic).
    `float_only=True`: the inputs must be floating (exp, log, sin, ...): TensorFlow refuses
    integers and bools there, where NumPy would promote them (a bool's exp is float16).
    """
    if name in OPS:
        raise ValueError(f"op {name!r} is defined twice")
    if float_only and (variadic or len(args.split() if isinstance(args, str) else args) != 1):
        raise ValueError(f"defop {name!r}: float_only is checked for one-input ops only")
    op = Op(name, forward, args, vjp, jvp, save, variadic, same_dtype, doc, float_only)
    OPS[name] = op
    if ufunc is not None:
        UFUNCS[ufunc] = op
    return op


def numpy_function(*np_funcs):
    """Decorator: NumPy calls `np_func(tensor, ...)` are answered by this tapekit function."""
    def register(fn):
        for f in np_funcs:
            FUNCTIONS[f] = fn
        return fn
    return register


# --- dispatch: the one path every op call takes ------------------------------------

_SCALARS = (int, float, bool)
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
            if op.same_dtype and va.dtype is not vb.dtype:
                return apply(op, (a, b), _NO_ATTRS)  # which raises the error that names both
            tids = (a._tid, b._tid)
        elif type(b) in _SCALARS:  # a weak number: stays as it is, takes the tensor's dtype
            if op.same_dtype and va.dtype.kind not in "fc":
                _check_scalars(op, (va, b), a)   # int32 + 1.5: TensorFlow raises, NumPy promotes
            vb = b
            tids = (a._tid, None)
        elif type(b) is np.ndarray and b.dtype is va.dtype and not op.variadic:
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
    result = _new_tensor(Tensor)   # _wrap(out), written out: one call less per op
    result._value = out
    result._tid = _next_tid()
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
        args = tuple(_wrap(_to_array(a, what=op.name)) for a in args)   # copies of arrays
        values = [a._value for a in args]
        first = args[0] if args else None
        if op.same_dtype and len(args) > 1:
            _check_same_dtype(op, args)   # tk.add([1], [2.5]): int32 and float32, as TensorFlow
    else:
        dtype = first._value.dtype if op.same_dtype else None
        for k, a in enumerate(args):
            if isinstance(a, Tensor) or type(a) in _SCALARS:
                continue  # weak Python scalar: takes the tensor's dtype (NEP 50)
            if type(a) is np.ndarray and a.dtype is dtype:
                continue  # already what _to_array would return
            if a is None:
                raise TypeError(f"{op.name}: an input is None; did a gradient come back None?")
            # Not copied here: apply copies what it would keep (_keep_private).
            values[k] = _to_array(a, dtype, copy=False, what=f"{op.name}: input {k}")
    if op.same_dtype or op.float_only:
        _check_scalars(op, values, first)
    return args, values


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


_SYMBOL = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "pow": "**"}


def _not_float(op, v):
    return TypeError(f"{op.name}: needs a floating input (float16/32/64), got dtype {v.dtype.name}; "
                     f"TensorFlow refuses it too, NumPy would silently give "
                     f"{_numpy_result(op, v)}. Cast first: tk.{op.name}(tk.cast(x, tk.float32))")


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
                raise TypeError(
                    f"{op.name}: inputs have different dtypes {dtype.name} and {a.dtype.name}; "
                    f"tapekit does not convert silently (as TensorFlow). Cast one of them, "
                    f"e.g. tk.cast(x, tk.{dtype.name})")


# What a forward may raise for bad inputs: re-raised naming the op (_op_error). NumPy raises
# OverflowError for a Python int that does not fit the tensor's dtype (int32 + 2**40).
_FORWARD_ERRORS = (ValueError, TypeError, IndexError, OverflowError)


def _op_error(op, values, attrs, err):
    shapes = ", ".join(_describe(v) for v in values)
    extra = "".join(f", {k}={v!r}" for k, v in attrs.items() if not isinstance(v, np.ndarray))
    cls = type(err) if type(err) in (ValueError, TypeError, IndexError) else ValueError
    return cls(f"{op.name}: cannot apply to inputs {shapes}{extra}: {err}")


def _describe(v):
    if isinstance(v, (np.ndarray, np.generic)):
        return f"shape {v.shape} {v.dtype.name}"
    return repr(v)


# --- checked arguments: integers where TensorFlow wants integers ------------------------

def as_int(value, what):
    """`value` as a Python int; a float (1.7), a bool or a non-integer tensor raises TypeError.

    int(1.7) would give 1, and reduce_sum(x, axis=1.7) would then sum axis 1 silently;
    TensorFlow refuses a float where it wants an integer, and so does tapekit. `what` names
    the operation and the argument ("reduce_sum: axis").
    """
    if isinstance(value, Tensor):
        value = value._value
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
        raise ValueError(f"{what} = {axis} is out of range for a tensor of rank {ndim} "
                         f"(valid: {-ndim} to {max(ndim, 1) - 1})")
    return axis
