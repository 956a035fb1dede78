"""Step 2: count how often learning material uses each name of data/api.json (no TensorFlow).

    python tools/inventory/count.py --mirror DIR        # writes data/usage.json

DIR holds one git directory per repository of SOURCES, as `DIR/owner+name/repo` (the layout
the search tool's `fetch` leaves) or `DIR/owner+name.git`; `--repo owner/name=GITDIR` points
at one elsewhere. Files are read from git objects (`git ls-tree`, `git cat-file`), so the
material is never copied into the repository: only the counts are committed.

How a use is counted, per file (a notebook's code cells, a Markdown file's Python fences, d2l's
TensorFlow tabs and a .py file are each one module, cells in order):
- imports are resolved with `ast`: `import tensorflow as tf`, `from tensorflow import keras`,
  `from tensorflow.keras import layers`, `from keras import ops`, `from tensorflow.keras.layers
  import Dense`, `import keras.backend as K` ... (`tf_keras`, Keras 2's package, counts as
  `tf.keras`; `tensorflow.python.*` is private and not counted);
- every outermost attribute chain or bare name rooted at such an import is one use of the name
  it spells (`tf.keras.layers.Dense(3)` is one use of keras.layers.Dense under its alias
  tf.keras.layers.Dense). A chain whose longest known prefix is a module (`tf.contrib.layers`,
  `tf.keras.preprocessing.text.Tokenizer`) is listed under "unknown": material uses it, TF 2.21
  has no such name. A known prefix that is not a module is counted (`tf.float32.name`);
- method calls and attribute reads on objects (`model.fit`, `tape.gradient`,
  `v.assign_add`) are counted by the receiver's type where the code shows it: `v =
  tf.Variable(...)`, `model = keras.Sequential(...)` (any class: its `member_base`),
  `with tf.GradientTape() as tape`, `x = tf.reduce_sum(...)` (a tf function's result is a
  tf.Tensor), `history = model.fit(...)` (RETURNS), `self` in a class that subclasses
  keras.Model/Layer/... Where the receiver's type is unknown, the member's name alone
  counts when it is distinctive: a member of one listed class, or of at most MAX_SHARED of
  those the file is seen to use (then each of them is credited, except that a receiver
  whose name names one of the classes, `history.history`, `tape.gradient`, goes to it, and
  a name a value class has, `assign`, `numpy`, goes to the VALUES classes only); never a
  method of Python's, NumPy's, pandas's or scikit-learn's common objects or of tf.data's
  datasets (GENERIC), nor one called on a module the file imports.
  These uses are also given apart (`by_name`).
Code that does not parse (a cell with shell lines `ast` cannot read) falls back to a regular
expression over the chains of the import aliases seen so far; such cells are counted in
`cells_not_parsed`.

Self-checks (no material needed): `python tools/inventory/count.py --self-check`.
"""
import argparse
import ast
import builtins
import collections
import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
sys.path.insert(0, str(HERE))

from jsonrows import read_rows, write_lines  # noqa: E402

# The material: (id, repository, files, how to read them, what it is). `ref` is a commit or
# "HEAD"; `parent_of` takes the commit before the one named (keras-team/keras removed its copy
# of keras.io's examples in e5dad39, Jan 2024).
SOURCES = [
    {"id": "tensorflow-docs", "repo": "tensorflow/docs", "ref": "HEAD",
     "files": ["site/en/guide/*.ipynb", "site/en/guide/*.md", "site/en/tutorials/*.ipynb",
               "site/en/tutorials/*.md"],
     "what": "TensorFlow's guides and tutorials (site/en/guide, site/en/tutorials)"},
    {"id": "keras-io-guides", "repo": "keras-team/keras", "ref": "HEAD", "files": ["guides/*.py"],
     "what": "keras.io's developer guides, as kept in keras-team/keras guides/"},
    {"id": "keras-io-examples", "repo": "keras-team/keras",
     "ref": "e5dad3905969e62a85f6da6aefead2790a8aa8f1", "parent_of": True,
     "files": ["examples/keras_io/*.py"],
     "what": "keras.io's code examples ported to Keras 3, as kept in keras-team/keras "
             "examples/keras_io/ until January 2024"},
    {"id": "handson-ml3", "repo": "ageron/handson-ml3", "ref": "HEAD", "files": ["*.ipynb"],
     "what": "Géron, Hands-On Machine Learning (3rd ed.), its notebooks"},
    {"id": "dlwp-3e", "repo": "fchollet/deep-learning-with-python-notebooks", "ref": "HEAD",
     "files": ["chapter*.ipynb"], "what": "Chollet, Deep Learning with Python (3rd ed.), notebooks"},
    {"id": "dlwp-2e", "repo": "fchollet/deep-learning-with-python-notebooks", "ref": "HEAD",
     "files": ["second_edition/*.ipynb"],
     "what": "Chollet, Deep Learning with Python (2nd ed.), notebooks"},
    {"id": "d2l-tensorflow", "repo": "d2l-ai/d2l-en", "ref": "HEAD", "files": ["chapter_*.md"],
     "d2l": True, "what": "Dive into Deep Learning, its TensorFlow code (%%tab tensorflow)"},
    {"id": "dlai-tensorflow-1", "repo": "https-deeplearning-ai/tensorflow-1-public",
     "ref": "HEAD", "files": ["*.ipynb"],
     "what": "DeepLearning.AI's TensorFlow Developer course: labs and assignments"},
    {"id": "ztm-tensorflow", "repo": "mrdbourke/tensorflow-deep-learning", "ref": "HEAD",
     "files": ["[0-9][0-9]_*.ipynb"],
     "what": "Zero to Mastery TensorFlow course notebooks (top-level copies only)"},
    {"id": "mit-6s191", "repo": "aamini/introtodeeplearning", "ref": "HEAD",
     "files": ["lab*/solutions/*.ipynb", "xtra_labs/*/solutions/*.ipynb"],
     "what": "MIT 6.S191 labs (solutions only: the labs are the same with blanks)"},
]

ROOTS = {"tensorflow": "tf", "keras": "keras", "tf_keras": "tf.keras"}
# A member name these classes share with others (assign, numpy) goes to them alone.
VALUES = {"tf.Tensor", "tf.Variable", "keras.Variable"}
MAX_SHARED = 3
# What a call of these methods returns, for `history = model.fit(...)`.
RETURNS = {"keras.Model.fit": "keras.callbacks.History"}


def _generic_names():
    """Member names too common elsewhere to count by name alone."""
    names = set()
    for t in (list, dict, set, str, bytes, tuple, int, float, complex, object, type(open),
              range, slice, memoryview, frozenset, Exception):
        names.update(dir(t))
    names.update(dir(builtins))
    try:
        import numpy as np
        names.update(dir(np.ndarray), dir(np.random.Generator), dir(np.dtype))
    except ImportError:   # pragma: no cover
        pass
    names.update("""fit predict transform fit_transform inverse_transform score predict_proba
        decision_function get_params set_params partial_fit head tail describe plot show
        savefig imshow subplot subplots hist scatter legend title xlabel ylabel set_title
        axis grid apply map merge groupby iloc loc values columns read write close open
        save load reset run start stop update name names shape dtype size value values
        build call config get set add remove pop items keys copy clear sort count index
        layers input output inputs outputs weights trainable variables submodules
        summary result numpy grad skip take batch unbatch shuffle repeat cache prefetch
        filter interleave zip padded_batch element_spec""".split())   # the last line: tf.data
    # kept (counted by name when distinctive): gradient, watch, jacobian, assign, assign_add,
    # apply_gradients, compile, evaluate, add_weight, update_state, reset_state, on_epoch_end...
    for keep in ("numpy", "summary", "result", "layers", "weights", "trainable_variables",
                 "trainable", "variables"):
        names.discard(keep)
    return names


GENERIC = _generic_names()


class Api:
    """The alias table of data/api.json: alias -> entry, and what count needs of each entry."""

    def __init__(self, rows):
        self.entry = {}       # alias or canonical name -> canonical name
        self.kind = {}
        self.member_base = {}
        self.members = collections.defaultdict(set)   # member leaf -> {canonical entries}
        self.by_owner = {}    # (class path, leaf) -> canonical
        for r in rows:
            name = r["name"]
            self.kind[name] = r["kind"]
            for a in [name] + r["aliases"]:
                self.entry[a] = name
            if r.get("member_base"):
                self.member_base[name] = r["member_base"]
            if r.get("owner"):
                for a in [name] + r["aliases"]:
                    owner, leaf = a.rsplit(".", 1)
                    self.by_owner[(owner, leaf)] = name
                    self.members[leaf].add(name)
        self.member_classes = {o for o, _ in self.by_owner}
        self.owner = {r["name"]: r["owner"] for r in rows if r.get("owner")}
        # modules listed whole (tf.compat.v1): a name inside counts as a use of the module
        self.not_walked = {r["name"] for r in rows if "names_inside" in r}

    def class_of(self, canonical):
        """The member class a constructed object of `canonical` is counted as."""
        if canonical in self.member_classes:
            return canonical
        return self.member_base.get(canonical)


def _class_leaf(cls):
    """'keras.callbacks.History' -> 'history'; GradientTape -> 'tape' (how code names one)."""
    leaf = cls.rsplit(".", 1)[-1].lower()
    return {"gradienttape": "tape", "learningrateschedule": "schedule"}.get(leaf, leaf)


def module_path(dotted):
    """An imported module's dotted name as an API path, or None.

    >>> module_path("tensorflow"), module_path("tensorflow.keras.layers"), module_path("keras.ops")
    ('tf', 'tf.keras.layers', 'keras.ops')
    >>> module_path("tensorflow.python.keras"), module_path("numpy")
    (None, None)
    """
    parts = dotted.split(".")
    if parts[0] not in ROOTS or (len(parts) > 1 and parts[1] in ("python", "src", "core", "_api")):
        return None
    return ".".join([ROOTS[parts[0]]] + parts[1:])


class Counter(ast.NodeVisitor):
    """Counts the uses in one file; `ns` and `types` carry over from cell to cell."""

    def __init__(self, api):
        self.api = api
        self.ns = {}          # local name -> API path
        self.other = set()    # names bound to other imports (numpy, re, ...)
        self.types = {}       # local variable -> member class
        self.classes = {}     # user class -> member class it subclasses
        self.uses = collections.Counter()       # canonical -> uses
        self.by_name = collections.Counter()    # canonical -> uses counted by member name only
        self.aliases = collections.Counter()    # alias spelled -> uses
        self.unknown = collections.Counter()
        self.self_type = []
        self.pending = collections.Counter()    # member leaf -> uses on receivers of unknown type
        self.seen_types = set()                 # member classes of the calls' results

    # --- imports ---------------------------------------------------------------------------
    def visit_Import(self, node):
        for a in node.names:
            path = module_path(a.name)
            if path is None:
                self.other.add((a.asname or a.name).split(".")[0])
                continue
            if a.asname:
                self.ns[a.asname] = path
            else:   # `import tensorflow.keras` binds `tensorflow`
                self.ns[a.name.split(".")[0]] = ROOTS[a.name.split(".")[0]]

    def visit_ImportFrom(self, node):
        base = module_path(node.module or "") if node.level == 0 else None
        for a in node.names:
            if base is None or a.name == "*":
                self.other.add(a.asname or a.name)
                continue
            self.ns[a.asname or a.name] = f"{base}.{a.name}"

    # --- names -----------------------------------------------------------------------------
    def chain(self, node):
        """(root name, [attrs]) of `a.b.c`, or None."""
        attrs = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            return node.id, attrs[::-1]
        return None

    def resolve(self, path):
        """Count one use of the API path; return its canonical name (or None)."""
        parts = path.split(".")
        for n in range(len(parts), 0, -1):
            prefix = ".".join(parts[:n])
            canon = self.api.entry.get(prefix)
            if canon is None:
                continue
            if (n < len(parts) and self.api.kind.get(canon) == "module"
                    and canon not in self.api.not_walked):
                break        # a name inside a module that TF 2.21 does not have
            self.uses[canon] += 1
            self.aliases[prefix] += 1
            return canon
        self.unknown[path] += 1
        return None

    def api_path(self, node):
        c = self.chain(node)
        if c and c[0] in self.ns:
            return ".".join([self.ns[c[0]]] + c[1])
        return None

    def visit_Attribute(self, node):
        if isinstance(getattr(node, "parent", None), ast.Attribute):
            return self.generic_visit(node)     # counted by its outermost chain
        path = self.api_path(node)
        if path is not None:
            self.resolve(path)
            return None
        self.member_use(node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.ns and not isinstance(
                getattr(node, "parent", None), ast.Attribute):
            self.resolve(self.ns[node.id])

    def member_use(self, node):
        """`receiver.leaf` where the receiver is not an import: by type, else by name."""
        leaf, recv = node.attr, node.value
        rtype = self.type_of(recv)
        if rtype is not None:
            for cls in self.mro(rtype):
                canon = self.api.by_owner.get((cls, leaf))
                if canon:
                    self.uses[canon] += 1
                    self.aliases[f"{cls}.{leaf}"] += 1
                    return
            return
        if isinstance(recv, ast.Name) and (recv.id in self.other or recv.id in self.ns):
            return
        if leaf in self.api.members and leaf not in GENERIC:
            hint = recv.id.lower() if isinstance(recv, ast.Name) else ""
            self.pending[(leaf, hint)] += 1

    def settle(self):
        """Credit the uses counted by member name alone, once the file is read: a name of one
        class's member goes to it; a name several classes share goes to those of them the
        file is seen to use (constructs, subclasses or holds), when at most MAX_SHARED."""
        seen = set()
        for cls in set(self.types.values()) | set(self.classes.values()) | self.seen_types | {
                self.api.class_of(c) for c in self.uses if self.api.kind.get(c) == "class"}:
            if cls:
                seen.update(self.mro(cls))
        for (leaf, hint), k in self.pending.items():
            owners = sorted(self.api.members[leaf])
            if len(owners) > 1:
                owners = [o for o in owners if self.api.owner[o] in seen]
            named = [o for o in owners if hint and _class_leaf(self.api.owner[o]) in hint]
            if named:       # `history.history`, `tape.gradient`: the receiver names its class
                owners = named
            values = [o for o in owners if self.api.owner[o] in VALUES]
            if values:      # x.assign(...), x.numpy(): a value is the commonest receiver
                owners = values
            if 0 < len(owners) <= MAX_SHARED:
                for canon in owners:
                    self.uses[canon] += k
                    self.by_name[canon] += k
        self.pending.clear()

    def mro(self, cls):
        """A member class and the member classes above it (Sequential -> Model -> Layer)."""
        out = [cls]
        base = self.api.member_base.get(cls)
        while base and base not in out:
            out.append(base)
            base = self.api.member_base.get(base)
        return out

    # --- types -----------------------------------------------------------------------------
    def type_of(self, node):
        if isinstance(node, ast.Name):
            if node.id == "self" and self.self_type:
                return self.self_type[-1]
            return self.types.get(node.id)
        if isinstance(node, ast.Call):
            return self.call_type(node)
        return None

    def call_type(self, call):
        path = self.api_path(call.func)
        if path is not None:
            canon = self.api.entry.get(path)
            if canon is None:
                return None
            kind = self.api.kind.get(canon)
            if kind == "class":
                t = self.api.class_of(canon)
                self.seen_types.add(t)
                return t
            if kind == "function" and (canon.startswith("tf.") and not canon.startswith("tf.keras")
                                       or canon.startswith("keras.ops.")):
                self.seen_types.add("tf.Tensor")
                return "tf.Tensor"
            if canon in ("keras.models.load_model", "keras.saving.load_model"):
                return "keras.Model"
            return None
        if isinstance(call.func, ast.Name) and call.func.id in self.classes:
            return self.classes[call.func.id]
        if isinstance(call.func, ast.Attribute):
            rtype = self.type_of(call.func.value)
            if rtype is not None:
                for cls in self.mro(rtype):
                    canon = self.api.by_owner.get((cls, call.func.attr))
                    if canon:
                        return RETURNS.get(canon)
        return None

    def visit_Assign(self, node):
        self.generic_visit(node)
        t = self.type_of(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if t is None:
                    self.types.pop(target.id, None)
                else:
                    self.types[target.id] = t

    def visit_With(self, node):
        for item in node.items:
            self.visit(item.context_expr)
            if isinstance(item.optional_vars, ast.Name):
                t = self.type_of(item.context_expr)
                if t is not None:
                    self.types[item.optional_vars.id] = t
        for stmt in node.body:
            self.visit(stmt)

    def visit_ClassDef(self, node):
        for b in node.bases:
            self.visit(b)
        base_type = None
        for b in node.bases:
            path = self.api_path(b)
            if path is not None and path in self.api.entry:
                base_type = self.api.class_of(self.api.entry[path])
            elif isinstance(b, ast.Name) and b.id in self.classes:
                base_type = self.classes[b.id]
            if base_type:
                break
        if base_type:
            self.classes[node.name] = base_type
        self.self_type.append(base_type)
        for stmt in node.body + node.decorator_list:
            self.visit(stmt)
        self.self_type.pop()

    def count(self, source):
        tree = ast.parse(source)
        for n in ast.walk(tree):
            for child in ast.iter_child_nodes(n):
                child.parent = n
        self.visit(tree)

    def count_text(self, source):
        """Fallback for code `ast` cannot read: chains of the known aliases, by regex."""
        if not self.ns:
            return
        roots = "|".join(map(re.escape, sorted(self.ns, key=len, reverse=True)))
        pattern = r"(?<![\w.])(" + roots + r")((?:\.[A-Za-z_]\w*)*)"
        for m in re.finditer(pattern, source):
            self.resolve(self.ns[m.group(1)] + m.group(2))


MAGIC = re.compile(r"^\s*([%!].*|.*\?\s*)$")


def clean_cell(src):
    """A notebook cell as Python: IPython magics and shell lines blanked; a %%cell magic other
    than timing makes the cell not Python at all (None)."""
    first = src.lstrip().split("\n", 1)[0]
    if first.startswith("%%"):
        if not first.startswith(("%%time", "%%timeit", "%%capture")):
            return None
        src = src.lstrip().split("\n", 1)[1] if "\n" in src.lstrip() else ""
    return "\n".join("" if MAGIC.match(line) else line for line in src.split("\n"))


def code_blocks(path, text, d2l=False):
    """The file's code, as a list of cells (strings)."""
    if path.endswith(".ipynb"):
        nb = json.loads(text)
        cells = []
        for c in nb.get("cells", []):
            if c.get("cell_type") == "code":
                src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                cells.append(src)
        return cells
    if path.endswith(".md"):
        blocks = re.findall(r"^```([^\n]*)\n(.*?)^```", text, re.M | re.S)
        if d2l:
            out = []
            for info, body in blocks:
                first, _, rest = body.partition("\n")
                if ".python" in info and first.startswith("%%tab") and "tensorflow" in first:
                    out.append(rest)
            return out
        return [body for info, body in blocks if info.strip().lower() in ("python", "py", "python3")]
    return [text]


def count_file(api, cells):
    """Count one file; (Counter, cells that did not parse)."""
    c = Counter(api)
    unparsed = 0
    for raw in cells:
        src = clean_cell(raw)
        if src is None:
            continue
        try:
            c.count(src)
        except SyntaxError:
            unparsed += 1
            c.count_text(src)
    c.settle()
    return c, unparsed


def _git(gitdir, *args, data=None):
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], input=data, capture_output=True,
                          check=True).stdout


def read_source(gitdir, src):
    """[(path, text)] of a source's files, read from git objects."""
    ref = src["ref"] + ("^" if src.get("parent_of") else "")
    commit = _git(gitdir, "rev-parse", ref).decode().strip()
    names = _git(gitdir, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
    # fnmatch's * also matches "/": "site/en/guide/*.ipynb" takes the subfolders too
    wanted = [n for n in names if any(fnmatch.fnmatch(n, pat) for pat in src["files"])]
    # one `git cat-file --batch` for all: "<sha> blob <size>\n<bytes>\n", or "<name> missing"
    # (a snapshot may lack its largest files: they are reported, not counted)
    blob = _git(gitdir, "cat-file", "--batch",
                data="".join(f"{commit}:{n}\n" for n in sorted(wanted)).encode())
    out, missing, pos = [], [], 0
    for n in sorted(wanted):
        end = blob.index(b"\n", pos)
        head = blob[pos:end].decode()
        pos = end + 1
        if head.endswith(" missing"):
            missing.append(n)
            continue
        size = int(head.split()[2])
        out.append((n, blob[pos:pos + size].decode("utf-8", "replace")))
        pos += size + 1
    return commit, out, missing


def find_gitdir(mirror, repo, overrides):
    if repo in overrides:
        return Path(overrides[repo])
    folder = repo.replace("/", "+")
    for cand in (Path(mirror) / folder / "repo", Path(mirror) / f"{folder}.git"):
        if cand.exists():
            return cand
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", required=True, help="folder of the repositories' git dirs")
    ap.add_argument("--repo", action="append", default=[], help="owner/name=GITDIR")
    ap.add_argument("--out", default=str(DATA / "usage.json"))
    args = ap.parse_args(argv)
    overrides = dict(r.split("=", 1) for r in args.repo)
    api = Api(read_rows(DATA / "api.json", "names")[1])
    total = collections.Counter()
    by_source = collections.defaultdict(collections.Counter)
    files_using = collections.defaultdict(set)
    by_name = collections.Counter()
    alias_uses = collections.defaultdict(collections.Counter)
    unknown = collections.Counter()
    unknown_files = collections.defaultdict(set)
    sources = []
    for src in SOURCES:
        gitdir = find_gitdir(args.mirror, src["repo"], overrides)
        if gitdir is None:
            print(f"count: {src['id']}: no git dir for {src['repo']}; skipped", file=sys.stderr)
            continue
        commit, files, missing = read_source(gitdir, src)
        n_tf, n_unparsed = 0, 0
        for path, text in files:
            try:
                cells = code_blocks(path, text, d2l=src.get("d2l", False))
            except ValueError:
                continue
            c, unparsed = count_file(api, cells)
            n_unparsed += unparsed
            if c.ns:
                n_tf += 1
            fid = f"{src['id']}:{path}"
            for canon, k in c.uses.items():
                total[canon] += k
                by_source[canon][src["id"]] += k
                files_using[canon].add(fid)
            by_name.update(c.by_name)
            for alias, k in c.aliases.items():
                alias_uses[api.entry.get(alias, alias)][alias] += k
            for u, k in c.unknown.items():
                unknown[u] += k
                unknown_files[u].add(fid)
        sources.append({"id": src["id"], "repo": src["repo"], "commit": commit, "what": src["what"],
                        "files": len(files), "files_importing_tf_or_keras": n_tf,
                        "files_not_in_snapshot": missing,
                        "cells_not_parsed": n_unparsed})
        print(f"count: {src['id']}: {len(files)} files, {n_tf} import TensorFlow or Keras"
              + (f", {len(missing)} not in the snapshot" if missing else ""))
    rows = []
    for canon in sorted(total):
        rows.append({"name": canon, "uses": total[canon], "files": len(files_using[canon]),
                     "sources": dict(sorted(by_source[canon].items())),
                     "by_name": by_name.get(canon, 0),
                     "aliases": dict(sorted(alias_uses[canon].items()))})
    unk = [{"name": u, "uses": k, "files": len(unknown_files[u])}
           for u, k in sorted(unknown.items()) if k >= 2 or len(unknown_files[u]) >= 1]
    write_lines(Path(args.out), {"sources": sources, "max_shared": MAX_SHARED}, "counts", rows,
                extra={"unknown": unk})
    print(f"count: {len(rows)} names used, {sum(total.values())} uses; {len(unk)} unknown chains")


def _self_check():
    """
    >>> rows = [
    ...   {"name": "tf", "aliases": [], "kind": "module"},
    ...   {"name": "tf.keras", "aliases": [], "kind": "module"},
    ...   {"name": "keras", "aliases": [], "kind": "module"},
    ...   {"name": "keras.layers", "aliases": ["tf.keras.layers"], "kind": "module"},
    ...   {"name": "tf.add", "aliases": ["tf.math.add"], "kind": "function"},
    ...   {"name": "tf.reduce_sum", "aliases": ["tf.math.reduce_sum"], "kind": "function"},
    ...   {"name": "tf.Variable", "aliases": [], "kind": "class"},
    ...   {"name": "tf.GradientTape", "aliases": [], "kind": "class"},
    ...   {"name": "keras.layers.Dense", "aliases": ["tf.keras.layers.Dense"], "kind": "class",
    ...    "member_base": "keras.layers.Layer"},
    ...   {"name": "keras.layers.Layer", "aliases": ["tf.keras.layers.Layer"], "kind": "class"},
    ...   {"name": "tf.Variable.assign_add", "aliases": [], "kind": "method", "owner": "tf.Variable"},
    ...   {"name": "tf.GradientTape.gradient", "aliases": [], "kind": "method", "owner": "tf.GradientTape"},
    ...   {"name": "keras.layers.Layer.add_weight", "aliases": [], "kind": "method",
    ...    "owner": "keras.layers.Layer"},
    ...   {"name": "keras.layers.Layer.build", "aliases": [], "kind": "method",
    ...    "owner": "keras.layers.Layer"},
    ... ]
    >>> api = Api(rows)
    >>> code = '''
    ... import tensorflow as tf
    ... from tensorflow.keras import layers
    ... from tensorflow.keras.layers import Dense
    ... import numpy as np, re
    ... v = tf.Variable(1.0)
    ... with tf.GradientTape() as tape:
    ...     y = tf.math.add(v, tf.add(v, 1.0))
    ... g = tape.gradient(y, v)
    ... v.assign_add(g)
    ... d = Dense(3); e = layers.Dense(2)
    ... class Mine(layers.Layer):
    ...     def build(self, shape):
    ...         self.w = self.add_weight(shape=shape)
    ... something.gradient(1)
    ... thing.build()
    ... tf.contrib.layers.xavier()
    ... re.compile("x")
    ... '''
    >>> c, unparsed = count_file(api, [code])
    >>> sorted(c.uses.items())   # doctest: +NORMALIZE_WHITESPACE
    [('keras.layers.Dense', 2), ('keras.layers.Layer', 1), ('keras.layers.Layer.add_weight', 1),
     ('tf.GradientTape', 1), ('tf.GradientTape.gradient', 2), ('tf.Variable', 1),
     ('tf.Variable.assign_add', 1), ('tf.add', 2)]
    >>> c.by_name["tf.GradientTape.gradient"], dict(c.unknown), unparsed
    (1, {'tf.contrib.layers.xavier': 1}, 0)
    >>> sorted(k for k in c.aliases if k.startswith("tf.") and "add" in k)
    ['tf.Variable.assign_add', 'tf.add', 'tf.math.add']
    >>> c, unparsed = count_file(api, ["import tensorflow as tf\\n!pip install x", "x = tf.add(1, 2\\n"])
    >>> dict(c.uses), unparsed
    ({'tf.add': 1}, 1)
    >>> code_blocks("a.md", "```{.python .input}\\n%%tab tensorflow\\nx = tf.ones(2)\\n```\\n", d2l=True)
    ['x = tf.ones(2)\\n']
    """


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-check"]:
        import doctest
        failed, tried = doctest.testmod()
        print(f"count.py: {tried - failed}/{tried} self-checks passed")
        raise SystemExit(1 if failed else 0)
    main()
