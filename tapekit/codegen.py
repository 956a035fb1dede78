"""A traced program as Python source: one line per step, compiled and run as the replay.

    def f(s0, s1):
        s2 = w._value                       # read w:0
        s3 = matmul(s0, s2)
        guard_0(s3)                         # bool(...) was True at model.py:12; else trace again
        s5 = subtract(f32_1, s4)
        s6 = tanh(s5, s5)                   # written into s5's array: nothing reads s5 again
        assign_sub(w, s7)                   # w:0 -= s7, under its lock
        del s3
        return s9

Each name in the source is bound in the function's globals: the ops' NumPy forwards
(by op name), the variables (by their paths), constants (`c5`; a number beside a float32
array as `f32_1`, its name spelling its value), guards, checks and
prints. `generate` returns the source and those globals; `compile_program` execs it.
This is the replay itself (no per-step dispatch) and what a learner reads:
`f.get_concrete_function(x)` prints it and `tk.autograph.to_code(f)` returns it.
"""
import functools
import keyword
import math
import re

import numpy as np

from .tracing import ASSIGN, CHECK, GUARD, OP, PRINT, READ, UPDATE, GuardFailed, fill_holes, \
    outcome_of

_LITERAL_TYPES = (bool, int, str, type(None))


def generate(program, stores, donate=False):
    """(source, globals) of `program`; `stores` = (assign, update, show) functions to bind;
    `donate`: a step may write its result into a dead input's array (`_donors`)."""
    assign, update, show = stores
    names = _Names()
    g = {"GuardFailed": GuardFailed, "dtype": np.dtype}
    keep = {s for is_slot, s in program.outputs if is_slot} | set(program.consts)
    dead = _dead_after(program.steps, keep)
    donors = _donors(program, dead, keep) if donate else {}
    lines = [f"def {_ident(program.name)}({', '.join(f's{i}' for i in range(program.n_args))}):"]

    def ref(slot, inline=True):
        if slot in program.consts:
            value = program.consts[slot][0]
            lit = _literal(value) if inline and not isinstance(value, np.ndarray) else None
            if lit is not None:
                return lit
            g[f"c{slot}"] = value
            return f"c{slot}"
        return f"s{slot}"

    n_guard = 0
    for k, (kind, obj, ins, attrs, out, holes) in enumerate(program.steps):
        args = [ref(i) for i in ins]
        if kind is OP:
            if holes:
                fn = _with_holes(obj.forward, attrs, len(ins))
                name = names.bind(g, f"{obj.name}_{out}", fn)
                line = f"s{out} = {name}({', '.join(args + [f's{h}' for h in holes])})"
                comment = f"attributes filled from {', '.join(f's{h}' for h in holes)}"
            else:
                kernel, dtype, _ = program.kernels.get(out, (obj.forward, None, None))
                name = names.bind(g, obj.name, kernel)
                if isinstance(kernel, np.ufunc) and dtype is not None and dtype.kind == "f":
                    args = [_typed_number(names, g, program.consts[i][0], dtype, a)
                            if i in program.consts else a for i, a in zip(ins, args)]
                kw = _kwargs(attrs)
                if kw is None:
                    g[f"a{out}"] = dict(attrs)
                    kw = [f"**a{out}"]
                line, comment = f"s{out} = {name}({', '.join(args + kw)})", ""
                if k in donors:
                    d = donors[k]
                    line = f"s{out} = {name}({', '.join(args)}, s{d})"
                    comment = f"written into s{d}'s array: nothing reads s{d} again"
        elif kind is READ:
            var = names.bind(g, obj._path or obj._name, obj)
            line, comment = f"s{out} = {var}._value", f"read {_shown(obj)}"
        elif kind is ASSIGN:
            var = names.bind(g, obj._path or obj._name, obj)
            g["assign"] = assign
            line, comment = f"assign({var}, {args[0]})", f"{_shown(obj)} = {args[0]}"
        elif kind is UPDATE:
            var = names.bind(g, obj._path or obj._name, obj)
            what = "assign_add" if attrs is np.add else "assign_sub"
            g[what] = functools.partial(update, attrs)
            sign = "+=" if what == "assign_add" else "-="
            line, comment = f"{what}({var}, {args[0]})", f"{_shown(obj)} {sign} {args[0]}, under its lock"
        elif kind is CHECK:
            name = names.bind(g, f"check_{k}", obj)
            line, comment = f"{name}({args[0]})", "tk.debugging.check_numerics"
        elif kind is GUARD:
            g[f"guard_{n_guard}"] = _guard(n_guard, obj, attrs)
            line = f"guard_{n_guard}({args[0]})"
            comment = f"{_describe_guard(obj, attrs, args[0])} at {_site(out)}, else trace again"
            n_guard += 1
        else:  # PRINT
            g[f"print_{k}"] = functools.partial(show, obj, attrs)
            shown = ", ".join(args[v] if is_slot else repr(v) for is_slot, v in attrs)
            line, comment = f"print_{k}({', '.join(args)})", f"tk.print({shown})"
        lines.append(f"    {line:<36}  # {comment}" if comment else f"    {line}")
        if dead[k]:
            lines.append(f"    del {', '.join(f's{d}' for d in sorted(dead[k]))}")
    results = [ref(s, inline=False) for is_slot, s in program.outputs if is_slot]
    lines.append(f"    return {results[0] if len(results) == 1 else '(' + ', '.join(results) + (',)' if results else ')')}")
    return "\n".join(lines) + "\n", g


def compile_program(source, g, name):
    code = compile(source, f"<tk.function {name}>", "exec")
    exec(code, g)  # noqa: S102 - our own generated source
    return g[_ident(name)]


class _Names:
    """Identifiers for ops and variables: the op's or variable's name, made unique."""

    def __init__(self):
        self.by_obj = {}
        self.used = set()

    def bind(self, g, name, obj, prefix=""):
        got = self.by_obj.get(id(obj))
        if got is not None:
            return got
        base = prefix + _ident(name)
        ident, n = base, 1
        while ident in self.used or ident in g:
            n += 1
            ident = f"{base}_{n}"
        self.used.add(ident)
        self.by_obj[id(obj)] = ident
        g[ident] = obj
        return ident


def _ident(name):
    s = re.sub(r"\W", "_", str(name)) or "f"
    if s[0].isdigit() or keyword.iskeyword(s) or re.fullmatch(r"[sca]\d+|guard_\d+|print_\d+", s) \
            or s in ("GuardFailed", "dtype", "assign", "assign_add", "assign_sub"):
        s = "op_" + s
    return s


def _literal(v):
    """Python source that evaluates to `v`, or None when there is none this simple."""
    if isinstance(v, float) and type(v) is float:
        return repr(v) if math.isfinite(v) else None
    if type(v) in _LITERAL_TYPES:
        return repr(v)
    if isinstance(v, np.dtype):
        return f"dtype({v.name!r})"
    if isinstance(v, slice):
        parts = [_literal(p) for p in (v.start, v.stop, v.step)]
        return None if None in parts else f"slice({', '.join(parts)})"
    if v is Ellipsis:
        return "Ellipsis"
    if type(v) is tuple:
        parts = [_literal(p) for p in v]
        return None if None in parts else "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return None


def _typed_number(names, g, value, dtype, written):
    """A Python number beside an array of `dtype` in a ufunc call, as a 0-d array of that dtype:
    `f32_1` for 1 or 1.0 beside float32, `f64_0_5` for 0.5 beside float64. The numbers are the same (NumPy casts the Python number to the
    array's dtype, NEP 50); the call is twice as fast (W1 under tk.function: 12%, PERFORMANCE.md).
    Anything else (arrays, bools, a number not finite in that dtype) stays as `written`."""
    if type(value) not in (int, float):
        return written
    with np.errstate(over="ignore"):
        typed = np.array(value, dtype=dtype)
    if not np.isfinite(typed):
        return written
    key = ("number", dtype.str, value)
    ident = names.by_obj.get(key)
    if ident is None:
        typed.flags.writeable = False
        shown = int(value) if type(value) is float and value.is_integer() and abs(value) < 1e16 else value
        tag = repr(shown).replace("-", "m").replace("+", "").replace(".", "_")
        ident = names.bind(g, f"{dtype.kind}{dtype.itemsize * 8}_{tag}", typed)
        names.by_obj[key] = ident
    return ident


def _kwargs(attrs):
    out = []
    for k, v in attrs.items():
        lit = _literal(v)
        if lit is None or not k.isidentifier():
            return None
        out.append(f"{k}={lit}")
    return out


def _with_holes(forward, attrs, n):
    return lambda *v: forward(*v[:n], **fill_holes(attrs, v[n:]))


def _guard(k, kind, expected):
    def guard(value):
        got = outcome_of(kind, value)
        if got != expected:
            raise GuardFailed(k, got)
    guard.__name__ = f"guard_{k}"
    return guard


def _describe_guard(kind, outcome, arg):
    if kind == "numpy":
        return f"{arg}.numpy() as traced"
    if kind == "float":
        return f"float({arg}) is {float.fromhex(outcome)!r}" if isinstance(outcome, str) \
            else f"float({arg}) fails"
    return f"{kind}({arg}) is {outcome!r}"


def _site(site):
    filename, line = site
    return f"{filename.rsplit('/', 1)[-1]}:{line}"


def _donors(program, dead, keep):
    """{step index: slot}: the ufunc steps that write their result into a dead input's array.

    Worth 10% on W1 under tk.function (PERFORMANCE.md). The input must be an array this call
    made and nobody else can hold: the result of an earlier ufunc step of this program (a
    ufunc's result is a new array, never a view), read only by ufunc steps (no view of it
    lives on), not an output, not a constant, and of the result's dtype and (traced) shape.
    Only pure programs donate (replay.py): when the shapes at a call differ from the trace's,
    NumPy refuses the write (the result must fill the input exactly) and the program runs
    again without donation."""
    kernels, steps = program.kernels, program.steps

    def ufunc_step(step):
        kind, _, ins, attrs, out, holes = step
        kernel = kernels.get(out, (None,))[0] if kind is OP else None
        return isinstance(kernel, np.ufunc) and kernel.nout == 1 and kernel.nin == len(ins) \
            and not attrs and not holes

    other_readers = set()
    for step in steps:
        if not ufunc_step(step):
            other_readers.update(step[2] + step[5])
    owned, donors = set(), {}
    for k, step in enumerate(steps):
        if not ufunc_step(step):
            continue
        out = step[4]
        _, dtype, shape = kernels[out]
        if shape is None:
            continue   # a NumPy scalar (0-d inputs): nothing to write into
        for i in step[2]:
            if i in owned and i in dead[k] and i not in keep and i not in other_readers \
                    and kernels[i][1:] == (dtype, shape):
                donors[k] = i
                break
        owned.add(out)
    return donors


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
    # A step's own output nobody reads (a check's None): nothing to free.
    return dead


def _shown(variable):
    """A variable as the program's comments name it: a layer weight by its path
    ("dense/kernel", as two layers' kernels would otherwise read alike), else "w:0"."""
    return variable._path or variable.name
