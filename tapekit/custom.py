"""custom_gradient: a function whose derivative the user supplies.

The decorated function runs with recording paused; the tapes then see one op per
output, named after the function, whose VJP is the user's `grad_fn`. Variables the
function reads are found while it runs and, when trainable, get gradients from
`grad_fn(*dys, variables=...)`, as in TensorFlow. What `grad_fn` returns is user
code's answer, so it is checked against the inputs and variables (count, shape,
dtype) before it enters the backward pass: a wrong shape would otherwise be summed
or broadcast into a silently wrong gradient.

Forward mode does what TensorFlow 2.21's ForwardAccumulator does: in eager code it
differentiates the function's body, whose ops run with the accumulators active, and
ignores `grad_fn` for an output the body gives a tangent (an identity whose grad_fn
returns 3 * dy has the tangent 1, and the gradient 3). Only an output the body gives none
(a body computed under stop_gradient, or through NumPy) takes its tangent from `grad_fn`:
J t is the gradient with respect to the cotangent u, at u = ones, of sum(grad_fn(u) * t),
which is J t because grad_fn is linear in u (`_custom_op`'s jvp). Inside a tk.function
called under an accumulator, that accumulator takes every tangent from `grad_fn` (the
identity's is 3), as TF does: it differentiates a tf.function call through the call's
gradient. An accumulator entered inside the function sees the body, as in eager code.
"""
import functools
import inspect

import numpy as np

from . import nest
from .context import enter_raw, leave_raw, state
from .ops.registry import Op
from .record import Recorder
from .convert import convert_to_tensor
from .forward import ForwardAccumulator
from .ops.reductions import reduce_sum
from .tape import GradientTape
from .tensor import Tensor, Variable, wrap_array


class _VariableWatcher(Recorder):
    """Watches a custom-gradient function run: notes the variables it reads."""

    def __init__(self):
        self.variables = {}

    def _record(self, op, args, values, tids, result, attrs):
        for a in args:
            if type(a) is Variable and a._trainable:
                self.variables.setdefault(a._tid, a)


def custom_gradient(f=None):
    """Decorator: `f(*x)` returns `(y, grad_fn)`; `grad_fn(dy)` returns the gradients of the inputs.

    >>> @tk.custom_gradient
    ... def clipped_identity(x):
    ...     def grad(dy):
    ...         return tk.clip_by_value(dy, -1.0, 1.0)
    ...     return tk.identity(x), grad

    `y` may be a list or tuple of tensors; `grad_fn(*dys)` then takes one cotangent per
    output (zeros for an output the target does not use), as in TensorFlow. What grad_fn
    returns is checked: one gradient (or None) per input, and per variable, each of its
    input's shape and dtype.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        name = f.__name__
        inputs = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args]
        watcher = _VariableWatcher()
        tapes, active = state.tapes, state.accumulators
        # A ForwardAccumulator a tk.function call runs under takes the tangent from grad_fn:
        # it does not see the body (whose ops might have no forward rule). The others see it
        # (the NaN checker too): forward mode differentiates it. The tapes see it only then
        # (TF's tapes always do; its records lead nowhere, the outputs are the custom op's),
        # so that they differentiate its tangents (reverse over forward).
        outside = state.accumulators_outside_function
        sees_body = [acc for acc in active
                     if not (isinstance(acc, ForwardAccumulator) and id(acc) in outside)]
        forward = any(isinstance(acc, ForwardAccumulator) for acc in sees_body)
        state.tapes = [watcher] + tapes if forward else [watcher]
        state.accumulators = sees_body
        try:
            # Variables passed as arguments are inputs, not variables read inside f.
            returned = f(*[wrap_array(t._value, t._tid) if isinstance(t, Variable) else t
                           for t in inputs], **kwargs)
        finally:
            state.tapes, state.accumulators = tapes, active
        if not (isinstance(returned, (tuple, list)) and len(returned) == 2 and callable(returned[1])):
            raise TypeError(f"custom_gradient {name}: the function must return a pair (outputs, "
                            f"grad_fn), with grad_fn a function; got {_kind(returned)}")
        y, grad_fn = returned
        flat_y = [t if isinstance(t, Tensor) else convert_to_tensor(t) for t in nest.flatten(y)]
        if not flat_y:
            raise ValueError(f"custom_gradient {name}: the function returned no output tensors")
        variables = list(watcher.variables.values())
        takes_variables = "variables" in inspect.signature(grad_fn).parameters
        if variables and not takes_variables:
            raise TypeError(
                f"custom_gradient {name}: the function reads trainable variables "
                f"{[v.name for v in variables]}, so its grad_fn must accept a `variables` keyword "
                f"argument and return (input_grads, variable_grads)")
        rule = _GradFn(name, grad_fn, inputs, variables if takes_variables else None, flat_y,
                       _input_names(f, len(inputs)))
        outs = [wrap_array(t._value) for t in flat_y]
        all_inputs = inputs + variables
        accumulators = [acc for acc in state.accumulators if isinstance(acc, ForwardAccumulator)]
        if state.tapes or accumulators:
            values = tuple([t._value for t in all_inputs])
            tids = tuple([t._tid for t in all_inputs])
            # One op per output: each calls grad_fn with its own cotangent and zeros for the
            # other outputs. The calls' results add up to grad_fn(*dys), since a gradient
            # function is linear in the cotangents.
            for k, out in enumerate(outs):
                op = _custom_op(name if len(outs) == 1 else f"{name}[{k}]", rule, k)
                for tape in state.tapes:
                    tape._record(op, all_inputs, values, tids, out, {})
                for acc in accumulators:
                    # The body's tangent, if it has one (TF's identity on each output);
                    # else the op's, from grad_fn
                    body = None if id(acc) in outside else acc._tangents.get(flat_y[k]._tid)
                    if body is not None:
                        acc._tangents[out._tid] = body
                    else:
                        acc._propagate(op, all_inputs, values, tids, out, {})
        if nest.is_nested(y):
            return nest.pack_like(y, outs)
        return outs[0]

    return wrapper


def _input_names(f, n):
    """How an error names f's positional inputs: "input x" for a parameter named x, else
    "input #i" (for *args, or a signature inspect cannot read)."""
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [f"input {params[i].name!r}" if i < len(params) else f"input #{i}" for i in range(n)]


def _kind(value):
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__


class _GradFn:
    """The user's grad_fn, with the checks of what it returns."""

    def __init__(self, name, grad_fn, inputs, variables, outputs, input_names):
        self.name = name
        self.input_names = input_names
        self.grad_fn = grad_fn
        self.inputs = [(tuple(t.shape), t.dtype) for t in inputs]
        self.variables = variables
        self.outputs = [(tuple(t.shape), t.dtype) for t in outputs]

    def __call__(self, k, g):
        """The gradients of the inputs, then of the variables, for cotangent `g` of output k."""
        lead = tuple(g.shape[:g.ndim - len(self.outputs[k][0])])  # a jacobian's batch axes
        dys = [g if j == k else wrap_array(np.zeros(lead + shape, dtype))
               for j, (shape, dtype) in enumerate(self.outputs)]
        if self.variables is not None:
            returned = self.grad_fn(*dys, variables=self.variables)
            if not (isinstance(returned, (tuple, list)) and len(returned) == 2):
                raise TypeError(f"custom_gradient {self.name}: grad_fn takes `variables`, so it must "
                                f"return a pair (input_grads, variable_grads); got {_kind(returned)}")
            in_grads, var_grads = returned
            var_grads = list(var_grads) if isinstance(var_grads, (list, tuple)) else [var_grads]
        else:
            in_grads, var_grads = self.grad_fn(*dys), []
        in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
        self._check_count(in_grads, len(self.inputs), "input")
        if self.variables is not None:
            self._check_count(var_grads, len(self.variables), "variable")
        expected = self.inputs + [(tuple(v.shape), v.dtype) for v in self.variables or ()]
        what = self.input_names + [f"variable {v.name!r}" for v in self.variables or ()]
        return [self._checked(gr, lead, shape, dtype, w)
                for gr, (shape, dtype), w in zip(in_grads + var_grads, expected, what)]

    def _check_count(self, grads, n, kind):
        if len(grads) != n:
            raise ValueError(f"custom_gradient {self.name}: grad_fn returned {len(grads)} "
                             f"gradient(s) for {n} {kind}(s); return one per {kind} (None for "
                             f"one without a gradient)")

    def _checked(self, gr, lead, shape, dtype, what):
        if gr is None:
            return None
        if not isinstance(gr, Tensor):
            # A Python number takes the input's dtype; an array must already have it.
            gr = convert_to_tensor(gr, dtype=dtype if isinstance(gr, (int, float)) else None)
        if tuple(gr.shape) != lead + shape:
            raise ValueError(f"custom_gradient {self.name}: grad_fn returned a gradient of shape "
                             f"{tuple(gr.shape)} for {what} of shape {shape}"
                             f"{f' (with batch axes {lead})' if lead else ''}; they must match")
        if dtype.kind in "fc" and gr.dtype != dtype:
            raise TypeError(f"custom_gradient {self.name}: grad_fn returned a gradient of dtype "
                            f"{gr.dtype.name} for {what} of dtype {dtype.name}; they must match "
                            f"(cast it: tk.cast(grad, tk.{dtype.name}))")
        return gr


def _custom_op(name, rule, k):
    def vjp(g, ans, *inputs):
        # grad_fn is user code: it gets tensors, even in an unrecorded backward pass.
        raw = enter_raw(False)
        try:
            dy = g if isinstance(g, Tensor) else wrap_array(np.asarray(g))
            grads = rule(k, dy)
        finally:
            leave_raw(False, raw)
        return [_plain_if_raw(gr, raw) for gr in grads]

    def jvp(tangents, ans, *inputs):
        # Forward mode where the body gave output k no tangent (TF's rule for an op that
        # has only a gradient function): grad_fn is linear in its cotangent u, so the
        # gradient of sum(grad_fn(u) * t) with respect to u is J t, at any u (TF takes ones)
        shape, dtype = rule.outputs[k]
        if dtype.kind not in "fc":
            return None                    # an integer output has no tangent
        u = wrap_array(np.ones(shape, dtype))
        with GradientTape() as tape:
            tape.watch(u)
            grads = rule(k, u)
            pairs = [(g, t) for g, t in zip(grads, tangents) if g is not None and t is not None]
            if not pairs:
                return None
            total = reduce_sum(pairs[0][0] * pairs[0][1])
            for g, t in pairs[1:]:
                total = total + reduce_sum(g * t)
        return tape.gradient(total, u)

    return Op(f"custom_gradient({name})", None, "inputs", vjp, jvp, "",
              variadic=True, same_dtype=False, doc=f"user-defined gradient of {name}")


def _plain_if_raw(g, raw):
    if g is None:
        return None
    if raw:
        return g._value
    return g
