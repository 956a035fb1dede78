"""Replay for tk.function: run a traced program again without the Python function.

`Program` takes a `tracing.Tracer`'s steps, removes what no call needs, and runs them:
- nothing records (no tape or accumulator active): `run_fast`, the program generated as
  Python source (codegen.py), compiled once and called on NumPy arrays;
- a tape or accumulator is active: `run_tensors`, each step called as an op on tensors,
  so an outer tape can differentiate through the call.

Before the first run the steps go through two passes: `_live_steps` (drop steps nothing
uses) and `_fold_constants` (compute once what depends on constants only; a guard on a
constant always passes and goes). The generated code frees each slot after its last
reader (`del`). See docs/PERFORMANCE.md for what these are worth.

Guards (tracing.py) make a replay stop with `GuardFailed` when a Python decision would go
another way; function.py then traces that path. Whatever the replay did before the guard
must not happen twice: ops are pure and the fallback simply starts again, but variable
writes, random draws and tk.print are not. A program with a guard after one of those
runs as a transaction (`_transaction`): it holds the locks of the variables it writes,
buffers its prints, and on a failed guard puts the variables' values and the random
streams back as they were before the replay began, so the fallback starts from exactly
the state the call found. Programs without such a guard (every training step without
data-dependent Python) run with no locking beyond each write's own.
"""
import threading

import numpy as np

from .. import nest
from .. import random as _random
from ..ops.cross_entropy import check_class_ids, sparse_softmax_cross_entropy_op
from ..printing import print_
from ..tensor import _wrap
from .codegen import compile_program, generate, inert
from .trace import ASSIGN, CHECK, GUARD, GUARD_KINDS, OP, PRINT, READ, UPDATE, GuardFailed, \
    fill_holes, hold_in_traces, outcome_of


class Program:
    """The recorded steps of one trace (one path through the Python code), ready to replay."""

    def __init__(self, name, tracer, outputs, skeleton):
        self.name = name
        self.n_args = tracer.n_args
        self.outputs = outputs
        self.skeleton = skeleton
        self.unsupported = tracer.unsupported
        self.created = list(tracer.created)
        output_slots = {s for is_slot, s in outputs if is_slot}
        self.consts = dict(tracer.consts)
        self.kernels = tracer.kernels   # slot -> (what its step calls, dtype, shape): codegen.py
        steps = _live_steps(tracer.steps, output_slots)
        self.steps = _fold_constants(steps, self.consts)
        # What each guard must see, in program order: programs of one signature that agree
        # on the first k outcomes made the same first k+1 decisions (function.py).
        self.guard_outcomes = tuple(s[3] for s in self.steps if s[0] is GUARD)
        self.guard_sites = tuple(s[4] for s in self.steps if s[0] is GUARD)
        self.transactional = _has_late_guard(self.steps)
        written = {id(s[1]): s[1] for s in self.steps if s[0] in (ASSIGN, UPDATE)}
        self.written = [written[k] for k in sorted(written)]   # lock order: by id, always
        # Locks an eager step holds (an optimizer's): held through the whole replay, in one order.
        self.locks = [lock for _, lock in sorted(tracer.locks.items())]
        self.draws = any(s[0] is OP and _is_random(s[1]) for s in self.steps)
        self._code = self._fn = None   # generated and compiled at the first replay
        # A program that only computes (no writes, prints or random draws) may write a step's
        # result into a dead input's array (codegen.py); it can always run again without that.
        self.pure = not self.draws and not any(s[0] in (ASSIGN, UPDATE, PRINT) for s in self.steps)
        self._plain = None
        self._n_slots_out = sum(1 for is_slot, _ in outputs if is_slot)
        self._single = len(outputs) == 1 and outputs[0][0] and skeleton is None
        self._tensor_template = None

    @property
    def code(self):
        """The program as Python source (codegen.py): what run_fast runs."""
        if self._code is None:
            stores = (_assign_unlocked, _update_unlocked, _buffer_print) if self.transactional \
                else (_assign, _update, _show)
            self._code, self._globals, self._fn_name = generate(self, stores, donate=self.pure)
        return self._code

    def _compile(self):
        # A trace that is never replayed (a check run, a Python float new at every call)
        # never pays for generating and compiling its source.
        self._fn = compile_program(self.code, self._globals, self._fn_name, self.name)

    def run_fast(self, arg_values):
        """Replay on NumPy arrays: the generated function, nothing else."""
        if self._fn is None:
            self._compile()
        if not self.locks:
            return self._run_fast(arg_values)
        for lock in self.locks:
            lock.acquire()
        try:
            return self._run_fast(arg_values)
        finally:
            for lock in reversed(self.locks):
                lock.release()

    def _run_fast(self, arg_values):
        if self.transactional:
            out = self._transaction(arg_values)
        else:
            try:
                out = self._fn(*arg_values)
            except GuardFailed:
                raise
            except Exception:
                if not self.pure:
                    raise
                out = self._without_donation()(*arg_values)
        if self._single:
            return _wrap(out)
        out = iter((out,) if self._n_slots_out == 1 else out)
        return self._pack([_wrap(next(out)) if is_slot else s for is_slot, s in self.outputs])

    def _without_donation(self):
        """The program with every result in a new array: what a pure program runs again when
        its replay raised. A step that writes into a dead input's array (codegen.py) raises
        where the arrays' shapes at this call differ from the trace's (an input_signature with
        None, a data-dependent shape); this run gives eager's result, or eager's error."""
        if self._plain is None:
            source, g, fn_name = generate(self, (_assign, _update, _show), donate=False)
            self._plain = compile_program(source, g, fn_name, self.name)
        return self._plain

    def _transaction(self, arg_values):
        locks = [v._lock for v in self.written]
        for lock in locks:
            lock.acquire()
        saved = [(v, v._value) for v in self.written]
        rng = _rng_state() if self.draws else None
        _pending.prints = []
        try:
            out = self._fn(*arg_values)
        except GuardFailed:
            for v, old in saved:
                v._value = old
            if rng is not None:
                _rng_restore(rng)
            raise
        finally:
            for lock in reversed(locks):
                lock.release()
            prints, _pending.prints = _pending.prints, None
        for printer, template, values in prints:
            _show(printer, template, *values)
        return out

    def run_tensors(self, arg_tensors):
        """Replay op by op on tensors, so the active tapes and accumulators record it.

        A guard reads its tensor as the Python code did (bool(t), float(t)), so a tk.function
        tracing around this one records that decision too. Callers run transactional
        programs eagerly instead (function.py): undoing writes an outer tape saw is not safe.
        """
        for lock in self.locks:
            lock.acquire()
            hold_in_traces(lock)    # a tk.function tracing this call holds it in its replays
        try:
            return self._run_tensors(arg_tensors)
        finally:
            for lock in reversed(self.locks):
                lock.release()

    def _run_tensors(self, arg_tensors):
        if self._tensor_template is None:
            self._tensor_template = {
                slot: (tensor if tensor is not None else _wrap(value))
                if isinstance(value, (np.ndarray, np.generic)) else value   # scalars stay weak
                for slot, (value, tensor) in self.consts.items()}
        env = dict(self._tensor_template)
        env.update(enumerate(arg_tensors))
        n_guard = 0
        for kind, obj, ins, attrs, out, holes in self.steps:
            if kind is OP:
                if holes:
                    attrs = fill_holes(attrs, [env[i]._value for i in holes])
                env[out] = obj(*[env[i] for i in ins], **attrs)
            elif kind is READ:
                env[out] = obj   # the Variable itself: tapes watch it as in eager mode
            elif kind is CHECK:
                obj(env[ins[0]]._value)
            elif kind is GUARD:
                _PYTHON_READS[obj](env[ins[0]])    # the same Python read, seen by outer tracers
                got = outcome_of(obj, env[ins[0]]._value)
                if got != attrs:
                    raise GuardFailed(n_guard, got)
                n_guard += 1
            elif kind is PRINT:
                print_(*_fill(attrs, [env[i] for i in ins]), sep=obj.sep, end=obj.end,
                       output_stream=obj.stream, summarize=obj.summarize)
            else:
                # Earlier reads of this variable keep the value they read.
                for k, v in env.items():
                    if v is obj:
                        env[k] = _wrap(obj._value, obj._tid)
                if kind is ASSIGN:
                    obj.assign(env[ins[0]])
                else:  # UPDATE
                    (obj.assign_add if attrs is np.add else obj.assign_sub)(env[ins[0]])
        return self._pack([env[s] if is_slot else s for is_slot, s in self.outputs])

    def _pack(self, leaves):
        return leaves[0] if self.skeleton is None else nest.pack_like(self.skeleton, leaves)

    def __str__(self):
        return self.code

    def __repr__(self):
        return (f"<tk.function program {inert(self.name)}: {self.n_args} tensor argument(s), "
                f"{len(self.steps)} steps, {len(self.guard_outcomes)} guard(s)>\n{self.code}")


def _safe_read(kind):
    def read(t):
        try:
            return getattr(t, _PYTHON_METHODS[kind])()
        except (TypeError, ValueError, OverflowError):
            return None
    return read


_PYTHON_METHODS = {"bool": "__bool__", "int": "__int__", "index": "__index__",
                   "float": "__float__", "numpy": "numpy"}
_PYTHON_READS = {kind: _safe_read(kind) for kind in GUARD_KINDS}


def _fill(template, values):
    return [values[v] if is_slot else v for is_slot, v in template]


# --- what the generated code calls for writes and prints ----------------------------------

def _assign(variable, value):
    value = np.asarray(value)
    if value.dtype != variable._value.dtype:
        value = value.astype(variable._value.dtype)
    with variable._lock:   # the lock eager Variable.assign holds
        variable._value = value


def _assign_unlocked(variable, value):   # inside a transaction: its locks are held
    value = np.asarray(value)
    variable._value = value if value.dtype == variable._value.dtype \
        else value.astype(variable._value.dtype)


def _update(ufunc, variable, delta):
    with variable._lock:   # read, update, write as one, as eager assign_add does
        variable._value = ufunc(variable._value, delta)


def _update_unlocked(ufunc, variable, delta):
    variable._value = ufunc(variable._value, delta)


def _show(printer, template, *values):
    values = _fill(template, values)
    printer.show([np.asarray(v) if is_slot else v for (is_slot, _), v in zip(template, values)])


_pending = threading.local()   # a transaction's prints, shown once it succeeds


def _buffer_print(printer, template, *values):
    _pending.prints.append((printer, template, values))


def _rng_state():
    return (_random._generator, _random._generator.bit_generator.state,
            {k: (g, g.bit_generator.state) for k, g in _random._op_streams.items()})


def _rng_restore(saved):
    generator, state, streams = saved
    generator.bit_generator.state = state
    for k, (g, s) in streams.items():
        g.bit_generator.state = s


def _is_random(op):
    return getattr(op.forward, "__module__", "") == _random.__name__


# Ops whose forward checks its inputs' values (and raises) as an eager call does: a replay
# keeps them even when nothing reads their result, so the check still runs at every call.
_CHECKING_OPS = frozenset([sparse_softmax_cross_entropy_op, check_class_ids])
_EFFECTS = (ASSIGN, UPDATE, CHECK, GUARD, PRINT)


def _has_late_guard(steps):
    """True when a guard follows a variable write, a random draw or a print."""
    effect = False
    for kind, obj, *_ in steps:
        if kind is GUARD and effect:
            return True
        if kind in (ASSIGN, UPDATE, PRINT) or (kind is OP and _is_random(obj)):
            effect = True
    return False


def _live_steps(steps, output_slots):
    """Drop steps nothing uses (e.g. a layer's initializer draw while building)."""
    needed = set(output_slots)
    live = []
    for step in reversed(steps):
        kind, op, ins, _, out, holes = step
        if kind in _EFFECTS or out in needed or op in _CHECKING_OPS:
            live.append(step)
            needed.update(ins)
            needed.update(holes)
    return live[::-1]


def _fold_constants(steps, consts):
    """Compute once the steps whose inputs are all constants; they become constants too.

    E.g. the seed of tape.gradient (ones) and what the mean's derivative makes of it: the
    same numbers at every call. Ops without inputs (random draws) are never folded. A guard
    on a constant decides the same way at every call: it goes.
    `consts` (slot -> (value, tensor)) receives the folded values.
    """
    kept = []
    for step in steps:
        kind, op, ins, attrs, out, holes = step
        if kind is GUARD and ins[0] in consts:
            continue
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
