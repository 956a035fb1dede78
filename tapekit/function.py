"""tk.function: run a Python function once per input signature, record it, then replay it.

    @tk.function
    def train_step(x, y):
        with tk.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

The first call with a new signature (each tensor argument's shape and dtype, the value
of every other argument) runs the function for real while a `_Tracer` sits among the
active tapes. Every op goes through `registry.apply`, which shows it to every active
tape, so the tracer sees them all: the forward pass, the derivative rules of any
`tape.gradient` inside (a tracer counts as a tape, so backward passes run on tensors
and are recorded too), the optimizer's arithmetic and random draws. Variable writes
reach it through `Variable.assign`. The result is a flat program of steps over
numbered slots: `slot = forward(slots..., **attrs)`, `slot = variable's value now`,
`variable = slot`, `check slot` (tk.debugging.check_numerics). Input checks that
depend on values (class-id labels, NaN checks) run at every replay, as at every eager
call. Later calls with the same signature run that program and skip
the Python function entirely:
- nothing records (no tape or accumulator active): a tight loop of NumPy forwards;
- a tape or accumulator is active: each step is called as an op on tensors, so an
  outer tape can differentiate through the call.

Limits, as in `tf.function`: Python side effects (print, appending to a list) happen
only while tracing; Python logic that reads values (`if loss.numpy() > 1`, `float(x)`,
`int(tensor)` as a shape) is decided once per trace; tensors made outside tapekit ops
(`tk.constant`, `tk.zeros`) and tensors from outside the function are constants;
variables are read afresh at every call. Functions using `tk.custom_gradient` run eagerly.
"""
import functools
import math
import sys
import warnings

import numpy as np

from . import nest
from .context import state
from .ops.cross_entropy import check_class_ids, sparse_softmax_cross_entropy_op
from .ops.elementwise import add, subtract
from .tensor import Tensor, Variable, _wrap, convert_to_tensor, smallest_sole_limit

_OP, _READ, _ASSIGN, _UPDATE, _CHECK = "op", "read", "assign", "update", "check"
_SCALARS = (int, float, bool)


class _Hole:
    """An attribute array that is a traced tensor's value: filled in at every replay."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


class _Tracer:
    """A pseudo-tape: turns every op and variable write it sees into a program step."""

    def __init__(self, arg_tensors):
        self.n_args = len(arg_tensors)
        self.n_slots = self.n_args
        self.slot_of = {t._tid: k for k, t in enumerate(arg_tensors)}  # tid -> slot
        self.consts = {}       # slot -> (value, the original Tensor or None)
        self._const_ids = {}   # id(array) -> slot (each captured array once)
        self.steps = []        # (kind, op or variable, input slots, attrs, output slot, holes)
        self._read_slot = {}   # id(variable) -> slot of its value since the last write
        self._values = {id(t._value): (k, t._value) for k, t in enumerate(arg_tensors)}
        self.unsupported = None
        self.made = {}         # slot -> (shape, dtype) of an op's output (buffers a replay may reuse)

    def _new_slot(self, value):
        self.n_slots += 1
        self._values[id(value)] = (self.n_slots - 1, value)
        return self.n_slots - 1

    # --- called by registry.apply for every op, and by Variable.assign -------------------
    def _record(self, op, args, values, tids, result, attrs):
        # An op with no forward of its own (custom_gradient: its value comes from user Python)
        # cannot be replayed; the program then runs eagerly.
        if op.forward is None:
            self.unsupported = self.unsupported or op.name
            return
        ins = tuple([self._ref(a, v, tid) for a, v, tid in zip(args, values, tids)])
        attrs, holes = self._attrs(attrs)
        out = self._new_slot(result._value)
        self.made[out] = (result._value.shape, result._value.dtype)
        self.steps.append((_OP, op, ins, attrs, out, holes))
        self.slot_of[result._tid] = out

    def _record_assign(self, variable, value):
        if isinstance(value, Tensor):
            src = self._ref(value, value._value, value._tid)
        else:  # a Python or NumPy value: eager assign has just stored its checked copy
            src = self._const(variable._value, None)
        self.steps.append((_ASSIGN, variable, (src,), variable.dtype, None, ()))
        self._read_slot.pop(id(variable), None)  # later uses read the new value

    def _record_check(self, tensor, check):
        """A value check outside any op (tk.debugging.check_numerics): `check(array)` raises
        if the value is bad. Every replay runs it, as every eager call does."""
        src = self._ref(tensor, tensor._value, tensor._tid)
        self.steps.append((_CHECK, check, (src,), None, None, ()))

    # --- where an input comes from -------------------------------------------------------
    def _ref(self, a, value, tid):
        if isinstance(a, Variable):
            return self._read(a)
        slot = self.slot_of.get(tid) if tid is not None else None
        if slot is not None:
            return slot
        # The very array of a traced value (a backward pass re-wrapping a saved input or a
        # variable's read, np.asarray(x), tk.constant(x)): follow that value.
        known = self._values.get(id(value))
        if known is not None and known[1] is value:
            return known[0]
        if type(a) in _SCALARS:
            return self._const(a, None)
        if isinstance(a, Tensor):
            return self._const(value, a)
        # A NumPy array or list from the caller: copy it, the caller may change it later.
        return self._const(np.array(value, copy=True) if value is a else value, None)

    def _read(self, var):
        slot = self._read_slot.get(id(var))
        if slot is None:
            slot = self._new_slot(var._value)
            self.steps.append((_READ, var, (), None, slot, ()))
            self._read_slot[id(var)] = slot
        self._values[id(var._value)] = (slot, var._value)
        return slot

    def _const(self, value, tensor):
        if isinstance(value, np.ndarray) and id(value) in self._const_ids:
            return self._const_ids[id(value)]
        self.n_slots += 1
        slot = self.n_slots - 1
        self.consts[slot] = (value, tensor)
        if isinstance(value, np.ndarray):
            self._const_ids[id(value)] = slot
        return slot

    def _attrs(self, attrs):
        """Attributes, with any array that IS a traced tensor's value made a hole.

        tk.gather's gradient and x[index_tensor] pass the index tensor's own array as an
        attribute; following it keeps a replay right when the indices change.
        """
        holes = []

        def scan(v):
            if isinstance(v, np.ndarray):
                known = self._values.get(id(v))
                if known is not None and known[1] is v:
                    holes.append(known[0])
                    return _Hole(len(holes) - 1)
            elif isinstance(v, tuple) and v:
                return tuple([scan(x) for x in v])
            return v

        if not any(isinstance(v, (np.ndarray, tuple)) for v in attrs.values()):
            return attrs, ()
        scanned = {k: scan(v) for k, v in attrs.items()}
        return (scanned, tuple(holes)) if holes else (attrs, ())

    def finish(self, result, name):
        flat = nest.flatten(result) if nest.is_nested(result) else [result]
        outputs = []
        for leaf in flat:
            if isinstance(leaf, Tensor) and not isinstance(leaf, Variable):
                outputs.append((True, self._ref(leaf, leaf._value, leaf._tid)))
            else:  # a Variable is returned as itself, any other Python value as traced
                outputs.append((False, leaf))
        skeleton = nest.pack_like(result, [None] * len(flat)) if nest.is_nested(result) else None
        return _Program(name, self, outputs, skeleton)


class _Program:
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
        steps = _fold_constants(steps, self.consts)
        # (a fused update no longer reads the variable: that read may now be dead too)
        self.steps = _live_steps(_fuse_updates(steps, output_slots), output_slots)
        self.template = [None] * (tracer.n_slots + 1)  # the last slot: scratch for writes
        for slot, (value, _) in self.consts.items():
            self.template[slot] = value
        dead = _dead_after(self.steps, output_slots | set(self.consts))
        self.fast_steps = [_fast_step(step, _donor(step, d, tracer.made)) + (d,)
                           for step, d in zip(self.steps, dead)]
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
            if kind is _OP:
                if holes:
                    attrs = _fill(attrs, [env[i]._value for i in holes])
                env[out] = obj(*[env[i] for i in ins], **attrs)
            elif kind is _READ:
                env[out] = obj  # the Variable itself: tapes watch it as in eager mode
            elif kind is _CHECK:
                obj(env[ins[0]]._value)
            else:
                # Earlier reads of this variable must keep the value they read.
                for k, v in enumerate(env):
                    if v is obj:
                        env[k] = _wrap(obj._value, obj._tid)
                if kind is _ASSIGN:
                    obj.assign(env[ins[0]])
                elif attrs is np.subtract:
                    obj.assign_sub(env[ins[0]])
                else:
                    obj.assign_add(env[ins[0]])
        return self._pack([env[s] if is_slot else s for is_slot, s in self.outputs])

    def _pack(self, leaves):
        return leaves[0] if self.skeleton is None else nest.pack_like(self.skeleton, leaves)

    def __repr__(self):
        lines = [f"<tk.function program {self.name}: {self.n_args} tensor argument(s), "
                 f"{len(self.steps)} steps>"]
        for kind, obj, ins, attrs, out, _ in self.steps:
            args = ", ".join(f"s{i}" for i in ins)
            if kind is _OP:
                lines.append(f"  s{out} = {obj.name}({args})")
            elif kind is _READ:
                lines.append(f"  s{out} = read {obj.name}")
            elif kind is _CHECK:
                lines.append(f"  check {args}")
            elif kind is _UPDATE:
                lines.append(f"  {obj.name} {'-' if attrs is np.subtract else '+'}= s{ins[0]}")
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
        if kind is _ASSIGN or kind is _UPDATE or kind is _CHECK or out in needed or op in _CHECKING_OPS:
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
        if kind is _OP and ins and not holes and all(i in consts for i in ins):
            try:
                value = op.forward(*[consts[i][0] for i in ins], **attrs)
            except Exception:  # noqa: BLE001 - left to fail at the call, as in eager mode
                kept.append(step)
                continue
            consts[out] = (value, None)
            continue
        kept.append(step)
    return kept


def _fuse_updates(steps, output_slots):
    """`t = subtract(read v, d); v <- t` becomes `v -= d` (and add likewise).

    The update then runs as Variable.assign_sub does: in place when nothing else holds the
    variable's array (the slots reading it are freed first; see _dead_after), saving a
    new array of the variable's size per step. Only when no later step reads the old
    value and nothing else uses `t`.
    """
    uses, last = _reads(steps)
    reader = {step[4]: step[1] for step in steps if step[0] is _READ}   # slot -> variable
    fused, skip = [], set()
    for k, step in enumerate(steps):
        if k in skip:
            continue
        kind, op, ins, attrs, out, holes = step
        nxt = steps[k + 1] if k + 1 < len(steps) else None
        if (kind is _OP and op in (subtract, add) and not attrs and len(ins) == 2
                and nxt is not None and nxt[0] is _ASSIGN and nxt[2] == (out,)
                and reader.get(ins[0]) is nxt[1] and last.get(ins[0]) == k
                and uses.get(out) == 1 and out not in output_slots and ins[0] not in output_slots):
            ufunc = np.subtract if op is subtract else np.add
            fused.append((_UPDATE, nxt[1], (ins[1],), ufunc, None, ()))
            skip.add(k + 1)
            continue
        fused.append(step)
    return fused


def _reads(steps):
    """How many steps read each slot, and the index of the last one that does."""
    uses, last = {}, {}
    for k, (_, _, ins, _, _, holes) in enumerate(steps):
        for i in ins + holes:
            uses[i] = uses.get(i, 0) + 1
            last[i] = k
    return uses, last


def _dead_after(steps, keep):
    """For each step, the slots no later step reads (freed right after it), except `keep`."""
    _, last = _reads(steps)
    dead = [[] for _ in steps]
    for slot, k in last.items():
        if slot not in keep:
            dead[k].append(slot)
    return [tuple(d) for d in dead]


_DONATE_MIN = 4096  # elements: below this a new array costs less than the check


def _donor(step, dead, made):
    """Which input's buffer this step may write its result into, or None.

    One that no later step reads (`dead`), that an earlier op made (never an argument, a
    constant or a variable's array), of the result's shape and dtype, for an op whose
    forward takes out=. At run time _donating checks that nothing else holds it.
    """
    kind, op, ins, _, out, holes = step
    if kind is not _OP or not op.writes_out or holes or out not in made:
        return None
    shape, dtype = made[out]
    if math.prod(shape) < _DONATE_MIN:
        return None
    for pos, slot in enumerate(ins):
        if slot in dead and made.get(slot) == (shape, dtype) and slot not in ins[:pos]:
            return pos
    return None


def _donating(forward, attrs, pos):
    def step(*values):
        buf = values[pos]
        # Ours alone: not a view, and no reference but the replay's (probed: _SOLE_ARRAY).
        if type(buf) is np.ndarray and buf.base is None and sys.getrefcount(buf) <= _SOLE_ARRAY:
            return forward(*values, out=buf, **attrs)
        return forward(*values, **attrs)
    return step


def _probe_sole_references():
    """The largest getrefcount a _donating step may see for a buffer only the replay holds.

    How many references CPython's call path adds depends on the interpreter, so it is
    measured once, on the real _donating with the call shape run_fast uses: the smallest
    limit at which a buffer held only by the replay's list is written into while the same
    buffer with one more holder is not. 0 (never write into an input) if none is found.
    """
    donated = []
    step = _donating(lambda *values, out=None: donated.append(out is not None), {}, 0)
    env = [np.empty(1)]

    def trial(limit):
        global _SOLE_ARRAY
        _SOLE_ARRAY = limit
        donated.clear()
        step(env[0])               # only the list holds it: write into it
        held = env[0]              # one more holder: leave it alone
        step(env[0])
        del held
        return donated

    return smallest_sole_limit(trial)


_SOLE_ARRAY = 0


def _fast_step(step, donor=None):
    kind, obj, ins, attrs, out, holes = step
    if kind is _OP:
        if donor is not None:
            return _donating(obj.forward, attrs, donor), ins, out
        if holes:  # the hole slots become extra positional inputs of a small wrapper
            n = len(ins)
            return (lambda *v: obj.forward(*v[:n], **_fill(attrs, v[n:]))), ins + holes, out
        fn = functools.partial(obj.forward, **attrs) if attrs else obj.forward
        return fn, ins, out
    if kind is _READ:
        return functools.partial(getattr, obj, "_value"), ins, out
    if kind is _CHECK:    # raises, or returns None into the scratch slot
        return obj, ins, -1
    if kind is _UPDATE:   # in place when only the variable holds its array; -1: the scratch slot
        return functools.partial(obj._update, attrs), ins, -1
    return functools.partial(_store, obj, attrs), ins, -1


def _fill(attrs, arrays):
    def fill(v):
        if isinstance(v, _Hole):
            return arrays[v.k]
        if isinstance(v, tuple):
            return tuple([fill(x) for x in v])
        return v
    return {k: fill(v) for k, v in attrs.items()}


def _store(variable, dtype, value):
    # Like Variable.assign without the copy: step outputs are fresh arrays nobody mutates.
    value = np.asarray(value)
    variable._value = value if value.dtype == dtype else value.astype(dtype)
    return None


class Function:
    """A callable that traces `python_function` once per input signature and replays it.

    `trace_count` counts the traces; `programs` maps each signature to its program
    (print one to see its steps).
    """

    def __init__(self, python_function, name=None):
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self.programs = {}
        self._by_fast_key = {}   # (type, shape, dtype) of each positional tensor -> program
        self.trace_count = 0
        self._warned = False

    def experimental_get_tracing_count(self):
        return self.trace_count

    def __get__(self, instance, owner):
        # A decorated method: bind `self`, which then is part of the signature (by identity).
        return self if instance is None else functools.partial(self.__call__, instance)

    def __call__(self, *args, **kwargs):
        # The common call, f(x, y) with tensors or arrays only, finds its program by the
        # arguments' types, shapes and dtypes: the same facts the full signature holds for
        # it, without flattening the call (a training step's first call after other work
        # pays several times the warm cost of every Python call it makes).
        fast_key = None if kwargs else _fast_key(args)
        program = self._by_fast_key.get(fast_key) if fast_key is not None else None
        if program is not None and not (state.tapes or state.accumulators):
            # A caller's array is copied (as when tracing): a result may be a view of it.
            return program.run_fast([a._value if type(a) is Tensor else a.copy() for a in args])
        leaves = nest.flatten((args, kwargs))
        key = _signature((args, kwargs), leaves)
        program = self.programs.get(key)
        if program is None:
            return self._trace(key, args, kwargs, leaves)
        if program.unsupported:
            return self.python_function(*args, **kwargs)
        if fast_key is not None:
            self._by_fast_key[fast_key] = program
        tensors = [leaf for leaf in leaves if _is_tensor_arg(leaf)]
        if state.tapes or state.accumulators:
            return program.run_tensors([convert_to_tensor(t) for t in tensors])
        return program.run_fast([t._value if isinstance(t, Tensor) else np.array(t) for t in tensors])

    def _trace(self, key, args, kwargs, leaves):
        # Tensor arguments get their own tape ids: f(x, x) must not merge the two inputs.
        from .ops import identity
        new_leaves, arg_tensors, seen = [], [], set()
        for leaf in leaves:
            if _is_tensor_arg(leaf):
                leaf = convert_to_tensor(leaf)
                if leaf._tid in seen:
                    leaf = identity(leaf)  # before the tracer starts: only outer tapes see it
                seen.add(leaf._tid)
                arg_tensors.append(leaf)
            new_leaves.append(leaf)
        args, kwargs = nest.pack_like((args, kwargs), new_leaves)
        tracer = _Tracer(arg_tensors)
        state.tapes.append(tracer)
        try:
            result = self.python_function(*args, **kwargs)
        finally:
            state.tapes.remove(tracer)
        program = tracer.finish(result, self._name)
        program.keepalive = [leaf for leaf in leaves if not _is_tensor_arg(leaf)]
        self.programs[key] = program
        self.trace_count += 1
        if program.unsupported and not self._warned:
            self._warned = True
            warnings.warn(f"tk.function {self._name}: it uses {program.unsupported}, and a replay "
                          f"could not recompute its Python code; the function runs eagerly on "
                          f"every call",
                          stacklevel=3)
        return result

    def __repr__(self):
        return f"<tk.function {self._name}: {self.trace_count} trace(s)>"


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_relax_shapes=None, name=None):
    """Compile a Python function into a replayable program (`tf.function`).

    Works as `@tk.function`, `@tk.function()` and `tk.function(fn)`.

    >>> @tk.function
    ... def f(x):
    ...     return x * x + 1.0
    >>> f(tk.constant(2.0)), f(tk.constant(3.0)), f.trace_count
    (tk.Tensor(5.0, ...), tk.Tensor(10.0, ...), 1)
    """
    if input_signature is not None:
        raise NotImplementedError("tk.function: input_signature is not supported; the signature "
                                  "comes from the shapes and dtypes of the arguments of each call")
    if func is None:
        return functools.partial(function, name=name)
    return Function(func, name=name)


def _is_tensor_arg(leaf):
    # Variables are captured by identity (reads and writes must reach the real one);
    # NumPy arrays count as tensors, as in tf.function.
    return (isinstance(leaf, Tensor) and not isinstance(leaf, Variable)) or isinstance(leaf, np.ndarray)


def _fast_key(args):
    """(type, shape, dtype) of each argument when all are Tensors or arrays, else None."""
    key = []
    for a in args:
        t = type(a)
        if t is Tensor:
            v = a._value
        elif t is np.ndarray:
            v = a
        else:
            return None
        key.append((t, v.shape, v.dtype))
    return tuple(key)


def _signature(structure, leaves):
    """The cache key: the nesting, then (shape, dtype) of tensors and the value of the rest.

    Variables and unhashable objects count by identity; the program keeps them alive, so
    their id() cannot be reused by another object while the key exists.
    """
    key = [_structure(structure)]
    for leaf in leaves:
        if _is_tensor_arg(leaf):
            key.append((leaf.shape, leaf.dtype))
        elif isinstance(leaf, Variable):
            key.append(("variable", id(leaf)))
        else:
            try:
                key.append((type(leaf), leaf, hash(leaf)))  # models, optimizers: identity hash
            except TypeError:
                key.append(("object", id(leaf)))
    return tuple(key)


def _structure(s):
    if isinstance(s, (list, tuple)):
        return (type(s), tuple(_structure(x) for x in s))
    if isinstance(s, dict):
        return (dict, tuple((k, _structure(s[k])) for k in sorted(s)))
    return None


_SOLE_ARRAY = _probe_sole_references()
