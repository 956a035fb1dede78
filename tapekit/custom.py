"""custom_gradient: a function whose derivative the user supplies.

The decorated function runs with recording paused; the tapes then see one op,
named after the function, whose VJP is the user's `grad_fn`. Variables the
function reads are found while it runs and, when trainable, get gradients from
`grad_fn(*dys, variables=...)`, as in TensorFlow.
"""
import functools
import inspect

import numpy as np

from . import nest
from .context import enter_raw, leave_raw, state
from .ops.registry import Op
from .tensor import Tensor, Variable, _wrap, convert_to_tensor


class _VariableWatcher:
    """Stands in for a tape while a custom-gradient function runs: notes the variables it reads."""

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
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        inputs = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args]
        for acc in state.accumulators:
            if any(getattr(acc, "_tangents", {}).get(t._tid) is not None for t in inputs):
                raise NotImplementedError(
                    f"custom_gradient {f.__name__}: forward mode (ForwardAccumulator) is not "
                    f"supported: custom_gradient defines only the reverse-mode rule. Compute "
                    f"this function's tangent with tape.gradient/jacobian instead")
        watcher = _VariableWatcher()
        tapes, accs = state.tapes, state.accumulators
        state.tapes, state.accumulators = [watcher], []
        try:
            # Variables passed as arguments are inputs, not variables read inside f.
            y, grad_fn = f(*[_wrap(t._value, t._tid) if isinstance(t, Variable) else t
                             for t in inputs], **kwargs)
        finally:
            state.tapes, state.accumulators = tapes, accs
        if not isinstance(y, Tensor):
            if nest.is_nested(y):
                raise NotImplementedError(
                    f"custom_gradient {f.__name__}: only a single tensor output is supported; "
                    f"return one tensor (stack several with tk.stack)")
            y = convert_to_tensor(y)
        variables = list(watcher.variables.values())
        takes_variables = "variables" in inspect.signature(grad_fn).parameters
        if variables and not takes_variables:
            raise TypeError(
                f"custom_gradient {f.__name__}: the function reads trainable variables "
                f"{[v.name for v in variables]}, so its grad_fn must accept a `variables` keyword "
                f"argument and return (input_grads, variable_grads)")
        op = _custom_op(f.__name__, grad_fn, len(inputs), variables if takes_variables else None)
        out = _wrap(y._value)
        all_inputs = inputs + variables
        if state.tapes:
            values = tuple([t._value for t in all_inputs])
            tids = tuple([t._tid for t in all_inputs])
            for tape in state.tapes:
                tape._record(op, all_inputs, values, tids, out, {})
        return out

    return wrapper


def _custom_op(name, grad_fn, n_inputs, variables):
    def vjp(g, ans, *inputs):
        # grad_fn is user code: it gets tensors, even in an unrecorded backward pass.
        raw = enter_raw(False)
        try:
            dy = g if isinstance(g, Tensor) else _wrap(np.asarray(g))
            if variables is not None:
                in_grads, var_grads = grad_fn(dy, variables=variables)
            else:
                in_grads, var_grads = grad_fn(dy), []
        finally:
            leave_raw(False, raw)
        in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
        if len(in_grads) != n_inputs:
            raise ValueError(f"custom_gradient {name}: grad_fn returned {len(in_grads)} gradient(s) "
                             f"for {n_inputs} input(s)")
        grads = in_grads + list(var_grads)
        return [_plain_if_raw(gr, raw) for gr in grads]

    return Op(f"custom_gradient({name})", None, "inputs", vjp, None, "",
              variadic=True, same_dtype=False, doc=f"user-defined gradient of {name}")


def _plain_if_raw(g, raw):
    if g is None:
        return None
    if raw:
        return g._value if isinstance(g, Tensor) else np.asarray(g)
    return g if isinstance(g, Tensor) else convert_to_tensor(g)
