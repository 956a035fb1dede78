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
from ..tensor import Tensor, new_tensor, next_tid
from .inputs import FORWARD_ERRORS, check_scalars, keep_private, not_float, op_error, take_inputs

_SCALARS = (int, float, bool)
_BOOL = np.dtype(bool)

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
    """One differentiable operation: forward, per-input VJP and JVP rules, what it saves.

    Calling it runs it: `tk.sin(x)`, `x * y` (ops/operators.py calls it for Tensor's operators)
    and every op a derivative rule runs come in through `Op.run` (below), and only there;
    `Op.__call__` adds what a call may bring besides the inputs: raw mode, keywords. What a tape keeps of one call (`keep`) and how the backward walk calls the rules
    (`call_vjp`) are built once per op, here.
    """

    __slots__ = ("name", "forward", "args", "vjp", "jvp", "save_ans", "save_mask", "save_all", "save_none",
                 "variadic", "same_dtype", "differentiable", "doc", "float_only",
                 "call_vjp", "keep", "gradient_registered", "no_bool", "_named_inputs")

    def __init__(self, name, forward, args, vjp, jvp, save, variadic, same_dtype, doc,
                 float_only=False, bools=False):
        self.name = name
        self.forward = forward
        self.float_only = float_only
        self.no_bool = same_dtype and not bools   # arithmetic: TensorFlow refuses bools
        self.args = tuple(args.split()) if isinstance(args, str) else tuple(args)
        # Inputs a call may give by name, as TensorFlow's functions take them (tk.add(x=1., y=2.)).
        self._named_inputs = frozenset() if variadic else frozenset(self.args)
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
        self.keep = _keeper(self)

    def __repr__(self):
        return f"<tapekit op {self.name}>"

    def __call__(self, *args, **attrs):
        """`tk.sin(x)`, `tk.reduce_sum(x, axis=1)`, and every op a derivative rule runs."""
        # An unrecorded backward pass runs its rules on plain arrays: the NumPy forward only.
        if _hints[RAW] and state.raw:
            return self.forward(*args, **attrs)
        # Keywords: TensorFlow's name= goes (no graph here to name), and inputs given by name
        # take their places (tk.add(x=1.0, y=2.0) converts as tk.add(1.0, 2.0) does).
        if attrs:
            attrs.pop("name", None)
            if len(args) < len(self._named_inputs) or not self._named_inputs.isdisjoint(attrs):
                args = self._bind(args, attrs)
        return self.run(args, attrs)

    def run(self, args, attrs):
        """The op on `args` (a tuple: tensors, arrays, lists, Python numbers) with the attributes
        `attrs` (a dict): the one function that runs an op. Op.__call__ calls it, and so do
        Tensor's operators (ops/operators.py: `x * y` is `multiply.run((x, y), {})`). Returns a
        new Tensor, shown to every active tape and accumulator."""
        # 1. The inputs' arrays and tape ids. The common calls are read here directly: one
        #    tensor, or two (a tensor and a weak Python number), of dtypes the op takes as
        #    they are. Anything else (arrays, lists, mixed dtypes, lists of inputs) is
        #    converted by inputs.take_inputs, which applies TensorFlow's dtype rules.
        values = None
        n = len(args)
        if n == 2:
            a, b = args
            if isinstance(a, Tensor):
                va = a._value
                if isinstance(b, Tensor):
                    vb = b._value
                    dtype = va.dtype
                    if not self.same_dtype or (dtype is vb.dtype and dtype is not _BOOL):
                        values = (va, vb)
                        tids = (a._tid, b._tid)
                elif type(b) in _SCALARS:   # a weak number: stays as it is, takes the tensor's dtype
                    vb = b
                    if self.same_dtype and va.dtype.kind not in "fc":
                        check_scalars(self, (va, vb), a)   # int32 + 1.5: TensorFlow raises
                    values = (va, vb)
                    tids = (a._tid, None)
            elif type(a) in _SCALARS and isinstance(b, Tensor):
                va, vb = a, b._value
                if self.same_dtype and vb.dtype.kind not in "fc":
                    check_scalars(self, (va, vb), b)
                values = (va, vb)
                tids = (None, b._tid)
        elif n == 1:
            a = args[0]
            if isinstance(a, Tensor):
                values = (a._value,)
                tids = (a._tid,)
                if self.float_only and a._value.dtype.kind not in "fc":
                    raise not_float(self, a._value)
        callers = False   # True: a NumPy array of the caller's may be among the values
        if values is None:
            args, values, tids, callers = take_inputs(self, args)
            if n == 2:
                va, vb = values
        # 2. The forward, on arrays (called without *values when it can: cheaper for small ones).
        try:
            if attrs:
                out = self.forward(*values, **attrs)
            elif n == 2:
                out = self.forward(va, vb)
            elif n == 1:
                out = self.forward(values[0])
            else:
                out = self.forward(*values)
        except FORWARD_ERRORS as e:
            raise op_error(self, values, attrs, e) from None
        # 3. Never keep the caller's array, neither as the result nor on a tape.
        if callers:
            out, values = keep_private(self, values, tids, out)
        # 4. A new tensor, shown to every active tape (record.Recorder) and accumulator.
        result = new_tensor(Tensor)   # tensor.wrap_array(out), written out: one call less per op
        result._value = out
        result._tid = next_tid()
        result._name = None
        tapes = state.tapes
        if tapes:
            for tape in tapes:
                tape._record(self, args, values, tids, result, attrs)
        if _hints[ACCUMULATORS] and state.accumulators:
            for acc in tuple(state.accumulators):
                acc._propagate(self, args, values, tids, result, attrs)
        return result

    def _bind(self, args, attrs):
        """`args` with the inputs `attrs` names (taken out of it) in their places, as Python
        binds a function's arguments; a missing or twice-given input raises TypeError."""
        names = self.args
        for name in names[:len(args)]:
            if name in attrs:
                raise TypeError(f"{self.name}: got input {name!r} twice, by position and by name "
                                f"(its inputs are {', '.join(names)})")
        for name in names[len(args):]:
            if name not in attrs:
                others = [repr(k) for k in attrs if k not in names]
                raise TypeError(f"{self.name}: input {name!r} is missing (its inputs are "
                                f"{', '.join(names)}"
                                + (f"; {', '.join(others)} is none of them)" if others else ")"))
        return args + tuple(attrs.pop(name) for name in names[len(args):])

    def differentiable_input(self, i):
        d = self.differentiable
        return d is True or (bool(d) and d[i])

    def saves_input(self, k):
        """True when a tape that records this op keeps input k (its rules read it)."""
        return self.save_all or not self.variadic and self.save_mask[k]


def _keeper(op):
    """`op.keep(values, out)`: (inputs, ans), what a tape keeps of one call, built once per op.
    The input arrays and the output the rules read are kept as they are, the others as their
    Meta (shape and dtype). Specialised by arity, as `_rule_caller` is, and reading the Meta
    cache inline: in GradientTape._record a comprehension, or a call of `meta` per array, cost
    more than the rest of the method."""
    mask, with_ans = op.save_mask, op.save_ans

    def keep_any(values, out):   # any arity; also whenever the cache has no Meta yet
        inputs = values if op.save_all else tuple([meta(v) for v in values]) if op.variadic \
            else tuple([v if k else meta(v) for v, k in zip(values, mask)])
        return inputs, out if with_ans else meta(out)

    if op.variadic or len(mask) not in (1, 2):
        return keep_any
    metas = _METAS
    if op.save_all:
        def keep(values, out):
            try:
                return values, out if with_ans else metas[out.dtype][out.shape]
            except (KeyError, AttributeError):   # a shape or dtype not seen yet, or not an array
                return keep_any(values, out)
        return keep
    if len(mask) == 1:
        def keep(values, out):
            x = values[0]
            try:
                return (metas[x.dtype][x.shape],), out if with_ans else metas[out.dtype][out.shape]
            except (KeyError, AttributeError):
                return keep_any(values, out)
        return keep
    kx, ky = mask

    def keep(values, out):   # a weak Python number (x + 1.0) is kept as it is
        x, y = values
        try:
            return (x if kx or type(x) in _SCALARS else metas[x.dtype][x.shape],
                    y if ky or type(y) in _SCALARS else metas[y.dtype][y.shape]), \
                out if with_ans else metas[out.dtype][out.shape]
        except (KeyError, AttributeError):
            return keep_any(values, out)
    return keep


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
