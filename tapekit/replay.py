"""Replay for tk.function: run a traced program again without the Python function.

`Program` takes a `tracing.Tracer`'s steps, removes what no call needs, and runs them:
- nothing records (no tape or accumulator active): `run_fast`, a tight loop of NumPy
  forwards over a list of slots;
- a tape or accumulator is active: `run_tensors`, each step called as an op on tensors,
  so an outer tape can differentiate through the call.

Before the first run the steps go through three passes, each a small function below:
`_live_steps` (drop steps nothing uses), `_fold_constants` (compute once what depends on
constants only) and `_dead_after` (free each slot after its last reader). See
docs/PERFORMANCE.md for what they are worth, and for the tricks that were measured and
removed (buffer donation, fused in-place updates: under 5%).
"""
import functools

import numpy as np

from . import nest
from .ops.cross_entropy import check_class_ids, sparse_softmax_cross_entropy_op
from .tensor import _wrap
from .tracing import ASSIGN, CHECK, OP, READ, fill_holes


class Program:
    """The recorded steps of one trace, with dead steps removed, ready to replay."""

    def __init__(self, name, tracer, outputs, skeleton):
        self.name = name
        self.n_args = tracer.n_args
        self.outputs = outputs
        self.skeleton = skeleton
        self.unsupported = tracer.unsupported
        output_slots = {s for is_slot, s in outputs if is_slot}
        self.consts = dict(tracer.consts)
        steps = _live_steps(tracer.steps, output_slots)
        self.steps = _fold_constants(steps, self.consts)
        self.template = [None] * (tracer.n_slots + 1)  # the last slot: scratch for writes
        for slot, (value, _) in self.consts.items():
            self.template[slot] = value
        dead = _dead_after(self.steps, output_slots | set(self.consts))
        self.fast_steps = [_fast_step(step) + (d,) for step, d in zip(self.steps, dead)]
        self._tensor_template = None

    def run_fast(self, arg_values):
        """Replay on NumPy arrays: each step is one forward call, nothing else."""
        env = self.template.copy()
        env[:self.n_args] = arg_values
        for fn, ins, out, dead in self.fast_steps:
            n = len(ins)   # one and two inputs called directly: a comprehension costs more
            if n == 1:
                env[out] = fn(env[ins[0]])
            elif n == 2:
                env[out] = fn(env[ins[0]], env[ins[1]])
            elif n == 0:   # a variable's read
                env[out] = fn()
            else:
                env[out] = fn(*[env[i] for i in ins])
            for k in dead:   # freed as soon as no later step reads it, as eager code would
                env[k] = None
        return self._pack([_wrap(env[s]) if is_slot else s for is_slot, s in self.outputs])

    def run_tensors(self, arg_tensors):
        """Replay op by op on tensors, so the active tapes and accumulators record it."""
        if self._tensor_template is None:
            self._tensor_template = list(self.template)
            for slot, (value, tensor) in self.consts.items():
                if isinstance(value, (np.ndarray, np.generic)):  # Python scalars stay weak
                    self._tensor_template[slot] = tensor if tensor is not None else _wrap(value)
        env = self._tensor_template.copy()
        env[:self.n_args] = arg_tensors
        for kind, obj, ins, attrs, out, holes in self.steps:
            if kind is OP:
                if holes:
                    attrs = fill_holes(attrs, [env[i]._value for i in holes])
                env[out] = obj(*[env[i] for i in ins], **attrs)
            elif kind is READ:
                env[out] = obj  # the Variable itself: tapes watch it as in eager mode
            elif kind is CHECK:
                obj(env[ins[0]]._value)
            else:  # ASSIGN
                # Earlier reads of this variable must keep the value they read.
                for k, v in enumerate(env):
                    if v is obj:
                        env[k] = _wrap(obj._value, obj._tid)
                obj.assign(env[ins[0]])
        return self._pack([env[s] if is_slot else s for is_slot, s in self.outputs])

    def _pack(self, leaves):
        return leaves[0] if self.skeleton is None else nest.pack_like(self.skeleton, leaves)

    def __repr__(self):
        lines = [f"<tk.function program {self.name}: {self.n_args} tensor argument(s), "
                 f"{len(self.steps)} steps>"]
        for kind, obj, ins, attrs, out, _ in self.steps:
            args = ", ".join(f"s{i}" for i in ins)
            if kind is OP:
                lines.append(f"  s{out} = {obj.name}({args})")
            elif kind is READ:
                lines.append(f"  s{out} = read {obj.name}")
            elif kind is CHECK:
                lines.append(f"  check {args}")
            else:
                lines.append(f"  {obj.name} <- s{ins[0]}")
        return "\n".join(lines)


# Ops whose forward checks its inputs' values (and raises) as an eager call does: a replay
# keeps them even when nothing reads their result, so the check still runs at every call.
_CHECKING_OPS = frozenset([sparse_softmax_cross_entropy_op, check_class_ids])


def _live_steps(steps, output_slots):
    """Drop steps nothing uses (e.g. a layer's initializer draw while building)."""
    needed = set(output_slots)
    live = []
    for step in reversed(steps):
        kind, op, ins, _, out, holes = step
        if kind is ASSIGN or kind is CHECK or out in needed or op in _CHECKING_OPS:
            live.append(step)
            needed.update(ins)
            needed.update(holes)
    return live[::-1]


def _fold_constants(steps, consts):
    """Compute once the steps whose inputs are all constants; they become constants too.

    E.g. the seed of tape.gradient (ones) and what the mean's derivative makes of it: the
    same numbers at every call. Ops without inputs (random draws) are never folded.
    `consts` (slot -> (value, tensor)) receives the folded values.
    """
    kept = []
    for step in steps:
        kind, op, ins, attrs, out, holes = step
        if kind is OP and ins and not holes and all(i in consts for i in ins):
            try:
                value = op.forward(*[consts[i][0] for i in ins], **attrs)
            except Exception:  # noqa: BLE001 - left to fail at the call, as in eager mode
                kept.append(step)
                continue
            consts[out] = (value, None)
            continue
        kept.append(step)
    return kept


def _dead_after(steps, keep):
    """For each step, the slots no later step reads (freed right after it), except `keep`."""
    last = {}   # slot -> index of the last step that reads it
    for k, (_, _, ins, _, _, holes) in enumerate(steps):
        for i in ins + holes:
            last[i] = k
    dead = [[] for _ in steps]
    for slot, k in last.items():
        if slot not in keep:
            dead[k].append(slot)
    return [tuple(d) for d in dead]


def _fast_step(step):
    kind, obj, ins, attrs, out, holes = step
    if kind is OP:
        if holes:  # the hole slots become extra positional inputs of a small wrapper
            n = len(ins)
            return (lambda *v: obj.forward(*v[:n], **fill_holes(attrs, v[n:]))), ins + holes, out
        fn = functools.partial(obj.forward, **attrs) if attrs else obj.forward
        return fn, ins, out
    if kind is READ:
        return functools.partial(getattr, obj, "_value"), ins, out
    if kind is CHECK:    # raises, or returns None into the scratch slot
        return obj, ins, -1
    return functools.partial(_store, obj, attrs), ins, -1


def _store(variable, dtype, value):
    # Like Variable.assign without the copy: step outputs are fresh arrays nobody mutates.
    value = np.asarray(value)
    variable._value = value if value.dtype == dtype else value.astype(dtype)
    return None
