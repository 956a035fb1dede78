"""Reverse mode: what `tape.gradient`, `tape.jacobian` and `tape.batch_jacobian` do, from their
front door to the walk.

GradientTape (tape.py) records; its three methods call the front doors here, which check
what they are given, seed the walk, and give the results back in the shape of `sources`:

    gradient(tape, target, sources, ...)    targets and sources checked (tensors, floating),
    jacobian(tape, target, sources, ...)    output_gradients against their targets; seeds:
    batch_jacobian(tape, target, source)    ones, or a batch of one-hot cotangents
        -> tape._walk(seeds, ...)           the tape's part: its records, what reaches a source
        -> backward(records, seeds, ...)    the walk below

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
import enum

import numpy as np

from . import nest
from .callsite import warn_at_user
from .context import enter_raw, leave_raw, recording
from .namespaces import missing, public_dir
from .ops.passthrough import cast_op
from .ops.registry import Meta
from .ops.shapes import reshape, sum_to, transpose
from .tensor import Tensor, Variable, wrap_array

__all__ = ["GradientDtypeWarning", "UnconnectedGradients", "backward", "batch_jacobian",
           "gradient", "jacobian", "reachable"]


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on.

    >>> x, y = tk.Variable(1.0), tk.Variable(2.0)
    >>> with tk.GradientTape(persistent=True) as tape:
    ...     z = x * 3.0                    # y is not used
    >>> print(tape.gradient(z, y))
    None
    >>> tape.gradient(z, y, unconnected_gradients=tk.UnconnectedGradients.ZERO)
    tk.Tensor(0.0, shape=(), dtype=float32)
    """

    NONE = "none"
    ZERO = "zero"


class GradientDtypeWarning(UserWarning):
    """An integer or bool target or source: its gradient is None.

    >>> import warnings
    >>> x = tk.constant(3)                 # an int32 tensor
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with tk.GradientTape() as tape:
    ...         tape.watch(x)
    ...         y = x * x
    ...     print(tape.gradient(y, x))
    None
    >>> caught[0].category.__name__
    'GradientDtypeWarning'
    """


# --- the front doors: GradientTape.gradient, .jacobian, .batch_jacobian ------------------------

def gradient(tape, target, sources, output_gradients=None,
             unconnected_gradients=UnconnectedGradients.NONE):
    """GradientTape.gradient (its docstring says what it returns)."""
    if_unconnected = unconnected(unconnected_gradients)
    targets = [target] if isinstance(target, Tensor) else nest.flatten(target)
    if isinstance(sources, Tensor):   # the common call, gradient(loss, x): nothing to flatten
        flat_sources, nested = [sources], False
    else:
        flat_sources, nested = nest.flatten(sources), nest.is_nested(sources)
    check_tensors("target", targets)
    check_tensors("source", flat_sources)
    seeds = {}
    ogs = None if output_gradients is None else nest.flatten(output_gradients)
    if ogs is not None and len(ogs) != len(targets):
        raise ValueError(f"GradientTape.gradient: {len(targets)} target(s) but {len(ogs)} "
                         f"output_gradients; a list holds one per target: for one target give "
                         f"a tensor, tk.constant([...])")
    for k, t in enumerate(targets):
        if not is_floating(t, "target", k):   # it adds nothing; the others count
            continue
        seed = seed_like(t) if ogs is None or ogs[k] is None else _output_gradient(t, ogs[k])
        seeds[t._tid] = seed if t._tid not in seeds else seeds[t._tid] + seed
    src_ok = [is_floating(s, "source", k) for k, s in enumerate(flat_sources)]
    grads = tape._walk(seeds, flat_sources, src_ok)
    results = []
    for s, ok in zip(flat_sources, src_ok):
        g = grads.get(s._tid) if ok else None
        if g is None and ok and if_unconnected is UnconnectedGradients.ZERO:
            g = np.zeros(s.shape, s.dtype)
        results.append(_as_result(g))
    return nest.pack_like(sources, results) if nested else results[0]


def jacobian(tape, target, sources, unconnected_gradients=UnconnectedGradients.NONE):
    """GradientTape.jacobian: one backward pass pushes a batch of one-hot cotangents (one per
    target element) through every rule at once, instead of a loop over rows."""
    if_unconnected = unconnected(unconnected_gradients)
    if not isinstance(target, Tensor):
        raise TypeError(f"GradientTape.jacobian: target must be one tensor, got {type(target).__name__}")
    flat_sources = nest.flatten(sources)
    check_tensors("source", flat_sources)
    ok_t = is_floating(target, "target", 0)
    src_ok = [is_floating(s, "source", k) for k, s in enumerate(flat_sources)]
    n = target.size
    # A target the tape does not track has no Jacobian, not even w.r.t. itself (TensorFlow
    # gives None there, though gradient(x, x) gives ones). A trainable Variable counts as
    # tracked when the tape watches what is read: TensorFlow's jacobian reads it on the tape.
    tracked = tape._differentiable(target._tid) or (
        tape.watch_accessed_variables and type(target) is Variable and target._trainable)
    seeds = {target._tid: seed_like(target, lead_eye=True)} if ok_t and tracked else {}
    grads = tape._walk(seeds, flat_sources, src_ok, lead=(n,))
    results = []
    for s, ok in zip(flat_sources, src_ok):
        g = grads.get(s._tid) if ok else None
        if g is None:
            if ok and if_unconnected is UnconnectedGradients.ZERO:
                g = np.zeros(target.shape + s.shape, s.dtype)
        else:
            g = _reshape_result(g, target.shape + s.shape)
        results.append(_as_result(g))
    return nest.pack_like(sources, results) if nest.is_nested(sources) else results[0]


def batch_jacobian(tape, target, source, unconnected_gradients=UnconnectedGradients.NONE):
    """GradientTape.batch_jacobian: result[i] = d target[i] / d source[i], assuming example i of
    target depends only on example i of source, as TensorFlow does."""
    # Checked, then not used: TensorFlow's batch_jacobian returns zeros for an unconnected
    # source either way (kept there for compatibility), and so does this one.
    unconnected(unconnected_gradients)
    check_tensors("target", [target])
    check_tensors("source", [source])
    if target.ndim < 2 or source.ndim < 2:
        raise ValueError(f"GradientTape.batch_jacobian: target and source must have rank 2 or "
                         f"more (batch, ...), as in TensorFlow; got shapes {target.shape} and "
                         f"{source.shape}. For a vector, use tape.jacobian (or reshape to (b, 1))")
    if target.shape[0] != source.shape[0]:
        raise ValueError(f"GradientTape.batch_jacobian: target and source need the same first "
                         f"(batch) dimension, got shapes {target.shape} and {source.shape}")
    b, ys = target.shape[0], target.shape[1:]
    m = int(np.prod(ys, dtype=np.int64))
    ok = is_floating(target, "target", 0) and is_floating(source, "source", 0)
    seed = np.zeros((m, b, m), dtype=target.dtype)
    seed[np.arange(m), :, np.arange(m)] = 1
    seeds = {target._tid: seed.reshape((m, b) + ys)} if ok else {}
    grads = tape._walk(seeds, [source], [ok], lead=(m,))
    g = grads.get(source._tid) if ok else None
    if g is None:
        if not ok:
            return None
        g = np.zeros((b,) + ys + source.shape[1:], target.dtype)   # TensorFlow's dtype here
        return _as_result(g)
    perm = (1, 0) + tuple(range(2, g.ndim))
    g = _reshape_result(transpose(g, perm=perm), (b,) + ys + source.shape[1:])
    return _as_result(g)


# --- what the front doors check, and the warnings they give ------------------------------------

def unconnected(value):
    """`unconnected_gradients` as an UnconnectedGradients ('none' and 'zero' too)."""
    if isinstance(value, UnconnectedGradients):
        return value
    if isinstance(value, str) and value.lower() in ("none", "zero"):
        return UnconnectedGradients(value.lower())
    raise ValueError(f"GradientTape: unconnected_gradients must be UnconnectedGradients.NONE, "
                     f"UnconnectedGradients.ZERO, 'none' or 'zero', got {value!r}")


def check_tensors(role, items):
    """Every target (or source) is a tk.Tensor or tk.Variable; else a TypeError naming which."""
    for k, t in enumerate(items):
        if not isinstance(t, Tensor):
            where = f"{role} #{k}" if len(items) > 1 else role
            hint = (" (a gradient that came back None?)" if t is None else "")
            raise TypeError(f"GradientTape: the {where} must be a tk.Tensor or tk.Variable, got "
                            f"{type(t).__name__}{hint}. Compute it from watched tensors inside "
                            f"the tape, or convert it with tk.constant(...) and tape.watch(...)")


def is_floating(t, role, k):
    """True for a floating target or source; else False, with a GradientDtypeWarning at the
    user's line (its gradient is None)."""
    if t._value.dtype.kind in "fc":
        return True
    if role == "target":
        fix = "Compute it from floating tensors (dtype=tk.float32)."
    else:
        kind = "tk.Variable" if isinstance(t, Variable) else "tk.constant"
        example = (f"{kind}({float(t._value.item())!r})" if t.ndim == 0 and t.dtype.kind in "iu"
                   else f"{kind}(..., dtype=tk.float32)")
        fix = f"Create it as a float, e.g. dtype=tk.float32 ({example})."
    _warn(f"GradientTape: the {role} tensor{'' if k == 0 else f' #{k}'} has dtype "
          f"{t.dtype.name}; gradients are defined only for floating dtypes, so its "
          f"gradient is None. {fix}")
    return False


def warn_watch_dtype(t):
    """tape.watch of an integer or bool tensor: its gradient will be None."""
    kind = "tk.Variable" if isinstance(t, Variable) else "tk.constant"
    _warn(f"GradientTape.watch: the tensor has dtype {t.dtype.name}; gradients are defined only "
          f"for floating dtypes, so its gradient will be None. Create it as a float, e.g. "
          f"{kind}(..., dtype=tk.float32)")


def _warn(message):
    # Shown every time (TensorFlow warns only a few times per process), at the user's line.
    warn_at_user(message, GradientDtypeWarning)


def _output_gradient(t, og):
    given = og._value.dtype if isinstance(og, Tensor) else getattr(og, "dtype", None)
    if given is not None and given != t.dtype:
        # TensorFlow raises on this mismatch; a silent cast would hide a float64 or int
        # array where the gradient of a float32 target belongs. Python numbers and lists
        # take the target's dtype, as everywhere in tapekit.
        raise TypeError(f"GradientTape.gradient: output_gradients has dtype {np.dtype(given).name}, "
                        f"but its target has dtype {t.dtype.name}; they must match. Cast it: "
                        f"tk.cast(output_gradients, tk.{t.dtype.name})")
    arr = og._value if isinstance(og, Tensor) else np.asarray(og, dtype=t.dtype)
    if arr.shape != t.shape:
        raise ValueError(f"GradientTape.gradient: output_gradients has shape {arr.shape}, "
                         f"but its target has shape {t.shape}; they must match")
    if isinstance(og, Tensor) and recording():
        return og  # keep it recorded: d(gradient)/d(output_gradients) works in an outer tape
    return arr


def seed_like(t, lead_eye=False):
    """Ones shaped like `t` (the seed of gradient), or an identity batch (the seed of jacobian)."""
    v = t._value if isinstance(t, Tensor) else t
    if not lead_eye:
        ones = np.empty(v.shape, v.dtype)  # np.ones, without its Python layer
        ones.fill(1)
        return ones
    n = int(np.size(v))
    return np.eye(n, dtype=v.dtype).reshape((n,) + np.shape(v))


def _reshape_result(g, shape):
    """A gradient `g` (an array, or a tensor when the backward pass was recorded) in `shape`."""
    if g.shape == shape:
        return g
    if isinstance(g, Tensor):
        return reshape(g, shape)
    return g.reshape(shape)


def _as_result(g):
    """What gradient() returns for `g`: None, or a Tensor (an array is wrapped)."""
    if g is None or isinstance(g, Tensor):
        return g
    return wrap_array(np.asarray(g) if not isinstance(g, np.ndarray) else g)


# --- the walk ------------------------------------------------------------------------------------

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
    tensor_mode = recording()  # is this walk itself recorded?
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


__dir__ = public_dir(globals())   # dir(tk.backprop): its __all__, not np, enter_raw, ...
__getattr__ = missing(__name__)
