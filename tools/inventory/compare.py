"""Step 3: each name of data/api.json against tapekit; writes data/inventory.json and docs/names.md.

Runs with tapekit's venv from the root of a tapekit tree (no TensorFlow):

    .venv/bin/python tools/inventory/compare.py

For each name (API.md's contract: `tf.X` is `tk.X`; `keras.X` is `tk.X` after `import tapekit
as keras`, and `tk.keras.X`; `tf.keras.X` is `tk.X` and `tk.keras.X`; a member `tf.Tensor.numpy`
is `tk.Tensor.numpy`):
- present: some alias resolves in tapekit to an object of tapekit's (a module, class or
  function defined under `tapekit`, a dtype, an attribute of a tapekit instance): a NumPy
  function that a tapekit module happens to import does not count;
- its signature is TensorFlow's: the same parameter names in the same order, the same
  defaults and kinds (`self` aside). An op (`tapekit.ops.registry.Op`) is read as its forward
  function's inputs, taken by position only, plus `name=None`;
- for a function walk.py ran on a sample, tapekit's output on the same sample is TensorFlow's
  (samples.close: dtype, shape, values to rtol 1e-5).
Step 3 also writes tapekit/not_in_tapekit.json, the names tapekit refuses with a message that
says it lacks them (`refusals`): every name of a module (not a class's member) whose status is
`missing` or `out-of-scope`, under the tapekit namespace where it would be, and every member
that a tapekit class lacks of the TF/Keras class it stands for (`member_refusals`).

The status: `built` (present, TF's signature, TF's output or no sample), `built-differs`
(present; what differs is said: the signature, the output, or an alias the material uses that
tapekit lacks), `missing` (in scope, no alias present), `out-of-scope` (with its reason). The
`instead` hint: the same name elsewhere in tapekit, or NumPy's function of that name.
"""
import collections
import importlib
import inspect
import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA = HERE / "data"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import samples  # noqa: E402
import scope  # noqa: E402
from jsonrows import read_rows, write_lines  # noqa: E402

warnings.filterwarnings("ignore")
TOP = 500     # the "500 most used names"
_MISSING = object()


def tk_paths(alias):
    """The tapekit spellings of a TensorFlow / Keras name, per API.md.

    >>> tk_paths("tf.math.add"), tk_paths("keras.layers.Dense")
    (['tk.math.add'], ['tk.layers.Dense', 'tk.keras.layers.Dense'])
    >>> tk_paths("tf.keras.losses.MeanSquaredError")
    ['tk.losses.MeanSquaredError', 'tk.keras.losses.MeanSquaredError']
    """
    if alias.startswith("tf.keras."):
        rest = alias[len("tf.keras."):]
        return [f"tk.{rest}", f"tk.keras.{rest}"]
    if alias.startswith("keras."):
        rest = alias[len("keras."):]
        return [f"tk.{rest}", f"tk.keras.{rest}"]
    if alias.startswith("tf."):
        return ["tk." + alias[len("tf."):]]
    return [alias]


class Tapekit:
    """Looks names up in tapekit, and holds small instances for attributes only they have."""

    def __init__(self):
        self.tk = importlib.import_module("tapekit")
        self.instances = self._instances()

    def _instances(self):
        tk = self.tk
        made = {}
        for cpath, make in {
            "tk.Tensor": lambda: tk.constant(1.0), "tk.Variable": lambda: tk.Variable(1.0),
            "tk.GradientTape": lambda: tk.GradientTape(), "tk.Module": lambda: tk.Module(),
            "tk.layers.Layer": lambda: tk.layers.Layer(),
            "tk.losses.Loss": lambda: tk.losses.MeanSquaredError(),
            "tk.metrics.Metric": lambda: tk.metrics.Mean(),
            "tk.callbacks.Callback": lambda: tk.callbacks.Callback(),
            "tk.optimizers.Optimizer": lambda: tk.optimizers.SGD(0.1),
        }.items():
            try:
                made[cpath] = make()
            except Exception:   # noqa: BLE001 - then its instance attributes are not found
                pass
        try:
            x = np.ones((4, 2), "float32")
            model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse", metrics=["mae"])
            made["tk.callbacks.History"] = model.fit(x, x[:, :1], epochs=1, verbose=0)
            made["tk.Model"] = made["tk.Sequential"] = model
        except Exception:   # noqa: BLE001
            pass
        return made

    def lookup(self, path):
        """The tapekit object at `tk.a.b.c`, or None (see the module docstring); a tuple for what
        is found but is no object to compare (an instance attribute, a constant None)."""
        parts = path.split(".")[1:]
        obj = self.tk
        for i, part in enumerate(parts):
            if isinstance(obj, type(self.tk)) and (not obj.__name__.startswith("tapekit")
                                                   or part not in dir(obj)):
                return None      # out of tapekit, or not among a module's public names
                                 # (dir(tk) leaves out tapekit's own modules, tk.tape, and tk.ops:
                                 # keras.ops is found as tk.keras.ops)
            try:
                nxt = getattr(obj, part)
            except Exception:   # noqa: BLE001 - missing, or a property that needs an instance
                nxt = _MISSING
            if nxt is _MISSING:
                owner = ".".join(["tk"] + parts[:i])
                inst = self.instances.get(owner)
                if inst is not None and i == len(parts) - 1 and hasattr(inst, part):
                    return ("instance attribute", owner)
                return None
            obj = nxt
        if obj is None:          # present, and None until set (Model.train_function)
            return ("attribute whose value is None", path)
        if not self._tapekits(obj, path):
            return None
        if obj is None:          # a constant that is None (tk.newaxis): found, not missing
            return ("constant", "None")
        return obj

    def _tapekits(self, obj, path):
        if isinstance(obj, type(self.tk)):
            return obj.__name__.startswith("tapekit")
        if inspect.isclass(obj) or callable(obj):
            mod = getattr(obj, "__module__", None) or type(obj).__module__
            if mod and mod.startswith("tapekit"):
                return True
            # a dtype (tk.float32 is NumPy's), an exception class tapekit re-exports
            return isinstance(obj, type) and (issubclass(obj, np.generic) or issubclass(obj, BaseException))
        return True              # a constant (tk.newaxis, a dtype object, a version string)


def _default_text(value):
    if value is inspect.Parameter.empty:
        return None
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def tk_signature(obj):
    """Like walk.signature_of, for tapekit's object; an Op is its inputs (by position only,
    as Op.__call__ takes them) and its attributes, then name=None."""
    if type(obj).__name__ == "Op" and hasattr(obj, "forward") and hasattr(obj, "args"):
        try:
            fwd = list(inspect.signature(obj.forward).parameters.values())
        except (TypeError, ValueError):
            fwd = []
        params = [[a, "POSITIONAL_ONLY", None] for a in obj.args]
        params += [[p.name, p.kind.name, _default_text(p.default)] for p in fwd
                   if p.name not in obj.args and p.kind.name not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
        return params + [["name", "POSITIONAL_OR_KEYWORD", "None"]]
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name, _default_text(p.default)] for p in sig.parameters.values()]


_DTYPE_TEXT = re.compile(r"^(tf\.|dtype\(')?(float16|float32|float64|int8|int16|int32|int64|uint8|uint16|uint32|uint64|bool|"
                         r"complex64|complex128)('\))?$|^<class 'numpy\.(\w+)'>$")


def _norm_default(text):
    """TensorFlow's and tapekit's spelling of one default, made comparable."""
    if text is None:
        return None
    m = _DTYPE_TEXT.match(text)
    if m:
        return "dtype:" + (m.group(2) or m.group(4))
    text = text.replace('"', "'")
    try:
        return repr(float(text)) if re.fullmatch(r"-?[\d.]+(e-?\d+)?", text) else text
    except ValueError:
        return text


def signature_diff(tf_sig, tk_sig, method=False, name_default_matters=True):
    """What differs between TensorFlow's signature and tapekit's, as short phrases ([] if none).

    >>> signature_diff([["x", "POSITIONAL_OR_KEYWORD", None], ["name", "POSITIONAL_OR_KEYWORD", "None"]],
    ...                [["x", "POSITIONAL_OR_KEYWORD", None], ["name", "POSITIONAL_OR_KEYWORD", "None"]])
    []
    >>> signature_diff([["x", "POSITIONAL_OR_KEYWORD", None], ["axis", "POSITIONAL_OR_KEYWORD", "None"],
    ...                 ["name", "POSITIONAL_OR_KEYWORD", "None"]],
    ...                [["x", "POSITIONAL_OR_KEYWORD", None], ["axis", "POSITIONAL_OR_KEYWORD", "-1"]])
    ['lacks name', 'default axis=-1 (TF: None)']
    >>> signature_diff([["a", "POSITIONAL_OR_KEYWORD", None], ["b", "POSITIONAL_OR_KEYWORD", None]],
    ...                [["b", "POSITIONAL_OR_KEYWORD", None], ["a", "POSITIONAL_OR_KEYWORD", None]])
    ['order a, b (TF) against b, a']
    """
    if tf_sig is None or tk_sig is None:
        return [] if tf_sig is None else ["no signature to read"]

    def named(sig):
        out = [p for p in sig if p[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
        if method and out and out[0][0] in ("self", "cls"):
            out = out[1:]
        return out
    tf_p, tk_p = named(tf_sig), named(tk_sig)
    tk_by = {p[0]: p for p in tk_p}
    tf_by = {p[0]: p for p in tf_p}
    tk_var_kw = any(p[1] == "VAR_KEYWORD" for p in tk_sig)
    diffs = []
    lacks = [p[0] for p in tf_p if p[0] not in tk_by]
    if lacks:
        diffs.append(("lacks " if not tk_var_kw else "only through **kwargs: ") + ", ".join(lacks))
    extra = [p for p in tk_p if p[0] not in tf_by]
    if any(p[2] is None for p in extra):
        required = ", ".join(p[0] for p in extra if p[2] is None)
        diffs.append(f"requires {required} (TF has no such parameter)")
    common_tf = [p[0] for p in tf_p if p[0] in tk_by]
    common_tk = [p[0] for p in tk_p if p[0] in tf_by]
    if common_tf != common_tk:
        diffs.append(f"order {', '.join(common_tf)} (TF) against {', '.join(common_tk)}")
    for name in common_tf:
        a, b = tf_by[name], tk_by[name]
        if _norm_default(a[2]) != _norm_default(b[2]) and (name_default_matters or name != "name"):
            diffs.append(f"default {name}={b[2] if b[2] is not None else '(required)'} "
                         f"(TF: {a[2] if a[2] is not None else 'required'})")
        if a[1] == "POSITIONAL_OR_KEYWORD" and b[1] == "KEYWORD_ONLY":
            diffs.append(f"{name} keyword-only")
        if a[1] in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY") and b[1] == "POSITIONAL_ONLY":
            diffs.append(f"{name} by position only")   # an Op's inputs: a keyword is an attribute
    return diffs


def _hint_index(tk):
    """leaf -> tapekit paths of its public namespaces, for the `instead` column."""
    index = collections.defaultdict(list)
    seen = set()

    def walk(prefix, mod, depth=0):
        if id(mod) in seen or depth > 3:
            return
        seen.add(id(mod))
        for name in dir(mod):
            if name.startswith("_"):
                continue
            try:
                obj = getattr(mod, name)
            except Exception:   # noqa: BLE001
                continue
            if isinstance(obj, type(tk)):
                if obj.__name__.startswith("tapekit") and not obj.__name__.startswith(
                        ("tapekit.ops.", "tapekit.compiler.", "tapekit.display.", "tapekit.widgets.")):
                    walk(f"{prefix}.{name}", obj, depth + 1)
                continue
            index[name].append(f"{prefix}.{name}")
    walk("tk", tk)
    return index


def instead(row, index):
    leaf = row["name"].rsplit(".", 1)[-1]
    if row.get("owner") or leaf.startswith("_"):
        return ""
    layer_names = any(".layers." in a for a in [row["name"]] + row["aliases"])
    keras_ops = any(".ops." in a for a in [row["name"]] + row["aliases"])
    order = ["tk", "tk.math", "tk.nn", "tk.linalg", "tk.random", "tk.image", "tk.activations"]
    cands = [c for c in set(index.get(leaf, []))
             if (layer_names or ".layers." not in c)    # keras.ops.concatenate is not a layer
             and (keras_ops or ".ops." not in c)]       # nor is keras.ops.split tf.split
    for cand in sorted(cands, key=lambda p: (order.index(p.rsplit(".", 1)[0]) if p.rsplit(".", 1)[0] in order
                                             else len(order), p.count("."), p)):
        return f"{cand} (same name in tapekit)"
    numeric = any(a.startswith(("tf.math.", "tf.linalg.", "keras.ops.")) or a.count(".") == 1
                  and a.startswith("tf.") for a in [row["name"]] + row["aliases"])
    if numeric and leaf[:1].islower():
        for mod, label in ((np, "numpy"), (np.linalg, "numpy.linalg"), (np.fft, "numpy.fft")):
            if callable(getattr(mod, leaf, None)):
                return f"{label}.{leaf} (NumPy: no gradient)"
    return ""


def namespaces_of(alias):
    """(tapekit module, name in it) where a TensorFlow / Keras name would live, per API.md.

    >>> namespaces_of("tf.math.bincount"), namespaces_of("tf.newaxis")
    ([('tapekit.math', 'bincount')], [('tapekit', 'newaxis')])
    >>> namespaces_of("keras.layers.RandomFlip")
    [('tapekit.keras.layers', 'RandomFlip'), ('tapekit.layers', 'RandomFlip')]
    >>> namespaces_of("keras.ops"), namespaces_of("tf.keras.utils.plot_model")[0]
    ([('tapekit.keras', 'ops'), ('tapekit', 'ops')], ('tapekit.keras.utils', 'plot_model'))
    """
    parent, _, leaf = alias.rpartition(".")
    if parent in ("keras", "tf.keras"):
        return [("tapekit.keras", leaf), ("tapekit", leaf)]   # `import tapekit as keras`
    if parent == "tf":
        return [("tapekit", leaf)]
    for tf_prefix in ("tf.keras.", "keras."):        # tk.keras.layers and tk.layers, ...
        if (parent + ".").startswith(tf_prefix):
            rest = parent[len(tf_prefix):]
            return [(f"tapekit.keras.{rest}", leaf), (f"tapekit.{rest}", leaf)]
    if parent.startswith("tf."):
        return [("tapekit." + parent[len("tf."):], leaf)]
    return []


def refusals(rows):
    """{tapekit module: {name: {tf, status, reason?, instead?}}} for tapekit/not_in_tapekit.json.

    Only a hint that points into the same family is kept as `instead` (keras.constraints.get
    and tk.activations.get share a name, not a meaning); NumPy's function of the same name is
    kept, said to have no gradient.

    >>> refusals([{"name": "tf.math.bincount", "aliases": ["tf.bincount"], "kind": "function",
    ...            "status": "missing", "instead": "numpy.bincount (NumPy: no gradient)"}])
    {'tapekit': {'bincount': {'instead': 'numpy.bincount (NumPy: no gradient)', 'status': 'missing', 'tf': 'tf.bincount'}}, 'tapekit.math': {'bincount': {'instead': 'numpy.bincount (NumPy: no gradient)', 'status': 'missing', 'tf': 'tf.math.bincount'}}}
    """
    table = collections.defaultdict(dict)
    for r in rows:
        if r["status"] not in ("missing", "out-of-scope") or r["kind"] in MEMBER_KINDS:
            continue
        hint = r.get("instead", "")
        family = r["name"].split(".")[1] if r["name"].count(".") > 1 else ""
        if "same name in tapekit" in hint and not (
                r["name"].startswith("tf.") and not r["name"].startswith("tf.keras.")
                or family and f".{family}." in hint):
            hint = ""
        for alias in [r["name"]] + r["aliases"]:
            for module, leaf in namespaces_of(alias):
                entry = {"tf": alias, "status": r["status"]}
                if r.get("reason"):
                    entry["reason"] = r["reason"]
                if hint:
                    entry["instead"] = hint
                table[module].setdefault(leaf, dict(sorted(entry.items())))

    def reachable(module):      # tapekit.data.experimental is not, once tk.data is refused
        parts = module.split(".")
        return not any(parts[i] in table.get(".".join(parts[:i]), {}) for i in range(1, len(parts)))
    return {m: dict(sorted(names.items())) for m, names in sorted(table.items()) if reachable(m)}


MEMBER_KINDS = ("method", "property", "attribute")


def member_refusals(rows, tk):
    """{tapekit class ("tapekit.tensor.Variable"): {member: {tf, status, reason?}}} for
    tapekit/not_in_tapekit.json's "members": every method, property or attribute of a TF/Keras
    class that tapekit has, which tapekit's class lacks (status `missing` or `out-of-scope`).
    The class's `__getattr__` (namespaces.no_attribute) refuses them by message. A member of a
    class tapekit lacks (tf.train.Checkpoint.restore) is not listed: the class is refused."""
    table = collections.defaultdict(dict)
    for r in rows:
        if r["kind"] not in MEMBER_KINDS or r["status"] not in ("missing", "out-of-scope"):
            continue
        owner, member = r["name"].rsplit(".", 1)
        cls = next((o for o in map(tk.lookup, tk_paths(owner)) if inspect.isclass(o)), None)
        if cls is None or not cls.__module__.startswith("tapekit"):
            continue
        entry = {"tf": r["name"], "status": r["status"]}
        if r.get("reason"):
            entry["reason"] = r["reason"]
        table[f"{cls.__module__}.{cls.__qualname__}"].setdefault(member, dict(sorted(entry.items())))
    return {c: dict(sorted(members.items())) for c, members in sorted(table.items())}


def compare_row(row, tk, sample, alias_uses):
    aliases = [row["name"]] + row["aliases"]
    found, absent = {}, []
    for a in aliases:
        hit = None
        for p in tk_paths(a):
            obj = tk.lookup(p)
            if obj is not None:
                hit = (p, obj)
                break
        if hit:
            found[a] = hit
        else:
            absent.append(a)
    out = {"tk": sorted({p for p, _ in found.values()})}
    if not found:
        return "missing", out, []
    diffs = []
    used_absent = [a for a in absent if alias_uses.get(a) and scope.classify(a) is None]
    if used_absent:
        diffs.append("no " + ", ".join(tk_paths(a)[0] for a in used_absent) + " (material uses it)")
    path, obj = found.get(row["name"]) or next(iter(found.values()))
    if row["kind"] in ("function", "class", "method") and not isinstance(obj, tuple):
        # the default of `name` is a graph node's name in TF's functions (tf.constant's 'Const'),
        # not shown anywhere; in Keras it is the object's name, shown in logs and history keys
        diffs += signature_diff(row["signature"], tk_signature(obj), method=row["kind"] == "method",
                                name_default_matters=row["name"].startswith("keras."))
    if sample and "output" in sample and row["kind"] == "function" and callable(obj):
        args, kwargs = samples.build(sample["sample"], {"float32": tk.tk.float32, "int32": tk.tk.int32,
                                                        "float64": tk.tk.float64, "bool": tk.tk.bool})
        try:
            got = samples.encode(obj(*args, **kwargs), lambda v: v.numpy() if hasattr(v, "numpy") else v)
        except Exception as e:   # noqa: BLE001 - recorded: TF gave an answer here
            out["sample"] = f"tapekit raised {type(e).__name__}"
            diffs.append(f"sample: raises {type(e).__name__} where TF answers")
        else:
            if got is None:
                out["sample"] = "tapekit's result is not comparable"
                diffs.append("sample: result of another kind")
            else:
                ok, why = samples.close(got, sample["output"])
                out["sample"] = "same" if ok else why
                if not ok:
                    diffs.append(f"sample: {why}")
    elif sample:
        out["sample"] = sample.get("why", "")
    return ("built-differs" if diffs else "built"), out, diffs


def main():
    rows, api, usage, tk = compare_all(with_tapekit=True)
    header = {"tensorflow": api["tensorflow"], "keras": api["keras"], "sources": usage["sources"],
              "statuses": {"built": "present, with TF's signature and (where sampled) TF's output",
                           "built-differs": "present; `differs` says what is not TF's",
                           "missing": "in scope, not in tapekit",
                           "out-of-scope": "outside tapekit's scope; `reason` says why"}}
    write_lines(DATA / "inventory.json", header, "names", sorted(rows, key=lambda r: r["name"]))
    docs = ROOT / "docs" / "names.md"
    docs.write_text(render(rows, api, usage))
    with open(ROOT / "tapekit" / "not_in_tapekit.json", "w") as f:
        f.write(json.dumps({"tensorflow": api["tensorflow"], "keras": api["keras"],
                            "namespaces": refusals(rows), "members": member_refusals(rows, tk)},
                           indent=0, sort_keys=True) + "\n")
    tally = collections.Counter(r["status"] for r in rows)
    print(f"compare: {dict(sorted(tally.items()))}; wrote {docs.relative_to(ROOT)}")


def compare_all(with_tapekit=False):
    """(every name's row, ranked, as inventory.json holds it; api.json; usage.json, and the
    Tapekit looker-up with `with_tapekit`): the comparison itself, which
    tests/contracts/test_names_inventory.py also runs."""
    api, names = read_rows(DATA / "api.json", "names")
    _, tf_samples = read_rows(DATA / "tf_samples.json", "samples")
    usage, counts = read_rows(DATA / "usage.json", "counts")
    samples_by = {s["name"]: s for s in tf_samples}
    use_by = {c["name"]: c for c in counts}
    tk = Tapekit()
    index = _hint_index(tk.tk)
    rows = []
    for row in names:
        u = use_by.get(row["name"], {})
        r = {"name": row["name"], "aliases": row["aliases"], "kind": row["kind"],
             "uses": u.get("uses", 0), "files": u.get("files", 0),
             "sources": len(u.get("sources", {})), "by_name": u.get("by_name", 0)}
        # A namespace out of scope as a whole (tf.config: devices) that tapekit has anyway, for
        # the members in scope (run_functions_eagerly), is compared as any name: refusing it
        # would hide its members' own answers (built, or refused one by one).
        has_module = row["kind"] == "module" and any(
            tk.lookup(p) is not None for p in tk_paths(row["name"]))
        if row.get("scope") and not has_module:
            r.update(status="out-of-scope", reason=row["scope"], differs=[], instead="")
        else:
            status, extra, diffs = compare_row(row, tk, samples_by.get(row["name"]), u.get("aliases", {}))
            r.update(status=status, differs=diffs, **extra)
            r["instead"] = instead(row, index) if status == "missing" else ""
        rows.append(r)
    rows.sort(key=lambda r: (-r["uses"], -r["files"], r["name"]))
    for i, r in enumerate(rows, 1):
        r["rank"] = i if r["uses"] else None
    return (rows, api, usage, tk) if with_tapekit else (rows, api, usage)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(rows, api, usage):
    """docs/names.md: the counts, then every name the material uses, ranked."""
    in_scope = [r for r in rows if r["status"] != "out-of-scope"]
    st = collections.Counter(r["status"] for r in in_scope)
    sig_ok = sum(r["status"] in ("built", "built-differs") and not any(
        not d.startswith(("sample:", "no ")) for d in r["differs"]) for r in in_scope)
    sampled = [r for r in in_scope
               if r.get("sample") and not str(r["sample"]).startswith("no sample")]
    same = sum(r.get("sample") == "same" for r in in_scope)
    top = [r for r in rows if r["rank"] and r["rank"] <= TOP]
    top_st = collections.Counter(r["status"] for r in top)
    reasons = collections.Counter(r["reason"] for r in rows if r["status"] == "out-of-scope")
    lines = [
        "# TensorFlow's names in tapekit",
        "",
        "Generated by `tools/inventory/` (issue 45): never edit by hand. The walk of TensorFlow "
        f"{api['tensorflow']}'s and Keras {api['keras']}'s public API, each name's uses in the "
        "learning material below, and each name looked up in tapekit, with its signature and "
        "(for functions) its output on a generated sample compared with TensorFlow's. "
        "`tools/inventory/README.md` says how each step runs and how uses are counted; the "
        "data is `tools/inventory/data/inventory.json`.",
        "",
        "## Counts",
        "",
        "| | names |",
        "|---|---:|",
        f"| in scope | {len(in_scope)} |",
        f"| built (present in tapekit) | {st['built'] + st['built-differs']} |",
        f"| built with TensorFlow's signature | {sig_ok} |",
        f"| built, and sampled: TensorFlow's output on the sample | {same} of {len(sampled)} |",
        f"| built exactly (status `built`) | {st['built']} |",
        f"| built, something differs (status `built-differs`) | {st['built-differs']} |",
        f"| missing | {st['missing']} |",
        f"| out of scope | {len(rows) - len(in_scope)} |",
        "",
        f"Among the {TOP} most used names: {top_st['built']} built, {top_st['built-differs']} "
        f"built with a difference, {top_st['missing']} missing, {top_st['out-of-scope']} out of scope.",
        "",
        "Out of scope, by reason:",
        "",
        "| reason | names | what it covers |",
        "|---|---:|---|",
    ]
    for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"| {reason} | {n} | {_cell(api['reasons'].get(reason, ''))} |")
    lines += ["", "## The material counted", "", "| source | files | what |", "|---|---:|---|"]
    for s in usage["sources"]:
        lines.append(f"| {s['id']} | {s['files']} | {_cell(s['what'])} ({s['repo']} at {s['commit'][:7]}) |")
    lines += [
        "",
        "## Every name the material uses, most used first",
        "",
        "*uses*: uses in all the material; *files*: files that use it; *src*: how many of the "
        "sources above. A method or attribute counted partly by its name alone "
        "(`tools/inventory/README.md`) shows those uses as *by name*. *instead*: the same name "
        "elsewhere in tapekit, or NumPy's function of that name, where one exists.",
        "",
        "| rank | name | uses | files | src | status | what differs / why not | instead |",
        "|---:|---|---:|---:|---:|---|---|---|",
    ]
    for r in rows:
        if not r["rank"]:
            continue
        note = r.get("reason", "") if r["status"] == "out-of-scope" else "; ".join(r["differs"])
        uses = f"{r['uses']}" + (f" ({r['by_name']} by name)" if r["by_name"] else "")
        lines.append(f"| {r['rank']} | `{r['name']}` | {uses} | {r['files']} | {r['sources']} | "
                     f"{r['status']} | {_cell(note)} | {_cell(r['instead'])} |")
    unused = [r for r in rows if not r["rank"] and r["status"] == "missing"]
    lines += ["", f"{len(unused)} names in scope that the material never uses are missing too; "
              "they are in the data, not listed here.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-check"]:
        import doctest
        failed, tried = doctest.testmod()
        print(f"compare.py: {tried - failed}/{tried} self-checks passed")
        raise SystemExit(1 if failed else 0)
    main()
