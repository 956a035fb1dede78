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
import numpy as np

from ..context import ACCUMULATORS, RAW, state
from ..context import hints as _hints
from ..tensor import Tensor, Variable, _new_tensor, _next_tid, _to_array, _wrap

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
                 "variadic", "same_dtype", "differentiable", "writes_out", "doc")

    def __init__(self, name, forward, args, vjp, jvp, save, variadic, same_dtype, doc, writes_out=False):
        self.name = name
        self.forward = forward
        self.writes_out = writes_out
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


def defop(name, forward, *, args="x", save="", vjp=None, jvp=None, variadic=False,
          same_dtype=False, ufunc=None, doc=None, writes_out=False):
    """Register an op; `vjp=None` marks it non-differentiable (comparisons, argmax, ...).

    `writes_out=True`: forward(*inputs, out=array, **attrs) can write its result into an
    array of the result's shape and dtype (NumPy ufuncs can); a tk.function replay then
    reuses the buffer of an input that nothing reads afterwards (function.py).
    """
    if name in OPS:
        raise ValueError(f"op {name!r} is defined twice")
    op = Op(name, forward, args, vjp, jvp, save, variadic, same_dtype, doc, writes_out)
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
            if type(a) not in _SCALARS and not (type(a) is np.ndarray and first is not None
                                                and a.dtype is first._value.dtype):
                convert = True
            values.append(a)
            tids.append(None)
    if convert or first is None:
        args, values = _convert(op, args, values, first)
    try:
        if attrs:
            out = op.forward(*values, **attrs)
        elif len(values) == 2:  # a direct call: cheaper than *values for small arrays
            out = op.forward(values[0], values[1])
        elif len(values) == 1:
            out = op.forward(values[0])
        else:
            out = op.forward(*values)
    except (ValueError, TypeError, IndexError) as e:
        raise _op_error(op, values, attrs, e) from None
    return _emit(op, args, tuple(values), tuple(tids), out, attrs)


# The common calls, one input (elementwise functions, reductions, reshapes) or two without
# attributes (every arithmetic operator), skip apply's loop and its two lists when the
# inputs are tensors or weak Python numbers. Anything else (an array or list input, mixed
# dtypes where the op needs one) goes to apply.

def apply1(op, a, attrs=_NO_ATTRS):
    """apply(op, (a,), attrs) for a tensor `a`."""
    if not isinstance(a, Tensor):
        return apply(op, (a,), attrs)
    v = a._value
    try:
        out = op.forward(v, **attrs) if attrs else op.forward(v)
    except (ValueError, TypeError, IndexError) as e:
        raise _op_error(op, (v,), attrs, e) from None
    return _emit(op, (a,), (v,), (a._tid,), out, attrs)


def apply2(op, a, b):
    """apply(op, (a, b), {}) for two tensors, or a tensor and a Python number (`lr * g`)."""
    if isinstance(a, Tensor):
        va = a._value
        if isinstance(b, Tensor):
            vb = b._value
            if op.same_dtype and va.dtype is not vb.dtype:
                return apply(op, (a, b), _NO_ATTRS)  # which raises the error that names both
            tids = (a._tid, b._tid)
        elif type(b) in _SCALARS:  # a weak number: stays as it is, takes the tensor's dtype
            vb = b
            tids = (a._tid, None)
        else:
            return apply(op, (a, b), _NO_ATTRS)
    elif type(a) in _SCALARS and isinstance(b, Tensor):
        va = a
        vb = b._value
        tids = (None, b._tid)
    else:
        return apply(op, (a, b), _NO_ATTRS)
    try:
        out = op.forward(va, vb)
    except (ValueError, TypeError, IndexError) as e:
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
        args = tuple(_wrap(_to_array(a)) for a in args)
        return args, [a._value for a in args]
    dtype = first._value.dtype if op.same_dtype else None
    for k, a in enumerate(args):
        if isinstance(a, Tensor) or type(a) in _SCALARS:
            continue  # weak Python scalar: takes the tensor's dtype (NEP 50)
        if type(a) is np.ndarray and a.dtype is dtype:
            continue  # already what _to_array would return
        if a is None:
            raise TypeError(f"{op.name}: an input is None; did a gradient come back None?")
        values[k] = _to_array(a, dtype)
    return args, values


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


def _op_error(op, values, attrs, err):
    shapes = ", ".join(_describe(v) for v in values)
    extra = "".join(f", {k}={v!r}" for k, v in attrs.items() if not isinstance(v, np.ndarray))
    cls = type(err) if type(err) in (ValueError, TypeError, IndexError) else ValueError
    return cls(f"{op.name}: cannot apply to inputs {shapes}{extra}: {err}")


def _describe(v):
    if isinstance(v, (np.ndarray, np.generic)):
        return f"shape {v.shape} {v.dtype.name}"
    return repr(v)
