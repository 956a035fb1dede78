"""ForwardAccumulator: forward-mode differentiation (Jacobian-vector products).

While active, every op whose input has a tangent computes its output's tangent
at once, with the op's JVP rules. The accumulator pauses itself and the
accumulators entered after it while it runs those rules, so they are not
tangent-propagated again; tapes and outer accumulators still see them, which
gives forward-over-reverse, reverse-over-forward and forward-over-forward.
"""
import threading

import numpy as np

from . import nest
from .context import push_accumulator, remove_accumulator, state
from .ops.passthrough import cast
from .ops.shapes import broadcast_to_op as broadcast_to
from .backprop import UnconnectedGradients, unconnected
from .convert import convert_to_tensor
from .tensor import Tensor, wrap_array


# The ops whose JVP rules are running now in this thread, innermost last: a rule's own ops
# run inside it. Read by tk.debugging to say "while computing the tangent of op X".
_rules_running = threading.local()


def jvp_rule_running():
    """The op whose forward-mode (JVP) rule is running in this thread now, or None.

    >>> from tapekit.forward import jvp_rule_running
    >>> jvp_rule_running() is None                 # no ForwardAccumulator at work
    True
    """
    stack = getattr(_rules_running, "ops", None)
    return stack[-1] if stack else None


class ForwardAccumulator:
    """Compute J @ tangents for everything computed from `primals` (`tf.autodiff.ForwardAccumulator`).

    >>> x = tk.constant(3.0)
    >>> with tk.ForwardAccumulator(x, tk.constant(1.0)) as acc:
    ...     y = x * x
    >>> acc.jvp(y)
    tk.Tensor(6.0, shape=(), dtype=float32)
    """

    def __init__(self, primals, tangents):
        ps, ts = nest.flatten(primals), nest.flatten(tangents)
        if len(ps) != len(ts):
            raise ValueError(f"ForwardAccumulator: {len(ps)} primals but {len(ts)} tangents")
        self._tangents = {}
        for k, (p, t) in enumerate(zip(ps, ts)):
            if not isinstance(p, Tensor):
                raise TypeError(f"ForwardAccumulator: primal #{k} must be a tk.Tensor or tk.Variable, "
                                f"got {type(p).__name__}")
            given = getattr(t, "dtype", None)   # a tensor's or an array's; none for a Python value
            if given is not None and given != p.dtype:
                raise TypeError(f"ForwardAccumulator: tangent #{k} has dtype {given}, its primal "
                                f"has dtype {p.dtype.name}; they must match (TensorFlow refuses such a tensor "
                                f"too). Give the tangent the primal's dtype: tk.cast(tangent, "
                                f"tk.{p.dtype.name})")
            t = convert_to_tensor(t, dtype=p.dtype) if not isinstance(t, Tensor) else t
            if t.shape != p.shape:
                raise ValueError(f"ForwardAccumulator: tangent #{k} has shape {t.shape}, its primal "
                                 f"has shape {p.shape}; they must match")
            self._tangents[p._tid] = t

    def __enter__(self):
        push_accumulator(self)
        return self

    def __exit__(self, *exc):
        remove_accumulator(self)
        return False

    def _propagate(self, op, args, values, tids, result, attrs):
        tangents = [self._tangents.get(tid) if tid is not None else None for tid in tids]
        if all(t is None for t in tangents):
            return
        if op.jvp is None:
            if any(t is not None and op.differentiable_input(i) for i, t in enumerate(tangents)):
                raise NotImplementedError(
                    f"ForwardAccumulator: op {op.name!r} has no forward-mode (JVP) rule, so the "
                    f"tangent cannot pass through it; use tape.gradient/jacobian instead")
            return  # comparisons and other non-differentiable ops: no tangent
        args = [a if isinstance(a, Tensor) else v for a, v in zip(args, values)]
        # Our rules run with only the accumulators entered before us active: an outer one
        # differentiates them (nested accumulators: outer.jvp(inner.jvp(y)) is a second
        # derivative), we do not, nor do inner ones (inner.jvp(outer.jvp(y)) is None), as in
        # TensorFlow.
        active = state.accumulators
        k = active.index(self)
        state.accumulators = active[:k] + [a for a in active[k + 1:]
                                           if not isinstance(a, ForwardAccumulator)]
        running = _rules_running.__dict__.setdefault("ops", [])
        running.append(op)
        try:
            if op.variadic:
                total = op.jvp(tangents, result, *args, **attrs)
            else:
                total = None
                for i, t in enumerate(tangents):
                    if t is None or op.jvp[i] is None:
                        continue
                    c = op.jvp[i](t, result, *args, **attrs)
                    if c is None:
                        continue
                    total = c if total is None else total + c
            if total is None:
                return
            if not isinstance(total, Tensor):
                total = wrap_array(np.asarray(total))
            if total.shape != result.shape:
                total = broadcast_to(total, shape=result.shape)
            if total.dtype != result.dtype and result.dtype.kind == "f":
                total = cast(total, result.dtype)
            self._tangents[result._tid] = total
        finally:
            running.pop()
            state.accumulators = active

    def jvp(self, primals, unconnected_gradients=None):
        """The tangent of each primal (None, or zeros with UnconnectedGradients.ZERO, if unconnected)."""
        mode = unconnected(unconnected_gradients or UnconnectedGradients.NONE)
        out = []
        for p in nest.flatten(primals):
            if not isinstance(p, Tensor):
                raise TypeError(f"ForwardAccumulator.jvp: expected tensors, got {type(p).__name__}")
            t = self._tangents.get(p._tid)
            if t is None and mode is UnconnectedGradients.ZERO:
                t = wrap_array(np.zeros(p.shape, p.dtype))
            out.append(t)
        return nest.pack_like(primals, out) if nest.is_nested(primals) else out[0]
