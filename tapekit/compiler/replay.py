"""Replay for tk.function: run a traced program again without the Python function.

`Program` takes a `trace.Tracer`'s steps, runs the passes over them once (passes.py: drop
what no call needs, fold what depends on constants only, compute a repeated step once, find
late guards), and runs them:
- nothing records (no tape or accumulator active): `run_fast`, the program generated as
  Python source (program.generate), compiled once and called on NumPy arrays; a program
  with a guard after a write, a draw or a print runs as a transaction (transaction.py);
- a tape or accumulator is active: `run_tensors`, each step called as an op on tensors
  (tensor_replay.py), so an outer tape can differentiate through the call.

The generated code frees each slot after its last reader (`del`). See docs/PERFORMANCE.md
for what these are worth.
"""
from .. import nest
from ..context import UNDO, hints, state
from ..tensor import wrap_array
from .codegen import compile_program, inert
from .passes import drop_dead, fold_constants, has_late_guard, is_random, merge_common
from .program import generate
from .steps import Assign, Guard, Op, Print, Update
from .tensor_replay import run_on_tensors
from .trace import GuardFailed
from .transaction import run_as_transaction


class Program:
    """The recorded steps of one trace (one path through the Python code), ready to replay."""

    def __init__(self, name, tracer, outputs, skeleton):
        self.name = name
        self.n_args = tracer.n_args
        self.skeleton = skeleton
        self.unsupported = tracer.unsupported
        self.created = list(tracer.created)
        output_slots = {s for is_slot, s in outputs if is_slot}
        self.consts = dict(tracer.consts)
        steps = fold_constants(drop_dead(tracer.steps, output_slots), self.consts)
        # A replay on tensors (tensor_replay.py) runs every step as traced: an outer tape then
        # sums the gradients of repeated steps as it does in eager mode, bit for bit.
        self.traced = (steps, outputs)
        self.steps, merged = merge_common(steps, self.consts)
        self.outputs = [(True, merged.get(s, s)) if is_slot else (False, s) for is_slot, s in outputs]
        guards = [s for s in self.steps if type(s) is Guard]
        # What each guard must see, in program order: programs of one signature that agree
        # on the first k outcomes made the same first k+1 decisions (function.py).
        self.guard_outcomes = tuple(g.outcome for g in guards)
        self.guard_sites = tuple(g.site for g in guards)
        self.transactional = has_late_guard(self.steps)
        written = {id(s.variable): s.variable for s in self.steps if type(s) in (Assign, Update)}
        self.written = [written[k] for k in sorted(written)]   # lock order: by id, always
        # Locks an eager step holds (an optimizer's): held through the whole replay, in one order.
        self.locks = [lock for _, lock in sorted(tracer.locks.items())]
        self.draws = any(type(s) is Op and is_random(s.op) for s in self.steps)
        self._code = self._fn = None   # generated and compiled at the first replay
        # A program that only computes (no writes, prints or random draws) may write a step's
        # result into a dead input's array (passes.donors); it can always run again without that.
        self.pure = not self.draws and not any(type(s) in (Assign, Update, Print) for s in self.steps)
        self._plain = None
        self._n_slots_out = sum(1 for is_slot, _ in outputs if is_slot)
        self._single = len(outputs) == 1 and outputs[0][0] and skeleton is None
        self.tensor_consts = None   # the constants as tensors: tensor_replay.py, at its first run

    @property
    def code(self):
        """The program as Python source (program.generate): what run_fast runs."""
        if self._code is None:
            self._code, self._globals, self._fn_name = generate(self, donate=self.pure)
        return self._code

    def _compile(self):
        # A trace that is never replayed (a check run, a Python float new at every call)
        # never pays for generating and compiling its source.
        self._fn = compile_program(self.code, self._globals, self._fn_name, self.name)

    def run_fast(self, arg_values):
        """Replay on NumPy arrays: the generated function, nothing else."""
        if self._fn is None:
            self._compile()
        if hints[UNDO] and state.undo is not None:   # in writes.all_or_nothing: log what it writes
            state.undo.extend([(v, v._value) for v in self.written])
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
            out = run_as_transaction(self._fn, arg_values, self.written, self.draws)
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
            return wrap_array(out)
        out = iter((out,) if self._n_slots_out == 1 else out)
        return self.pack([wrap_array(next(out)) if is_slot else s for is_slot, s in self.outputs])

    def _without_donation(self):
        """The program with every result in a new array: what a pure program runs again when
        its replay raised. A step that writes into a dead input's array (passes.donors) raises
        where the arrays' shapes at this call differ from the trace's (an input_signature with
        None, a data-dependent shape); this run gives eager's result, or eager's error."""
        if self._plain is None:
            source, g, fn_name = generate(self, donate=False)
            self._plain = compile_program(source, g, fn_name, self.name)
        return self._plain

    def run_tensors(self, arg_tensors):
        """Replay op by op on tensors, so the active tapes and accumulators record it
        (tensor_replay.py)."""
        return run_on_tensors(self, arg_tensors)

    def pack(self, leaves):
        """The result's leaves, packed into the nesting the traced call returned."""
        return leaves[0] if self.skeleton is None else nest.pack_like(self.skeleton, leaves)

    def __str__(self):
        return self.code

    def __repr__(self):
        return (f"<tk.function program {inert(self.name)}: {self.n_args} tensor argument(s), "
                f"{len(self.steps)} steps, {len(self.guard_outcomes)} guard(s)>\n{self.code}")
