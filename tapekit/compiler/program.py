"""What each kind of step does, in one place: its line of the program and its run on tensors.

    KINDS[type(step)].emit(step, k, source) -> (line, comment)   the generated program
    KINDS[type(step)].run(step, env)                             ops on tensors

`emit` writes the step as a line of Python (`generate` joins the lines into the program
that `replay.Program.run_fast` compiles and calls on NumPy arrays). `run` does the same as
ops on tensors, for a replay that the active tapes record (tensor_replay.py). A new kind
of step is a record in steps.py, the tracer hook that makes it (trace.py), and its two
functions and its row of KINDS here.

The functions a program's lines call for writes and prints are here too, beside their
kind: Assign and Update hold the variable's lock as eager code does, or not, inside a
transaction (transaction.py), which holds them all; a transaction's prints wait until it
has succeeded (`hold_prints`).
"""
import functools
import threading
from typing import Callable, NamedTuple

import numpy as np

from ..printing import print_
from ..tensor import _wrap
from .codegen import (Namespace, clip, describe_guard, inert, keyword_args, literal, short_site,
                      shown_name, typed_number)
from .passes import donors, liveness
from .steps import Assign, Check, Guard, Op, Print, Read, Update
from .trace import GUARD_KINDS, GuardFailed, fill_holes, outcome_of


class StepKind(NamedTuple):
    emit: Callable   # (step, k, Source) -> (line, comment): the step in the program's source
    run: Callable    # (step, TensorEnv): the step as ops on tensors


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


class TensorEnv(dict):
    """slot -> tensor (or Variable, or Python scalar) while a replay runs on tensors."""
    guards_passed = 0


# --- Op -------------------------------------------------------------------------------------

def _emit_op(step, k, source):
    args = [source.ref(i) for i in step.inputs]
    names, g, out = source.names, source.g, step.result
    if step.holes:
        fn = _with_holes(step.op.forward, step.attrs, len(step.inputs))
        name = names.bind(g, f"{step.op.name}_{out}", fn)
        holes = [f"s{h}" for h in step.holes]
        return f"s{out} = {name}({', '.join(args + holes)})", f"attributes filled from {', '.join(holes)}"
    kernel, dtype = step.kernel, step.dtype
    name = names.bind(g, step.op.name, kernel)
    if isinstance(kernel, np.ufunc) and dtype is not None and dtype.kind == "f":
        args = [typed_number(names, g, source.consts[i][0], dtype, a) if i in source.consts else a
                for i, a in zip(step.inputs, args)]
    if k in source.donating:
        d = source.donating[k]
        return f"s{out} = {name}({', '.join(args)}, s{d})", \
            f"written into s{d}'s array: nothing reads s{d} again"
    kw = keyword_args(step.attrs)
    if kw is None:
        g[f"a{out}"] = dict(step.attrs)
        kw = [f"**a{out}"]
    return f"s{out} = {name}({', '.join(args + kw)})", ""


def _with_holes(forward, attrs, n):
    return lambda *v: forward(*v[:n], **fill_holes(attrs, v[n:]))


def _run_op(step, env):
    attrs = step.attrs
    if step.holes:
        attrs = fill_holes(attrs, [env[i]._value for i in step.holes])
    env[step.result] = step.op(*[env[i] for i in step.inputs], **attrs)


# --- Read -----------------------------------------------------------------------------------

def _emit_read(step, k, source):
    return f"s{step.result} = {source.bind_variable(step.variable)}._value", \
        f"read {shown_name(step.variable)}"


def _run_read(step, env):
    env[step.result] = step.variable   # the Variable itself: tapes watch it as in eager mode


# --- Assign and Update ----------------------------------------------------------------------

def _emit_assign(step, k, source):
    var = source.bind_variable(step.variable)
    fn = source.names.bind(source.g, "assign", _assign_unlocked if source.transactional else _assign)
    value = source.ref(step.value)
    return f"{fn}({var}, {value})", f"{shown_name(step.variable)} = {value}"


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


def _run_assign(step, env):
    _keep_earlier_reads(env, step.variable)
    step.variable.assign(env[step.value])


def _emit_update(step, k, source):
    var = source.bind_variable(step.variable)
    what, sign = ("assign_add", "+=") if step.ufunc is np.add else ("assign_sub", "-=")
    update = _update_unlocked if source.transactional else _update
    fn = source.names.bind(source.g, what, functools.partial(update, step.ufunc), key=(what, update))
    delta = source.ref(step.delta)
    return f"{fn}({var}, {delta})", f"{shown_name(step.variable)} {sign} {delta}"


def _update(ufunc, variable, delta):
    with variable._lock:   # read, update, write as one, as eager assign_add does
        variable._value = ufunc(variable._value, delta)


def _update_unlocked(ufunc, variable, delta):
    variable._value = ufunc(variable._value, delta)


def _run_update(step, env):
    _keep_earlier_reads(env, step.variable)
    (step.variable.assign_add if step.ufunc is np.add else step.variable.assign_sub)(env[step.delta])


def _keep_earlier_reads(env, variable):
    """Earlier reads of `variable` keep the value they read (a Read put the Variable itself)."""
    for k, v in env.items():
        if v is variable:
            env[k] = _wrap(variable._value, variable._tid)


# --- Check ----------------------------------------------------------------------------------

def _emit_check(step, k, source):
    name = source.names.bind(source.g, f"check_{k}", step.check, key=("check", k))
    return f"{name}({source.ref(step.value)})", "tk.debugging.check_numerics"


def _run_check(step, env):
    step.check(env[step.value]._value)


# --- Guard ----------------------------------------------------------------------------------

def _emit_guard(step, k, source):
    n = source.n_guard
    source.n_guard += 1
    name = source.names.bind(source.g, f"guard_{n}", _guard(n, step.kind, step.outcome),
                             key=("guard", k))
    value = source.ref(step.value)
    return f"{name}({value})", \
        f"{describe_guard(step.kind, step.outcome, value)} at {short_site(step.site)}, else trace again"


def _guard(n, kind, expected):
    def guard(value):
        got = outcome_of(kind, value)
        if got != expected:
            raise GuardFailed(n, got)
    guard.__name__ = f"guard_{n}"
    return guard


def _run_guard(step, env):
    tensor = env[step.value]
    _PYTHON_READS[step.kind](tensor)    # the same Python read, seen by outer tracers
    got = outcome_of(step.kind, tensor._value)
    if got != step.outcome:
        raise GuardFailed(env.guards_passed, got)
    env.guards_passed += 1


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


# --- Print ----------------------------------------------------------------------------------

def _emit_print(step, k, source):
    show = _buffer_print if source.transactional else show_print
    name = source.names.bind(source.g, f"print_{k}", functools.partial(show, step.printer, step.template),
                             key=("print", k))
    args = [source.ref(i) for i in step.values]
    shown = ", ".join(args[v] if is_slot else clip(repr(v)) for is_slot, v in step.template)
    return f"{name}({', '.join(args)})", f"tk.print({shown})"


def show_print(printer, template, *values):
    """What a program's tk.print line calls: print the items now."""
    values = _fill(template, values)
    printer.show([np.asarray(v) if is_slot else v for (is_slot, _), v in zip(template, values)])


def _fill(template, values):
    return [values[v] if is_slot else v for is_slot, v in template]


_held = threading.local()   # a transaction's prints, shown once it succeeds


def hold_prints():
    """From now on (in this thread) a transactional program's prints wait in a list."""
    _held.prints = []


def held_prints():
    """The prints held since hold_prints, as (printer, template, values); holds no more."""
    prints, _held.prints = _held.prints, None
    return prints


def _buffer_print(printer, template, *values):
    _held.prints.append((printer, template, values))


def _run_print(step, env):
    p = step.printer
    print_(*_fill(step.template, [env[i] for i in step.values]), sep=p.sep, end=p.end,
           output_stream=p.stream, summarize=p.summarize)


KINDS = {
    Op: StepKind(_emit_op, _run_op),
    Read: StepKind(_emit_read, _run_read),
    Assign: StepKind(_emit_assign, _run_assign),
    Update: StepKind(_emit_update, _run_update),
    Check: StepKind(_emit_check, _run_check),
    Guard: StepKind(_emit_guard, _run_guard),
    Print: StepKind(_emit_print, _run_print),
}


def generate(program, donate=False):
    """(source, globals, name) of `program` (a replay.Program): `name` is the generated
    function's identifier in `globals`. `donate`: a step may write its result into a dead
    input's array (passes.donors).

    Every identifier in the source is made by one `Namespace`: user text (a variable's
    path, an op's or the function's name) only suggests a readable name, and reaches the
    source otherwise only inside a comment, made inert by `inert`."""
    steps = program.steps
    keep = {s for is_slot, s in program.outputs if is_slot} | set(program.consts)
    _, last_reads = liveness(steps, keep)
    source = Source(program.consts, donors(steps, last_reads, keep) if donate else {},
                    program.transactional)
    lines = []
    for k, step in enumerate(steps):
        line, comment = KINDS[type(step)].emit(step, k, source)
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
