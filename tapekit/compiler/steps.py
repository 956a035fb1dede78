"""The steps of a traced program: each kind of step in one place.

A program (trace.py records it) is a flat list of these over numbered slots: s0, s1, ...
are the tensor arguments, then each step's result, or a constant the trace captured.

    Op      result = op(inputs..., **attrs)         an op's forward (NumPy)
    Read    result = variable's value now
    Assign  variable = value
    Update  variable = ufunc(variable, delta)       assign_add (np.add) / assign_sub
    Check   check(value)                            tk.debugging.check_numerics
    Guard   kind(value) must give outcome           a Python decision on a traced value
    Print   printer shows template, values filled   tk.print, at every call

Each kind is a record whose fields are named for what they hold, and answers everything
asked of a step:
- for the passes (passes.py): `reads`, the slots it reads, `result`, the slot it writes
  (None when it writes none), and `effect`, whether it must run even when nothing reads
  its result;
- `emit(k, source)`: its line of the generated program, and a comment (program.generate
  joins the lines; `source` is the codegen.Source they share);
- `run(env)`: the same as ops on tensors, for a replay that the active tapes record.
Beside each kind: the functions its lines call (Assign and Update hold the variable's lock
as eager code does, or not, inside a transaction, which holds them all; a transaction's
prints wait until it has succeeded), and for Guard, `GuardFailed`, what a replay raises when
a decision goes the other way. A new kind of step is a class here and the tracer hook that
records it (trace.py).
"""
import functools
import threading
from typing import NamedTuple

import numpy as np

from ..printing import print_
from ..tensor import wrap_array
from .codegen import clip, describe_guard, keyword_args, short_site, shown_name, typed_number


class Hole:
    """An attribute array that is a traced tensor's value: filled in at every replay."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


def fill_holes(attrs, arrays):
    """`attrs` with each Hole replaced by its array (the traced tensor's value at this call)."""
    def fill(v):
        if isinstance(v, Hole):
            return arrays[v.k]
        if isinstance(v, tuple):
            return tuple([fill(x) for x in v])
        return v
    return {k: fill(v) for k, v in attrs.items()}


# --- Op -------------------------------------------------------------------------------------

class Op(NamedTuple):
    """`result = op(inputs..., **attrs)`. `holes`: the slots whose arrays fill the attrs' Holes
    (trace.py: an attribute that is a traced tensor's value, such as gather's indices in its
    gradient). `kernel` is what the program calls (op.forward, or a NumPy ufunc the forward
    chose for the traced shapes); `dtype` and `shape` are the traced result's (shape None:
    not an ndarray)."""
    op: object
    inputs: tuple
    attrs: dict
    holes: tuple
    result: int
    kernel: object
    dtype: object
    shape: object
    effect = False

    @property
    def reads(self):
        return self.inputs + self.holes

    def emit(self, k, source):
        args = [source.ref(i) for i in self.inputs]
        names, g, out = source.names, source.g, self.result
        if self.holes:
            fn = _with_holes(self.op.forward, self.attrs, len(self.inputs))
            name = names.bind(g, f"{self.op.name}_{out}", fn)
            holes = [f"s{h}" for h in self.holes]
            return f"s{out} = {name}({', '.join(args + holes)})", f"attributes filled from {', '.join(holes)}"
        kernel, dtype = self.kernel, self.dtype
        name = names.bind(g, self.op.name, kernel)
        if isinstance(kernel, np.ufunc) and dtype is not None and dtype.kind == "f":
            args = [typed_number(names, g, source.consts[i][0], dtype, a) if i in source.consts else a
                    for i, a in zip(self.inputs, args)]
        if k in source.donating:
            d = source.donating[k]
            return f"s{out} = {name}({', '.join(args)}, s{d})", \
                f"written into s{d}'s array: nothing reads s{d} again"
        kw = keyword_args(self.attrs)
        if kw is None:
            g[f"a{out}"] = dict(self.attrs)
            kw = [f"**a{out}"]
        return f"s{out} = {name}({', '.join(args + kw)})", ""

    def run(self, env):
        attrs = self.attrs
        if self.holes:
            attrs = fill_holes(attrs, [env[i]._value for i in self.holes])
        env[self.result] = self.op(*[env[i] for i in self.inputs], **attrs)


def _with_holes(forward, attrs, n):
    return lambda *v: forward(*v[:n], **fill_holes(attrs, v[n:]))


# --- Read -----------------------------------------------------------------------------------

class Read(NamedTuple):
    """`result = variable's value` at this point of the call."""
    variable: object
    result: int
    effect = False
    reads = ()

    def emit(self, k, source):
        return f"s{self.result} = {source.bind_variable(self.variable)}._value", \
            f"read {shown_name(self.variable)}"

    def run(self, env):
        env[self.result] = self.variable   # the Variable itself: tapes watch it as in eager mode


# --- Assign and Update ----------------------------------------------------------------------

class Assign(NamedTuple):
    """`variable.assign(value)`."""
    variable: object
    value: int
    effect = True
    result = None

    @property
    def reads(self):
        return (self.value,)

    def emit(self, k, source):
        var = source.bind_variable(self.variable)
        fn = source.names.bind(source.g, "assign", _assign_unlocked if source.transactional else _assign)
        value = source.ref(self.value)
        return f"{fn}({var}, {value})", f"{shown_name(self.variable)} = {value}"

    def run(self, env):
        _keep_earlier_reads(env, self.variable)
        self.variable.assign(env[self.value])


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


class Update(NamedTuple):
    """`variable.assign_add(delta)` (ufunc np.add) or `assign_sub` (np.subtract): one step
    that reads, updates and writes under the variable's lock."""
    variable: object
    ufunc: object
    delta: int
    effect = True
    result = None

    @property
    def reads(self):
        return (self.delta,)

    def emit(self, k, source):
        var = source.bind_variable(self.variable)
        what, sign = ("assign_add", "+=") if self.ufunc is np.add else ("assign_sub", "-=")
        delta = source.ref(self.delta)
        shown = f"{shown_name(self.variable)} {sign} {delta}"
        if k in source.donating:   # the new value goes into the dead delta's array (passes.donors)
            update = _update_into_unlocked if source.transactional else _update_into
            shown = f"{shown}, written into {delta}'s array: nothing reads {delta} again"
        else:
            update = _update_unlocked if source.transactional else _update
        fn = source.names.bind(source.g, what, functools.partial(update, self.ufunc), key=(what, update))
        return f"{fn}({var}, {delta})", shown

    def run(self, env):
        _keep_earlier_reads(env, self.variable)
        (self.variable.assign_add if self.ufunc is np.add else self.variable.assign_sub)(env[self.delta])


def _update(ufunc, variable, delta):
    with variable._lock:   # read, update, write as one, as eager assign_add does
        variable._value = ufunc(variable._value, delta)


def _update_unlocked(ufunc, variable, delta):
    variable._value = ufunc(variable._value, delta)


def _update_into(ufunc, variable, delta):
    with variable._lock:   # the variable now holds delta's array: this call made it, nobody else reads it
        variable._value = ufunc(variable._value, delta, delta)


def _update_into_unlocked(ufunc, variable, delta):
    variable._value = ufunc(variable._value, delta, delta)


def _keep_earlier_reads(env, variable):
    """Earlier reads of `variable` keep the value they read (a Read put the Variable itself)."""
    for k, v in env.items():
        if v is variable:
            env[k] = wrap_array(variable._value, variable._tid)


# --- Check ----------------------------------------------------------------------------------

class Check(NamedTuple):
    """`check(array)` raises if the value is bad (tk.debugging.check_numerics)."""
    check: object
    value: int
    effect = True
    result = None

    @property
    def reads(self):
        return (self.value,)

    def emit(self, k, source):
        name = source.names.bind(source.g, f"check_{k}", self.check, key=("check", k))
        return f"{name}({source.ref(self.value)})", "tk.debugging.check_numerics"

    def run(self, env):
        self.check(env[self.value]._value)


class Call(NamedTuple):
    """`results = call(inputs...)`: a tk.py_function, whose Python function runs at every
    replay (pycall.py). `call.run(tensors)` gives its outputs as tensors of their Tout
    dtypes (recorded by any tracer around a replay on tensors); `call.on_arrays` is what
    the program's line calls, on arrays. An effect: it may print,
    write variables or draw, so it always runs, and no pass moves or merges it."""
    call: object
    inputs: tuple
    results: tuple
    name: str
    effect = True
    result = None

    @property
    def reads(self):
        return self.inputs

    def emit(self, k, source):
        name = source.names.bind(source.g, f"py_function_{k}", self.call.on_arrays,
                                 key=("py_function", k))
        call = f"{name}({', '.join(source.ref(i) for i in self.inputs)})"
        outs = ", ".join(f"s{r}" for r in self.results)
        line = f"{outs}{',' if len(self.results) == 1 else ''} = {call}" if self.results else call
        return line, f"tk.py_function({self.name})"

    def run(self, env):
        env.update(zip(self.results, self.call.run([env[i] for i in self.inputs])))


# --- Guard ----------------------------------------------------------------------------------

class GuardFailed(Exception):
    """A replay reached guard `k` and the live value decided differently (`outcome`)."""

    def __init__(self, k, outcome):
        super().__init__(k, outcome)
        self.k, self.outcome = k, outcome


def _scalar_item(a):
    a = np.asarray(a)
    if a.size != 1:
        raise TypeError("not one element")
    return a.reshape(()).item()


# What each Python decision reads from a value (Tensor._scalar, Tensor.numpy), as a
# comparable outcome: floats by their bits (-0.0 is not 0.0, NaN equals NaN), arrays by
# shape, dtype and bytes.
GUARD_KINDS = {
    "bool": lambda a: bool(_scalar_item(a)),
    "int": lambda a: int(_scalar_item(a)),
    "index": lambda a: int(_scalar_item(a)),
    "float": lambda a: float(_scalar_item(a)).hex(),
    "numpy": lambda a: (np.shape(a), np.asarray(a).dtype.str, np.asarray(a).tobytes()),
}


def outcome_of(kind, value):
    """The guard outcome of `kind` on an array, or ("error",) if that raises (eager would)."""
    try:
        return GUARD_KINDS[kind](value)
    except (TypeError, ValueError, OverflowError):
        return ("error",)


class Guard(NamedTuple):
    """Python read `kind` of the value ("bool", "int", "index", "float", "numpy") and got
    `outcome` (outcome_of) at `site` (file, line); a call that reads otherwise takes
    another path."""
    kind: str
    value: int
    outcome: object
    site: tuple
    effect = True
    result = None

    @property
    def reads(self):
        return (self.value,)

    def emit(self, k, source):
        n = source.n_guard
        source.n_guard += 1
        name = source.names.bind(source.g, f"guard_{n}", _guard(n, self.kind, self.outcome),
                                 key=("guard", k))
        value = source.ref(self.value)
        return f"{name}({value})", \
            f"{describe_guard(self.kind, self.outcome, value)} at {short_site(self.site)}, else trace again"

    def run(self, env):
        tensor = env[self.value]
        _PYTHON_READS[self.kind](tensor)    # the same Python read, seen by outer tracers
        got = outcome_of(self.kind, tensor._value)
        if got != self.outcome:
            raise GuardFailed(env.guards_passed, got)
        env.guards_passed += 1


def _guard(n, kind, expected):
    def guard(value):
        got = outcome_of(kind, value)
        if got != expected:
            raise GuardFailed(n, got)
    guard.__name__ = f"guard_{n}"
    return guard


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

class Print(NamedTuple):
    """tk.print: `template` is one (is_slot, item) per printed item: (True, k) is the k-th of
    `values` (slots), (False, x) the Python value x as traced."""
    printer: object
    values: tuple
    template: tuple
    effect = True
    result = None

    @property
    def reads(self):
        return self.values

    def emit(self, k, source):
        show = _buffer_print if source.transactional else show_print
        name = source.names.bind(source.g, f"print_{k}",
                                 functools.partial(show, self.printer, self.template), key=("print", k))
        args = [source.ref(i) for i in self.values]
        shown = ", ".join(args[v] if is_slot else clip(repr(v)) for is_slot, v in self.template)
        return f"{name}({', '.join(args)})", f"tk.print({shown})"

    def run(self, env):
        p = self.printer
        print_(*_fill(self.template, [env[i] for i in self.values]), sep=p.sep, end=p.end,
               output_stream=p.stream, summarize=p.summarize)


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


KINDS = (Op, Read, Assign, Update, Check, Guard, Print, Call)   # every kind of step, in this order
