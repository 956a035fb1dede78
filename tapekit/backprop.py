"""The reverse walk: from seed cotangents on the targets back to the sources.

Records are appended in execution order, so walking them backwards is already a
valid order for the chain rule. For each record whose output has a cotangent `g`,
each input on a path to a source receives `rule(g, ans, *inputs, **attrs)`,
reduced back to that input's shape (broadcasting is undone here, once, not in
every rule) and added to what that input already has.

Two modes run the same rules:
- raw: nothing records the backward pass, so rules see plain NumPy arrays and
  every op inside them is just its NumPy function (fast);
- tensor: an outer tape or a forward accumulator is active, so rules see tensors
  carrying the original tape ids and every op they run is recorded again; that
  is how nested tapes give higher-order derivatives.
"""
import numpy as np

from .context import enter_raw, leave_raw, state
from .ops.passthrough import cast_op
from .ops.registry import Meta
from .ops.shapes import sum_to
from .tensor import Tensor, wrap_array


def reachable(records, source_tids, floating_only=False):
    """Tape ids that depend differentiably on a source (only those need cotangents).
    `floating_only`: not through integer or bool values either (no gradient flows there)."""
    reach = set(source_tids)
    for op, in_tids, _, ans, _, out in records:      # a Record's fields (record.py)
        diff = op.differentiable
        if not diff or floating_only and ans.dtype.kind not in "fc":
            continue
        for i, tid in enumerate(in_tids):
            if tid in reach and (diff is True or diff[i]):
                reach.add(out)
                break
    return reach


def backward(records, seeds, source_tids, *, lead=(), reach=None, observe=None):
    """Cotangents for `source_tids`, given seeds {tid: cotangent}.

    `lead` is the shape of leading batch axes every cotangent carries (jacobian).
    `reach`, when the caller knows it, is the set of ids that lead to a source.
    `observe(rec, g, sent, grads)`, when given, is called after the chain rule at each
    record: `g` arrived at its output, `sent` lists (input position, tid, cotangent) as
    added to the inputs, `grads` is the running {tid: cotangent}. The tape's observers
    (display, check_numerics) and the widget stepper watch the walk this way.
    """
    tensor_mode = bool(state.tapes or state.accumulators)  # is this walk itself recorded?
    if reach is None:
        reach = reachable(records, source_tids)
    keep = set(source_tids)
    grads = dict(seeds)                                   # {tape id: cotangent so far}
    unbroadcast = _sum_to if tensor_mode else sum_to.forward
    saved_raw = enter_raw(not tensor_mode)
    try:
        for rec in reversed(records):                     # newest first
            op, in_tids, inputs, ans, attrs, out = rec
            # Every later use of `out` has already added to its cotangent: it is complete.
            g = grads.get(out) if out in keep else grads.pop(out, None)
            if g is None or op.call_vjp is None or out not in reach:
                continue
            if tensor_mode:  # rules see tensors carrying their tape ids, so outer tapes record them
                inputs = [_as_tensor(v, tid) for v, tid in zip(inputs, in_tids)]
                ans = _as_tensor(ans, out)
            # The chain rule: input i receives g times d(out)/d(input i), from the op's rule.
            in_grads = op.call_vjp(g, ans, inputs, attrs, in_tids, reach)
            sent = [] if observe is not None else None   # what observers are shown
            for i, (tid, x, gi) in enumerate(zip(in_tids, inputs, in_grads)):
                if gi is None or tid not in reach:
                    continue
                if gi.shape != lead + x.shape:  # x was broadcast: sum over the axes it grew
                    gi = unbroadcast(gi, x.shape, len(lead))
                if gi.dtype is not x.dtype and gi.dtype != x.dtype and x.dtype.kind == "f":
                    gi = _cast(gi, x.dtype)
                prev = grads.get(tid)  # an input used twice gets the sum of both cotangents
                grads[tid] = gi if prev is None else prev + gi
                if sent is not None:
                    sent.append((i, tid, gi))
            if observe is not None:
                observe(rec, g, sent, grads)
    finally:
        leave_raw(not tensor_mode, saved_raw)
    return {tid: grads.get(tid) for tid in source_tids}


def _as_tensor(value, tid):
    if tid is None or isinstance(value, Meta) or isinstance(value, Tensor):
        return value
    return wrap_array(value, tid)


def _sum_to(g, shape, nlead):
    return sum_to(g, shape=tuple(shape), nlead=nlead)


def _cast(g, dtype):
    return cast_op(g, dtype=dtype)


def seed_like(t, lead_eye=False):
    """Ones shaped like `t` (the seed of gradient), or an identity batch (the seed of jacobian)."""
    v = t._value if isinstance(t, Tensor) else t
    if not lead_eye:
        ones = np.empty(v.shape, v.dtype)  # np.ones, without its Python layer
        ones.fill(1)
        return ones
    n = int(np.size(v))
    return np.eye(n, dtype=v.dtype).reshape((n,) + np.shape(v))
