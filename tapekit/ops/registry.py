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
from collections import Counter

import numpy as np

from ..context import RAW, state
from ..context import hints as _hints
from ..errors import InvalidArgumentError
from ..tensor import Tensor, guard_read
from .dispatch import MAX_LISTED, apply, apply1, apply2, odd_inputs

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


# `defop(..., vjp=NO_GRADIENT)`: TensorFlow has no gradient registered for this op (image
# adjustments such as AdjustContrastv2). Unlike `vjp=None` (not differentiable: comparisons,
# argmax; the gradient is None), a gradient that must pass through it raises LookupError, as
# tf.GradientTape does. An integer output carries no gradient anyway: there the rule gives None.
NO_GRADIENT = "no gradient registered"


def _no_gradient_rule(name):
    def rule(g, ans, *inputs, **attrs):
        if ans.dtype.kind not in "fc":
            return None
        raise LookupError(
            f"No gradient defined for operation {name!r}: TensorFlow registers no gradient for "
            f"it, and neither does tapekit. If you want to treat its result as a constant, wrap "
            f"it in tk.stop_gradient(...); to differentiate through it, write the computation "
            f"with differentiable ops (or give it one with tk.custom_gradient).")
    return rule


class Op:
    """One differentiable operation: forward, per-input VJP and JVP rules, what it saves."""

    __slots__ = ("name", "forward", "args", "vjp", "jvp", "save_ans", "save_mask", "save_all", "save_none",
                 "variadic", "same_dtype", "differentiable", "doc", "float_only",
                 "call_vjp", "gradient_registered", "no_bool")

    def __init__(self, name, forward, args, vjp, jvp, save, variadic, same_dtype, doc,
                 float_only=False, bools=False):
        self.name = name
        self.forward = forward
        self.float_only = float_only
        self.no_bool = same_dtype and not bools   # arithmetic: TensorFlow refuses bools
        self.args = tuple(args.split()) if isinstance(args, str) else tuple(args)
        self.gradient_registered = vjp is not NO_GRADIENT
        if not self.gradient_registered:   # every input reaches the output; its rules raise
            vjp = jvp = (_no_gradient_rule(name),) * len(self.args)
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
          same_dtype=False, ufunc=None, doc=None, float_only=False, bools=False):
    """Register an op; `vjp=None` marks it non-differentiable (comparisons, argmax, ...),
    `vjp=NO_GRADIENT` an op without a registered gradient (a gradient through it raises).

    `same_dtype=True`: the inputs must share one dtype (TensorFlow's arithmetic), and bools
    are refused (NumPy's True + True is True) unless `bools=True` (concat, stack, pad).
    `float_only=True`: the inputs must be floating (exp, log, sin, ...): TensorFlow refuses
    integers and bools there, where NumPy would promote them (a bool's exp is float16).
    """
    if name in OPS:
        raise ValueError(f"op {name!r} is defined twice")
    if float_only and (variadic or len(args.split() if isinstance(args, str) else args) != 1):
        raise ValueError(f"defop {name!r}: float_only is checked for one-input ops only")
    op = Op(name, forward, args, vjp, jvp, save, variadic, same_dtype, doc, float_only, bools)
    OPS[name] = op
    if ufunc is not None:
        UFUNCS[ufunc] = op
    return op


def unary(name, forward, deriv, save, ufunc=None, doc=None, float_only=True):
    """An elementwise op whose VJP and JVP both multiply by `deriv(ans, x)`."""
    return defop(name, forward, args="x", save=save, ufunc=ufunc, doc=doc, float_only=float_only,
                 vjp=[lambda g, ans, x: g * deriv(ans, x)],
                 jvp=[lambda t, ans, x: t * deriv(ans, x)])


def binary(name, forward, dx, dy, save, ufunc=None, doc=None):
    """An elementwise op of two inputs with partials dx(ans, x, y) and dy(ans, x, y)."""
    return defop(name, forward, args="x y", save=save, ufunc=ufunc, same_dtype=True, doc=doc,
                 vjp=[lambda g, ans, x, y: g * dx(ans, x, y), lambda g, ans, x, y: g * dy(ans, x, y)],
                 jvp=[lambda t, ans, x, y: t * dx(ans, x, y), lambda t, ans, x, y: t * dy(ans, x, y)])


def numpy_function(*np_funcs):
    """Decorator: NumPy calls `np_func(tensor, ...)` are answered by this tapekit function."""
    def register(fn):
        for f in np_funcs:
            FUNCTIONS[f] = fn
        return fn
    return register


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
