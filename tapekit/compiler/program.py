"""Program: one trace of a tk.function (one path through its Python code), made runnable.

`Program` takes a `trace.Tracer`'s steps (steps.py), runs the passes over them once
(passes.py: drop what no call needs, fold what depends on constants only, compute a
repeated step once, find late guards), and replays them:
- nothing records (no tape or accumulator active): `run_fast`, the program generated as
  Python source (`generate`: one line per step, each kind's `emit`), compiled once
  (codegen.compile_program) and called on NumPy arrays. A program with a guard after a
  write, a draw or a print runs as a transaction (`_run_as_transaction`), and so does one
  that writes and donates (a step writes into a dead input's array, passes.donors);
- a tape or accumulator is active: `run_tensors`, each step run as ops on tensors (each
  kind's `run`), so an outer tape can differentiate through the call.

The generated code frees each slot after its last reader (`del`). See docs/PERFORMANCE.md
for what these are worth.

**Side effects before a failed guard.** Ops are pure, so a replay that stops at a guard can
simply start again; variable writes, random draws and tk.print are not. A transaction holds
the locks of the variables it writes (in id order), holds back its prints, and on a failed
guard puts the variables' values and the random streams back as they were, so the fallback
starts from exactly the state the call found.
"""
import numpy as np

from .. import nest
from ..context import UNDO, hints, state
from ..random import restore_state, save_state
from ..tensor import wrap_array
from .codegen import Namespace, clip, compile_program, inert, literal
from .passes import donors, drop_dead, fold_constants, has_late_guard, is_random, liveness, merge_common
from .steps import Assign, Call, Guard, GuardFailed, Op, Print, Update, held_prints, hold_prints, show_print
from .trace import hold_in_traces


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
        # A replay on tensors (run_tensors) runs every step as traced: an outer tape then
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
        if self.transactional and any(type(s) is Call for s in self.steps):
            # A transaction undoes the writes it made itself, not those of a py_function's
            # Python: such a program is not replayed, the function runs eagerly.
            self.unsupported = self.unsupported or "tk.py_function before a Python decision " \
                "on a traced value"
        written = {id(s.variable): s.variable for s in self.steps if type(s) in (Assign, Update)}
        self.written = [written[k] for k in sorted(written)]   # lock order: by id, always
        # Locks an eager step holds (an optimizer's): held through the whole replay, in one order.
        self.locks = [lock for _, lock in sorted(tracer.locks.items())]
        self.draws = any(type(s) is Op and is_random(s.op) for s in self.steps)
        self._code = self._fn = None   # generated and compiled at the first replay
        # Steps that write their result into a dead input's array (passes.donors). Should
        # that fail at a call (a shape unlike the trace's), the program runs again without
        # donation; one that writes, draws or prints first undoes what it did: it runs as a
        # transaction, as a program with a late guard does. What a py_function's Python did
        # cannot be undone: a program that calls one never donates.
        # What no step may write into: the outputs (after merge_common renamed them) and the
        # constants; generate reads the same slots' last reads for its `del` lines.
        self.keep = {s for is_slot, s in self.outputs if is_slot} | set(self.consts)
        self.last_reads = liveness(self.steps, self.keep)[1]
        pure = not self.draws and not any(type(s) in (Assign, Update, Print, Call) for s in self.steps)
        calls = any(type(s) is Call for s in self.steps)
        self.donating = {} if calls else donors(self.steps, self.last_reads, self.keep)
        self.undo = self.transactional or (bool(self.donating) and not pure)
        self._plain = None
        self._n_slots_out = sum(1 for is_slot, _ in outputs if is_slot)
        self._single = len(outputs) == 1 and outputs[0][0] and skeleton is None
        self.tensor_consts = None   # the constants as tensors: made at the first run_tensors

    @property
    def code(self):
        """The program as Python source (generate): what run_fast runs."""
        if self._code is None:
            self._code, self._globals, self._fn_name = generate(self, self.donating, self.undo)
        return self._code

    def _compile(self):
        # A trace that is never replayed (a check run, a Python float new at every call)
        # never pays for generating and compiling its source.
        self._fn = compile_program(self.code, self._globals, self._fn_name, self.name)

    # --- the replay on NumPy arrays ------------------------------------------------------
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
        try:
            if self.undo:
                out = self._run_as_transaction(self._fn, arg_values, undo_any=bool(self.donating))
            else:
                out = self._fn(*arg_values)
        except GuardFailed:
            raise
        except Exception:
            if not self.donating:
                raise
            out = self._run_without_donation(arg_values)
        if self._single:
            return wrap_array(out)
        out = iter((out,) if self._n_slots_out == 1 else out)
        return self.pack([wrap_array(next(out)) if is_slot else s for is_slot, s in self.outputs])

    def _run_as_transaction(self, fn, arg_values, undo_any=False):
        """`fn` (the compiled program) on `arg_values`: all of it, or, if a guard fails, none
        of it (see the module's docstring). `undo_any`: undo on any exception, not only a
        failed guard (a donating program, which then runs again without donation)."""
        written = self.written
        locks = [v._lock for v in written]
        for lock in locks:
            lock.acquire()
        saved = [(v, v._value) for v in written]
        rng = save_state() if self.draws else None
        hold_prints()
        try:
            out = fn(*arg_values)
        except Exception as e:
            if not (undo_any or isinstance(e, GuardFailed)):
                raise
            for v, old in saved:
                v._value = old
            if rng is not None:
                restore_state(rng)
            raise
        finally:
            for lock in reversed(locks):
                lock.release()
            prints = held_prints()
        for printer, template, values in prints:
            show_print(printer, template, *values)
        return out

    def _run_without_donation(self, arg_values):
        """The program with every result in a new array: what a donating program runs when
        its replay raised (and, if it writes, draws or prints, was undone). A step that writes
        into a dead input's array (passes.donors) raises where the arrays' shapes at this call
        differ from the trace's (an input_signature with None, a data-dependent shape); this
        run gives eager's result, or eager's error."""
        if self._plain is None:
            source, g, fn_name = generate(self, {}, self.transactional)
            self._plain = compile_program(source, g, fn_name, self.name)
        if self.transactional:
            return self._run_as_transaction(self._plain, arg_values)
        return self._plain(*arg_values)

    # --- the replay on tensors -----------------------------------------------------------
    def run_tensors(self, arg_tensors):
        """Replay op by op on tensors (each step's `run`), so the active tapes and
        accumulators record the call as eager code would be recorded: an outer tape can
        differentiate through it, an outer tracer records its ops. A guard reads its tensor
        as the Python code did (bool(t), float(t)), so a tk.function tracing around this one
        records that decision too. Callers run transactional programs eagerly instead
        (function.py): undoing writes an outer tape saw is not safe."""
        for lock in self.locks:
            lock.acquire()
            hold_in_traces(lock)    # a tk.function tracing this call holds it in its replays
        try:
            if self.tensor_consts is None:
                self.tensor_consts = {
                    slot: (tensor if tensor is not None else wrap_array(value))
                    if isinstance(value, (np.ndarray, np.generic)) else value   # scalars stay weak
                    for slot, (value, tensor) in self.consts.items()}
            env = TensorEnv(self.tensor_consts)
            env.update(enumerate(arg_tensors))
            steps, outputs = self.traced   # before merge_common: each op as the tape saw it eagerly
            for step in steps:
                step.run(env)
            return self.pack([env[s] if is_slot else s for is_slot, s in outputs])
        finally:
            for lock in reversed(self.locks):
                lock.release()

    def pack(self, leaves):
        """The result's leaves, packed into the nesting the traced call returned."""
        return leaves[0] if self.skeleton is None else nest.pack_like(self.skeleton, leaves)

    def __str__(self):
        return self.code

    def __repr__(self):
        return (f"<tk.function program {inert(self.name)}: {self.n_args} tensor argument(s), "
                f"{len(self.steps)} steps, {len(self.guard_outcomes)} guard(s)>\n{self.code}")


class TensorEnv(dict):
    """slot -> tensor (or Variable, or Python scalar) while a replay runs on tensors."""
    guards_passed = 0


# --- the program's source -------------------------------------------------------------------

class Source:
    """What the lines of one program share while it is written: the identifiers, the
    globals they are bound in, the constants, the donating steps, the guards so far."""

    def __init__(self, consts, donating, transactional):
        self.names = Namespace()
        self.g = {"GuardFailed": GuardFailed, "dtype": np.dtype}
        self.consts = consts
        self.donating = donating      # {step index: the dead input slot it writes into}
        self.transactional = transactional
        self.n_guard = 0

    def ref(self, slot, inline=True):
        """A slot as the source reads it: `s3`, a constant's literal, or its global `c5`."""
        if slot in self.consts:
            value = self.consts[slot][0]
            lit = literal(value) if inline and not isinstance(value, np.ndarray) else None
            if lit is not None:
                return lit
            self.g[f"c{slot}"] = value
            return f"c{slot}"
        return f"s{slot}"

    def bind_variable(self, variable):
        return self.names.bind(self.g, variable._path or variable._name, variable)


def generate(program, donating, transactional):
    """(source, globals, name) of `program`: `name` is the generated function's identifier in
    `globals`. One line per step (its kind's `emit`, steps.py). `donating`: {step index:
    slot}, the steps that write their result into a dead input's array (passes.donors);
    `transactional`: the program runs as a transaction, which holds the locks its writes
    would take.

    Every identifier in the source is made by one `Namespace`: user text (a variable's
    path, an op's or the function's name) only suggests a readable name, and reaches the
    source otherwise only inside a comment, made inert by `inert`."""
    steps, last_reads = program.steps, program.last_reads
    source = Source(program.consts, donating, transactional)
    lines = []
    for k, step in enumerate(steps):
        line, comment = step.emit(k, source)
        lines.append(f"    {line:<36}  # {inert(comment)}" if comment else f"    {line}")
        if last_reads[k]:
            lines.append(f"    del {', '.join(f's{d}' for d in last_reads[k])}")
    results = [source.ref(s, inline=False) for is_slot, s in program.outputs if is_slot]
    lines.append(f"    return {results[0] if len(results) == 1 else '(' + ', '.join(results) + (',)' if results else ')')}")
    # Named last, so it is none of the names the body calls: `def add(...)` would replace the
    # op `add` in the globals it shares with them.
    fn_name = source.names.create(program.name, fallback="f")
    params = ", ".join(f"s{i}" for i in range(program.n_args))
    shown = "" if fn_name == program.name else f"  # tk.function {inert(clip(str(program.name)))}"
    lines.insert(0, f"def {fn_name}({params}):{shown}")
    return "\n".join(lines) + "\n", source.g, fn_name
