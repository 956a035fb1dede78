"""A traced program as Python source: one line per step, compiled and run as the replay.

    def f(s0, s1):
        s2 = w._value                       # read w:0
        s3 = matmul(s0, s2)
        guard_0(s3)                         # bool(...) was True at model.py:12; else trace again
        s5 = subtract(f32_1, s4)
        s6 = tanh(s5, s5)                   # written into s5's array: nothing reads s5 again
        assign_sub(w, s7)                   # w:0 -= s7
        del s3
        return s9

Each name in the source is bound in the function's globals: the ops' NumPy forwards
(by op name), the variables (by their paths), constants (`c5`; a number beside a float32
array as `f32_1`, its name spelling its value), guards, checks and
prints. `generate` returns the source and those globals; `compile_program` execs it.
This is the replay itself (no per-step dispatch) and what a learner reads:
`f.get_concrete_function(x)` prints it and `tk.autograph.to_code(f)` returns it.
"""
import builtins
import functools
import itertools
import keyword
import linecache
import math
import re
import unicodedata
import weakref

import numpy as np

from .trace import ASSIGN, CHECK, GUARD, OP, PRINT, READ, UPDATE, GuardFailed, fill_holes, \
    outcome_of

_LITERAL_TYPES = (bool, int, str, type(None))


def generate(program, stores, donate=False):
    """(source, globals, name) of `program`: `name` is the generated function's identifier in
    `globals`. `stores` = (assign, update, show) functions to bind; `donate`: a step may write
    its result into a dead input's array (`_donors`).

    Every identifier in the source is made here, by one `Namespace`: user text (a variable's
    path, an op's or the function's name) only suggests a readable name, and reaches the
    source otherwise only inside a comment, made inert by `inert`."""
    assign, update, show = stores
    names = Namespace()
    g = {"GuardFailed": GuardFailed, "dtype": np.dtype}
    keep = {s for is_slot, s in program.outputs if is_slot} | set(program.consts)
    dead = _dead_after(program.steps, keep)
    donors = _donors(program, dead, keep) if donate else {}
    lines = []

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
            fn = names.bind(g, "assign", assign)
            line, comment = f"{fn}({var}, {args[0]})", f"{_shown(obj)} = {args[0]}"
        elif kind is UPDATE:
            var = names.bind(g, obj._path or obj._name, obj)
            what = "assign_add" if attrs is np.add else "assign_sub"
            fn = names.bind(g, what, functools.partial(update, attrs), key=(what, update))
            sign = "+=" if what == "assign_add" else "-="
            line, comment = f"{fn}({var}, {args[0]})", f"{_shown(obj)} {sign} {args[0]}"
        elif kind is CHECK:
            name = names.bind(g, f"check_{k}", obj, key=("check", k))
            line, comment = f"{name}({args[0]})", "tk.debugging.check_numerics"
        elif kind is GUARD:
            name = names.bind(g, f"guard_{n_guard}", _guard(n_guard, obj, attrs), key=("guard", k))
            line = f"{name}({args[0]})"
            comment = f"{_describe_guard(obj, attrs, args[0])} at {_site(out)}, else trace again"
            n_guard += 1
        else:  # PRINT
            name = names.bind(g, f"print_{k}", functools.partial(show, obj, attrs), key=("print", k))
            shown = ", ".join(args[v] if is_slot else _clip(repr(v)) for is_slot, v in attrs)
            line, comment = f"{name}({', '.join(args)})", f"tk.print({shown})"
        lines.append(f"    {line:<36}  # {inert(comment)}" if comment else f"    {line}")
        if dead[k]:
            lines.append(f"    del {', '.join(f's{d}' for d in sorted(dead[k]))}")
    results = [ref(s, inline=False) for is_slot, s in program.outputs if is_slot]
    lines.append(f"    return {results[0] if len(results) == 1 else '(' + ', '.join(results) + (',)' if results else ')')}")
    # Named last, so it is none of the names the body calls: `def add(...)` would replace the
    # op `add` in the globals it shares with them.
    fn_name = names.create(program.name, fallback="f")
    params = ", ".join(f"s{i}" for i in range(program.n_args))
    shown = "" if fn_name == program.name else f"  # tk.function {inert(_clip(str(program.name)))}"
    lines.insert(0, f"def {fn_name}({params}):{shown}")
    return "\n".join(lines) + "\n", g, fn_name


_programs = itertools.count()


def compile_program(source, g, fn_name, name):
    """Compile and run `source` in `g`; its function `fn_name`. The source is registered with
    linecache under a file name of its own, so a traceback through a replay shows the line
    that failed, with its comment (torch.fx does the same)."""
    filename = f"<tk.function {inert(_clip(str(name), 60))} #{next(_programs)}>"
    code = compile(source, filename, "exec")
    while _collected:       # the entries of programs that are gone (see below)
        linecache.cache.pop(_collected.pop(), None)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(code, g)  # noqa: S102 - our own generated source: every identifier made by Namespace
    fn = g[fn_name]
    # The entry goes after the function does (no growth with every retrace of a long session),
    # at the next compile: not from the finalizer, which the garbage collector may run while
    # linecache.checkcache walks the cache's keys (a KeyError in a traceback or a doctest).
    weakref.finalize(fn, _collected.append, filename)
    return fn


_collected = []   # linecache file names of collected programs, dropped at the next compile


# --- identifiers ---------------------------------------------------------------------------

# Names the generator writes by pattern (slots s3, constants c5, attribute dicts a7) and the
# globals every program may use: no made name is ever one of them.
_PATTERN = re.compile(r"[sca]\d+")
_FIXED = frozenset({"GuardFailed", "dtype"})
_MAX_LEN = 40


def _taken_by_python(ident):
    return (keyword.iskeyword(ident) or keyword.issoftkeyword(ident) or ident in _BUILTINS
            or ident == "__debug__")


_BUILTINS = frozenset(dir(builtins))


class Namespace:
    r"""The identifiers of one generated program, each made from a suggestion (torch.fx's
    `_Namespace` is the model).

    `create(text)` turns any text into an ASCII identifier: NFKC-normalized first (Python
    reads identifiers in NFKC form: `ﬁ` and `fi` are one name to it), every run of
    characters outside [A-Za-z0-9_] one `_`, no leading or trailing `_` (no dunders),
    clipped to 40 characters; a keyword or builtin gets PEP 8's trailing `_` (`pow_`; a
    `__debug__` has lost its underscores already); then, if it is a name the generator
    writes by pattern (`s3`, `c5`, `a7`) or one this program already uses, `_2`, `_3`, ...
    until it is new. So `dense/kernel` stays `dense_kernel`, two variables `ﬁ` and `fi`
    become `fi` and `fi_2`, and a name of line breaks and quotes becomes `v`.

    >>> from tapekit.compiler.codegen import Namespace
    >>> ns = Namespace()
    >>> [ns.create(t) for t in ["dense/kernel", "\ufb01", "fi", "print('x')\n#", "class", "s0", ""]]
    ['dense_kernel', 'fi', 'fi_2', 'print_x', 'class_', 's0_2', 'v']
    """

    def __init__(self):
        self._used = set(_FIXED)
        self._by_key = {}

    def create(self, text, fallback="v"):
        base = _clean(text) or fallback
        if base[0].isdigit():
            base = f"{fallback}_{base}"
        if _taken_by_python(base):
            base += "_"       # PEP 8's way around a keyword or builtin: `class_`, `pow_`
        ident, n = base, 1
        while ident in self._used or _PATTERN.fullmatch(ident):
            n += 1
            ident = f"{base}_{n}"
        self._used.add(ident)
        return ident

    def bind(self, g, text, obj, key=None):
        """The identifier of `obj` (the same object gets the same one), bound in `g`."""
        key = id(obj) if key is None else key
        ident = self._by_key.get(key)
        if ident is None:
            ident = self._by_key[key] = self.create(text)
            g[ident] = obj
        return ident

    def lookup(self, key):
        return self._by_key.get(key)

    def remember(self, key, ident):
        self._by_key[key] = ident


def _clean(text):
    s = re.sub(r"[^A-Za-z0-9_]+", "_", unicodedata.normalize("NFKC", str(text)))
    return re.sub(r"_+", "_", s).strip("_")[:_MAX_LEN].rstrip("_")


# Characters Python (str.splitlines) or an editor treats as a line break, or that are not
# printable (NUL, other controls, format characters such as bidi overrides, lone surrogates).
def inert(text):
    r"""`text` safe inside a `#` comment: one line, every character printable. A backslash
    and each character that is not printable become escapes (`\n`, `\x00`, `\u2028`,
    `\ud800`), so nothing is dropped and the escaped text reads back unambiguously.

    >>> from tapekit.compiler.codegen import inert
    >>> inert("w\n    print('INJECTED')  #\r\x00\u2028")
    "w\\n    print('INJECTED')  #\\r\\x00\\u2028"
    """
    text = str(text)
    if text.isprintable() and "\\" not in text:
        return text
    return "".join(_escape(c) for c in text)


def _escape(c):
    if c == "\\":
        return "\\\\"
    if c.isprintable():
        return c
    code = ord(c)
    if c in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _clip(text, most=80):
    return text if len(text) <= most else text[:most - 1] + "…"


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
    ident = names.lookup(key)
    if ident is None:
        typed.flags.writeable = False
        shown = int(value) if type(value) is float and value.is_integer() and abs(value) < 1e16 else value
        tag = repr(shown).replace("-", "m").replace("+", "").replace(".", "_")
        ident = names.bind(g, f"{dtype.kind}{dtype.itemsize * 8}_{tag}", typed)
        names.remember(key, ident)
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
