"""The public API of tapekit, computed from the package, and the API reference pages built from it.

One definition of "public" serves the site (docs/api/*.rst are generated from it at build
time) and the tests (tests/site/ import this file), so the pages and their checks cannot drift:

- a namespace's public names are its ``__all__`` when it has one; otherwise every name not
  starting with ``_`` that is defined in that module (imported helpers such as ``np`` or
  ``convert_to_tensor`` are not its names);
- ``tapekit`` itself (``tk``) exports everything that is not a module: the names its
  ``__init__`` imports on purpose;
- an op (``tk.sin``) is a record of the op table, not a function, so it cannot carry a
  docstring of its own: its reference entry shows the record's ``doc`` and the examples
  for it in the docstring of the module that defines it (``tapekit/ops/transcendental.py``).
"""
import ast
import doctest
import functools
import importlib
import inspect
import re
import types
from pathlib import Path

import numpy as np

# (module, title, what it is): the order of the API reference.
NAMESPACES = [
    ("tapekit", "tk", "tensors, variables, GradientTape, ops, dtypes"),
    ("tapekit.math", "tk.math", "every math function (the same objects as tk.*)"),
    ("tapekit.nn", "tk.nn", "activations, convolution, pooling, cross-entropy"),
    ("tapekit.linalg", "tk.linalg", "matrices: solve, inv, det, norms, einsum"),
    ("tapekit.random", "tk.random", "seeded random tensors, Generator"),
    ("tapekit.train", "tk.train", "checkpoints: Checkpoint, CheckpointManager"),
    ("tapekit.keras.layers", "tk.layers", "Keras-style layers"),
    ("tapekit.keras.models", "tk.models", "Model, Sequential"),
    ("tapekit.keras.losses", "tk.losses", "loss functions and classes"),
    ("tapekit.keras.optimizers", "tk.optimizers", "SGD, Adam, RMSprop"),
    ("tapekit.keras.saving", "tk.saving", "register_keras_serializable (a registry; no files)"),
    ("tapekit.image", "tk.image", "adjust_contrast (an op without a gradient)"),
    ("tapekit.display", "tk.display", "pictures of the tape, explanations"),
    ("tapekit.widgets", "tk.widgets", "interactive views and their models"),
    ("tapekit.debugging", "tk.debugging", "NaN and Inf hunting"),
    ("tapekit.errors", "tk.errors", "error types with TensorFlow's names"),
    ("tapekit.test", "tk.test", "gradient checks against finite differences"),
    ("tapekit.testing", "tk.testing", "the finite-difference helpers behind tk.test"),
]


def public_names(modname):
    """The public names of one namespace, sorted."""
    mod = importlib.import_module(modname)
    if hasattr(mod, "__all__"):
        return sorted(mod.__all__)
    names = []
    for name, obj in vars(mod).items():
        if name.startswith("_") or isinstance(obj, types.ModuleType):
            continue
        if modname == "tapekit" or getattr(obj, "__module__", None) == modname:
            names.append(name)
    return sorted(names)


def all_public():
    """[(qualified name such as 'tapekit.math.sin', object)] over every namespace."""
    out = []
    for modname, _, _ in NAMESPACES:
        mod = importlib.import_module(modname)
        out += [(f"{modname}.{n}", getattr(mod, n)) for n in public_names(modname)]
    return out


def is_op(obj):
    from tapekit.ops.registry import Op
    return isinstance(obj, Op)


def home(qualname, obj):
    """Where an object is documented in full: the first namespace (in NAMESPACES order)
    that exports it. Others list it as an alias linking there."""
    for modname, _, _ in NAMESPACES:
        mod = importlib.import_module(modname)
        for n in public_names(modname):
            if getattr(mod, n) is obj:
                return f"{modname}.{n}"
    return qualname


def op_module(op):
    """The module under tapekit/ops/ that defines op (``sin = unary("sin", ...)``): its docstring
    holds op's examples. Modules that only import it are skipped."""
    # the package, from sys.modules: `import tapekit.ops as p` gives tk.ops, keras.ops
    ops_pkg = importlib.import_module("tapekit.ops")
    for path in sorted(Path(ops_pkg.__file__).parent.glob("[!_]*.py")):
        mod = importlib.import_module(f"tapekit.ops.{path.stem}")
        names = [n for n, v in vars(mod).items() if v is op]
        source = path.read_text()
        if any(re.search(rf"^{re.escape(n)}\s*=", source, re.M) for n in names):
            return mod
    return None


def borrowed_from(obj):
    """For an object that cannot carry a docstring of its own (an op record, a NumPy dtype, a
    function whose docstring is made by code, such as reduce_sum's): the module whose
    docstring holds its examples. None for everything else."""
    if is_op(obj):
        return op_module(obj)
    if isinstance(obj, np.dtype):
        return importlib.import_module("tapekit.dtypes")
    if obj is None:       # tk.newaxis, the one constant that is None
        return importlib.import_module("tapekit.ops.indexing")
    if inspect.isfunction(obj) and obj.__doc__:
        mod = inspect.getmodule(obj)
        if mod is not None and inspect.cleandoc(obj.__doc__) not in _strings_in_source(mod):
            return mod
    return None


@functools.lru_cache(maxsize=None)
def _strings_in_source(mod):
    """Every string literal written in a module's source, as inspect.cleandoc gives it.
    Compared cleaned: Python 3.13 strips a docstring's indentation (a function's __doc__ is
    then no longer a substring of its source)."""
    return {inspect.cleandoc(node.value) for node in ast.walk(ast.parse(inspect.getsource(mod)))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def borrowed_examples(obj, name):
    """borrowed_paragraphs, flattened: one list of doctest examples."""
    return [e for paragraph in borrowed_paragraphs(obj, name) for e in paragraph]


def borrowed_paragraphs(obj, name):
    """The doctest examples of such an object: the paragraphs of `>>>` examples in its module's
    docstring (separated by blank lines) where one example's source names ``tk.<name>`` (or
    ``tk.nn.<name>``), each example with its expected output."""
    mod = borrowed_from(obj)
    doc = (mod.__doc__ or "") if mod else ""
    pattern = re.compile(rf"\btk\.(nn\.)?{re.escape(name)}\b")
    found = []
    for paragraph in re.split(r"\n\s*\n", doc):
        examples = doctest.DocTestParser().get_examples(paragraph)
        if any(pattern.search(e.source) for e in examples):
            found.append(examples)
    return found


def docstring_of(qualname, obj):
    """The text shown as this name's documentation (an op's is built from its record)."""
    if is_op(obj):
        args = ", ".join(obj.args) if not obj.variadic else "values"
        return getattr(obj, "doc", None) or f"The op ``{obj.name}({args})`` (examples on its entry)."
    if isinstance(obj, np.dtype):
        return f"The NumPy dtype {obj.name}."
    return inspect.getdoc(obj) or ""


def has_example(qualname, obj):
    if borrowed_from(obj) is not None:
        return bool(borrowed_examples(obj, qualname.rsplit(".", 1)[1]))
    return ">>>" in docstring_of(qualname, obj)


# --- the generated pages ----------------------------------------------------------------

def _op_entry(qualname, op):
    name = qualname.rsplit(".", 1)[1]
    args = ", ".join(list(op.args) + ["name=None"]) if not op.variadic else "values, name=None"
    lines = [f".. py:function:: {name}({args})", ""]
    if op.doc:
        lines += [f"   {op.doc}", ""]
    mod = borrowed_from(op)
    if mod is not None and mod.__doc__:
        lines += [f"   From ``{mod.__name__}``: {mod.__doc__.strip().splitlines()[0]}", ""]
    diff = [a for i, a in enumerate(op.args) if op.differentiable_input(i)] if op.differentiable else []
    lines += [f"   An op of the table (``tapekit.ops.registry.OPS[{name!r}]``): "
              + (f"differentiable in ``{'``, ``'.join(diff)}``." if diff else "no gradient flows through it."),
              ""]
    return lines + _example_lines(op, name)


def _example_lines(obj, name):
    lines = []
    paragraphs = borrowed_paragraphs(obj, name)
    if paragraphs:
        lines += [f"   Examples (from the docstring of ``{borrowed_from(obj).__name__}``):", ""]
    for examples in paragraphs:
        for e in examples:
            for k, src in enumerate(e.source.rstrip("\n").split("\n")):
                lines.append(("   >>> " if k == 0 else "   ... ") + src)
            for out in e.want.rstrip("\n").split("\n") if e.want else []:
                lines.append("   " + out)
        lines.append("")
    return lines


def _dtype_entry(qualname, dtype):
    name = qualname.rsplit(".", 1)[1]
    lines = [f".. py:data:: {name}", f"   :value: numpy.dtype({dtype.name!r})", "",
             f"   The NumPy dtype ``{dtype.name}`` (tapekit's dtypes are NumPy's).", ""]
    return lines + _example_lines(dtype, name)


def _alias_entry(qualname, target):
    # the short name under `.. currentmodule::`: its id is then the qualified name
    return [f".. py:data:: {qualname.rsplit('.', 1)[1]}", "   :annotation:", "",
            f"   The same object as :py:obj:`{target}`.", ""]


def _entry(qualname, obj):
    if is_op(obj):
        return _op_entry(qualname, obj)
    if inspect.isfunction(obj) and borrowed_from(obj) is not None:
        return [f".. autofunction:: {qualname}", ""] + _example_lines(obj, qualname.rsplit(".", 1)[1])
    if obj is None:
        name = qualname.rsplit(".", 1)[1]
        return [f".. py:data:: {name}", "   :value: None", "",
                f"   ``x[tk.{name}]`` adds an axis of size 1, as ``x[None]`` does.", ""] + \
            _example_lines(obj, name)
    if borrowed_from(obj) is not None:
        return _dtype_entry(qualname, obj)
    if inspect.isclass(obj):
        return [f".. autoclass:: {qualname}", "   :members:", *_mixin_members(obj), ""]
    if callable(obj):
        return [f".. autofunction:: {qualname}", ""]
    return [f".. autodata:: {qualname}", "   :annotation:", ""]


# Bases whose public methods are tapekit's internal protocol, not the API of the classes that
# have them: Recorder's record_* hooks, through which a tape and tk.function's tracer record.
_PROTOCOLS = {"Recorder"}


def _mixin_members(cls):
    """The option that also lists what `cls` has from tapekit's own mixins, which the reference
    does not document apart (Layer's add_weight is LayerWeights's, its get_config LayerConfig's).
    Sphinx lists inherited members up to the first base named here: the documented classes and
    every class from outside tapekit (Exception's, ipywidgets')."""
    documented = {id(obj) for _, obj in all_public() if inspect.isclass(obj)}
    bases = cls.__mro__[1:]
    stops = [c for c in bases if id(c) in documented or c.__name__ in _PROTOCOLS
             or not c.__module__.startswith("tapekit.")]
    mixins = bases[:bases.index(stops[0])]
    if not mixins:
        return []
    return [f"   :inherited-members: {', '.join(dict.fromkeys(c.__name__ for c in stops))}"]


def write_pages(outdir):
    """docs/api/<namespace>.rst for each namespace and docs/api/index.rst. Files are rewritten
    only when their text changes, so Sphinx's incremental build stays incremental."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    pages = {}
    toc = []
    for modname, title, what in NAMESPACES:
        names = public_names(modname)
        mod = importlib.import_module(modname)
        heading = f"``{title}``: {what}"
        lines = [heading, "=" * len(heading), "",
                 f".. py:module:: {modname}", "",
                 f".. currentmodule:: {modname}", ""]
        lines += [".. rubric:: Summary", "", ".. list-table::", "   :widths: 30 70", ""]
        for n in names:
            obj = getattr(mod, n)
            target = home(f"{modname}.{n}", obj)
            first = docstring_of(target, obj).strip().split("\n")[0] or " "
            first = first.replace("|", "\\|")
            lines += [f"   * - :py:obj:`{title}.{n} <{target}>`", f"     - {first}"]
        lines.append("")
        for n in names:
            obj = getattr(mod, n)
            qual = f"{modname}.{n}"
            target = home(qual, obj)
            lines += _alias_entry(qual, target) if target != qual else _entry(qual, obj)
        page = modname.replace("tapekit", "tk")
        pages[page] = "\n".join(lines) + "\n"
        toc.append(page)
    pages["index"] = "\n".join(
        ["API reference", "=============", "",
         "Every public name of tapekit, generated from the package (``docs/_ext/tapekit_api.py``)",
         "and its docstrings. The examples are doctests: ``make test`` runs them.", "",
         ".. toctree::", "   :maxdepth: 1", ""] + [f"   {p}" for p in toc]) + "\n"
    for page, text in pages.items():
        path = outdir / f"{page}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    for stale in outdir.glob("*.rst"):
        if stale.stem not in pages:
            stale.unlink()
    return sorted(pages)
