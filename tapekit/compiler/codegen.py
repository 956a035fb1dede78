"""The text of a traced program: its identifiers, its literals, its comments, its compile.

A program (program.generate writes it, one line per step) reads as Python:

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
array as `f32_1`, its name spelling its value), guards, checks and prints. This module
makes the text safe and readable: every identifier comes from a `Namespace`, user text
reaches the source only inside a comment made `inert`, values become `literal`s where
Python has one. `compile_program` turns the text into the function a replay calls (no
per-step dispatch); `f.get_concrete_function(x)` prints the same text and
`tk.autograph.to_code(f)` returns it. Nothing here knows what a step is.
"""
import builtins
import itertools
import keyword
import linecache
import math
import re
import unicodedata
import weakref

import numpy as np

_LITERAL_TYPES = (bool, int, str, type(None))


_programs = itertools.count()


def compile_program(source, g, fn_name, name):
    """Compile and run `source` in `g`; its function `fn_name`. The source is registered with
    linecache under a file name of its own, so a traceback through a replay shows the line
    that failed, with its comment (torch.fx does the same)."""
    filename = f"<tk.function {inert(clip(str(name), 60))} #{next(_programs)}>"
    code = compile(source, filename, "exec")
    # The program's ops are tapekit's, as in an eager call: warnings filters by module see
    # them so (tapekit/__init__.py hides NumPy's floating-point warnings raised in tapekit's
    # modules; a program without a module name showed them at every replay).
    g.setdefault("__name__", "tapekit.compiler.program")   # the module that writes them
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
# globals every program may use (program.py binds them): no made name is ever one of them.
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


def clip(text, most=80):
    return text if len(text) <= most else text[:most - 1] + "…"


def literal(v):
    """Python source that evaluates to `v`, or None when there is none this simple."""
    if isinstance(v, float) and type(v) is float:
        return repr(v) if math.isfinite(v) else None
    if type(v) in _LITERAL_TYPES:
        return repr(v)
    if isinstance(v, np.dtype):
        return f"dtype({v.name!r})"
    if isinstance(v, slice):
        parts = [literal(p) for p in (v.start, v.stop, v.step)]
        return None if None in parts else f"slice({', '.join(parts)})"
    if v is Ellipsis:
        return "Ellipsis"
    if type(v) is tuple:
        parts = [literal(p) for p in v]
        return None if None in parts else "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return None


def typed_number(names, g, value, dtype, written):
    """A Python number beside an array of `dtype` in a ufunc call, as a 0-d array of that dtype:
    `f32_1` for 1 or 1.0 beside float32, `f64_0_5` for 0.5 beside float64. The numbers are the
    same (NumPy casts the Python number to the array's dtype, NEP 50); the call is twice as
    fast (W1 under tk.function: 12%, PERFORMANCE.md).
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


def keyword_args(attrs):
    """`attrs` as keyword arguments in source (["axis=1", "keepdims=False"]), or None when
    one value has no literal (the program then passes a dict bound in its globals)."""
    out = []
    for k, v in attrs.items():
        lit = literal(v)
        if lit is None or not k.isidentifier():
            return None
        out.append(f"{k}={lit}")
    return out


def describe_guard(kind, outcome, arg):
    """A guard's comment: what Python read of `arg` and got while tracing."""
    if kind == "numpy":
        return f"{arg}.numpy() as traced"
    if kind == "float":
        return f"float({arg}) is {float.fromhex(outcome)!r}" if isinstance(outcome, str) \
            else f"float({arg}) fails"
    return f"{kind}({arg}) is {outcome!r}"


def short_site(site):
    """(file, line) as the comments show it: "model.py:12"."""
    filename, line = site
    return f"{filename.rsplit('/', 1)[-1]}:{line}"


def shown_name(variable):
    """A variable as the program's comments name it: a layer weight by its path
    ("dense/kernel", as two layers' kernels would otherwise read alike), else "w:0"."""
    return variable._path or variable.name
