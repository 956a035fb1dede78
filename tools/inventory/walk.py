"""Step 1: walk TensorFlow's and Keras's public API; run each function on a generated sample.

Runs in a TensorFlow venv (TensorFlow and Keras are never tapekit dependencies):

    /path/to/tf-venv/bin/python tools/inventory/walk.py          # writes data/api.json, data/tf_samples.json

What it writes (both sorted by name, one entry a line, so that a new run's diff is readable):
- `data/api.json`: every public name reachable from `tf.*` (with `tf.keras.*`) and `keras.*`,
  and the public methods and attributes of the classes learners touch (MEMBER_CLASSES). One
  entry per object: its canonical name, every alias (`tf.add` and `tf.math.add`,
  `keras.layers.Dense` and `tf.keras.layers.Dense`), its kind, its signature (parameter names,
  kinds, defaults as text) and its scope (`scope.py`: None, or the reason it is out of scope).
  Modules that are out of scope whole (tf.compat.v1, tf.raw_ops, ...) are one entry each,
  with the number of names they hold, and are not walked.
- `data/tf_samples.json`: for each in-scope function of the numeric modules (SAMPLE_MODULES),
  the sample it was run on (`samples.py`, shared with compare.py) and TensorFlow's output, or
  why there is none ("no sample: ...").
"""
import inspect
import json
import os
import re
import signal
import sys
import types
import warnings
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.filterwarnings("ignore")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

import samples  # noqa: E402
from jsonrows import write_lines  # noqa: E402
import scope  # noqa: E402

DATA = HERE / "data"

# Modules listed as one entry each (out of scope whole, or private copies), never walked.
NOT_WALKED = {
    "tf.compat.v1": "compat", "tf.compat.v2": "compat", "tf.raw_ops": "raw-ops",
    "keras.src": None, "tf.keras.src": None,   # private: not public API at all
}

# Classes whose public methods and attributes are listed as names of their own
# (`tf.Tensor.numpy`, `keras.Model.fit`): the ones learners call methods on. A member that a
# class inherits from another class of this list is listed once, under that class.
MEMBER_CLASSES = [
    "tf.Tensor", "tf.Variable", "tf.GradientTape", "tf.Module", "tf.TensorShape", "tf.DType",
    "tf.TensorArray", "tf.TensorSpec", "tf.autodiff.ForwardAccumulator", "tf.random.Generator",
    "tf.train.Checkpoint", "tf.train.CheckpointManager",
    "keras.Model", "keras.Sequential", "keras.layers.Layer", "keras.Variable", "keras.KerasTensor",
    "keras.optimizers.Optimizer", "keras.optimizers.schedules.LearningRateSchedule",
    "keras.losses.Loss", "keras.metrics.Metric", "keras.callbacks.Callback",
    "keras.callbacks.History", "keras.initializers.Initializer", "keras.regularizers.Regularizer",
    "keras.constraints.Constraint", "keras.utils.PyDataset", "keras.utils.Progbar",
]

# The modules whose functions get a sample run (numbers only: no side effects, no files).
SAMPLE_MODULES = re.compile(
    r"^(tf|tf\.math|tf\.nn|tf\.linalg|tf\.signal|tf\.image|tf\.bitwise|tf\.dtypes|keras\.ops(\.\w+)?"
    r"|keras\.activations|keras\.losses|keras\.metrics|keras\.backend)\.[A-Za-z]\w*$")
# ...except these, which draw random numbers, print, change global state or take callables.
NO_SAMPLE = re.compile(
    r"random|dropout|shuffle|^tf\.(print|py_function|numpy_function|function|custom_gradient"
    r"|recompute_grad|map_fn|vectorized_map|scan|foldl|foldr|while_loop|cond|case|switch_case"
    r"|init_scope|name_scope|get_logger|executing_eagerly|inside_function|no_op|make_ndarray|timestamp"
    r"|make_tensor_proto|register_tensor_conversion_function|ensure_shape|get_static_value)$"
    r"|^keras\.backend\.(clear_session|set_\w+|\w*floatx|epsilon|image_data_format|backend)$"
    r"|^tf\.nn\.(fractional_\w+)$")


def _kind(obj):
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "constant"


def _text(value):
    """A default value as stable text (no memory addresses)."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def signature_of(obj):
    """[[name, kind, default-or-None], ...] of a callable, or None where Python has none."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    out = []
    for p in sig.parameters.values():
        default = None if p.default is inspect.Parameter.empty else _text(p.default)
        out.append([p.name, p.kind.name, default])
    return out


def _is_api_module(obj):
    """TensorFlow's generated API modules (tensorflow._api.v2.*) and Keras's (keras.*,
    keras._tf_keras.*), not the implementation modules some of them expose (tf.dtensor.python,
    keras.src)."""
    name = getattr(obj, "__name__", "") or ""
    parts = name.split(".")
    if not isinstance(obj, types.ModuleType) or parts[0] not in ("tensorflow", "keras"):
        return False
    if name.startswith("tensorflow._api."):
        return True
    return not set(parts[1:]) & {"src", "python", "core", "compiler", "tsl", "proto", "include"}


class Walker:
    def __init__(self):
        self.by_key = {}          # identity key -> entry
        self.modules = {}         # path -> entry of a module not walked
        self.member_classes = {}  # MEMBER_CLASSES path -> class
        self.order = 0

    def key(self, path, obj):
        if inspect.isclass(obj) or inspect.isroutine(obj) or callable(obj) or isinstance(
                obj, tf.dtypes.DType):
            return ("id", id(obj))
        return ("path", path)     # plain values (None, ints, strings): no aliasing by identity

    def add(self, path, obj, kind=None, owner=None):
        k = self.key(path, obj)
        entry = self.by_key.get(k)
        if entry is None:
            entry = {"aliases": set(), "kind": kind or _kind(obj), "obj": obj, "owner": owner}
            self.by_key[k] = entry
        entry["aliases"].add(path)
        return entry

    def walk(self, prefix, module, depth=0):
        if prefix in NOT_WALKED:
            if NOT_WALKED[prefix] is not None:
                names = [n for n in dir(module) if not n.startswith("_")]
                self.modules[prefix] = {"kind": "module", "names_inside": len(names),
                                        "scope": NOT_WALKED[prefix]}
            return
        if depth > 6:
            return
        self.add(prefix, module, "module")
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            path = f"{prefix}.{name}"
            try:
                obj = getattr(module, name)
            except Exception:   # a lazy name that fails to import: listed, kind unknown
                self.by_key[("path", path)] = {"aliases": {path}, "kind": "unimportable",
                                               "obj": None, "owner": None}
                continue
            if isinstance(obj, types.ModuleType):
                if _is_api_module(obj):
                    self.walk(path, obj, depth + 1)
                continue        # a third-party module re-exported (np, ...): not TF's API
            self.add(path, obj)

    def members(self, class_paths):
        """The public methods and attributes of MEMBER_CLASSES, each once."""
        classes = self.member_classes = {}
        for p in class_paths:
            root, *rest = p.split(".")
            obj = {"tf": tf, "keras": keras}[root]
            for part in rest:
                obj = getattr(obj, part)
            classes[p] = obj
        # What learners hold is an EagerTensor and a ResourceVariable: `numpy`, `assign`...
        # live there, not on tf.Tensor and tf.Variable themselves.
        classes["tf.Tensor"] = type(tf.constant(0.0))
        classes["tf.Variable"] = type(tf.Variable(0.0))
        owner_of = {}             # (member name, object id) -> class path that lists it
        # Base classes first, so that an inherited member is listed under its base.
        for cpath, cls in sorted(classes.items(), key=lambda kv: len(kv[1].__mro__)):
            for name in sorted(dir(cls)):
                if name.startswith("_"):
                    continue
                try:
                    static = inspect.getattr_static(cls, name)
                except AttributeError:
                    continue
                mkey = (name, id(static))
                if mkey in owner_of:
                    self.by_key[("member", owner_of[mkey], name)]["aliases"].add(f"{cpath}.{name}")
                    continue
                owner_of[mkey] = cpath
                if isinstance(static, property) or type(static).__name__ in (
                        "cached_property", "getset_descriptor", "member_descriptor"):
                    kind, target = "property", None
                elif isinstance(static, (staticmethod, classmethod)) or inspect.isroutine(static):
                    kind, target = "method", getattr(cls, name)
                else:
                    kind, target = "attribute", None
                self.by_key[("member", cpath, name)] = {
                    "aliases": {f"{cpath}.{name}"}, "kind": kind, "obj": target, "owner": cpath}
        for cpath, attrs in instance_attributes().items():
            for name in attrs:
                if ("member", cpath, name) in self.by_key or any(
                        k[0] == "member" and k[2] == name and k[1] in _bases(cpath, classes)
                        for k in self.by_key if k[0] == "member"):
                    continue
                self.by_key[("member", cpath, name)] = {
                    "aliases": {f"{cpath}.{name}"}, "kind": "attribute", "obj": None,
                    "owner": cpath}


def member_base(cls, classes):
    """The most specific class of MEMBER_CLASSES that `cls` is (or subclasses), or None."""
    found = [(len(c.__mro__), p) for p, c in classes.items() if inspect.isclass(cls) and issubclass(cls, c)]
    return max(found)[1] if found else None


def _bases(cpath, classes):
    cls = classes[cpath]
    return {p for p, c in classes.items() if c is not cls and issubclass(cls, c)}


def instance_attributes():
    """Attributes that only instances have (set in __init__, build or fit), per class."""
    x = np.ones((4, 2), "float32")
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    history = model.fit(x, x[:, :1], epochs=1, verbose=0)
    made = {
        "tf.Tensor": tf.constant(1.0), "tf.Variable": tf.Variable(1.0),
        "tf.GradientTape": tf.GradientTape(), "tf.Module": tf.Module(),
        "keras.Model": model, "keras.layers.Layer": keras.layers.Layer(),
        "keras.optimizers.Optimizer": keras.optimizers.Optimizer(learning_rate=0.1),
        "keras.losses.Loss": keras.losses.Loss(),
        "keras.metrics.Metric": keras.metrics.Metric(),
        "keras.callbacks.Callback": keras.callbacks.Callback(),
        "keras.callbacks.History": history,
    }
    out = {}
    for cpath, inst in made.items():
        names = set(n for n in vars(inst) if not n.startswith("_")) if hasattr(inst, "__dict__") else set()
        out[cpath] = sorted(n for n in names if not hasattr(type(inst), n))
    return out


def canonical(aliases):
    """The alias an entry is known by: TensorFlow's own names first (tf.add before
    tf.math.add, the shorter), then keras.X before tf.keras.X, then alphabetical.

    >>> canonical({"tf.math.add", "tf.add"})
    'tf.add'
    >>> canonical({"tf.keras.layers.Dense", "keras.layers.Dense"})
    'keras.layers.Dense'
    >>> canonical({"tf.keras.losses.MeanSquaredError", "tf.losses.MeanSquaredError",
    ...            "keras.losses.MeanSquaredError"})
    'keras.losses.MeanSquaredError'
    """
    def rank(a):
        keras_side = a.startswith("keras.") or a.startswith("tf.keras.") or any(
            a.startswith(f"tf.{m}.") for m in ("losses", "metrics", "optimizers", "initializers"))
        family = (2 if a.startswith("tf.keras.") else 1) if keras_side else 0
        experimental = ".experimental." in a or ".compat." in a
        return (experimental, family, a.count("."), a)
    return min(aliases, key=rank)


def _scope(aliases):
    """None (in scope) unless every alias is out of scope: then the canonical one's reason."""
    reasons = {a: scope.classify(a) for a in aliases}
    if any(r is None for r in reasons.values()):
        return None
    return reasons[canonical(aliases)]


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def run_sample(path, fn, sig):
    """Run `fn` on the sample samples.make_sample gives for its signature (arrays of shape
    (2, 3), then (3, 3) when TensorFlow refuses those); record the output."""
    if NO_SAMPLE.search(path):
        return {"sample": None, "why": "no sample: random, printing, global state or a callable argument"}
    dtypes = {"float32": tf.float32, "int32": tf.int32, "float64": tf.float64, "bool": tf.bool}
    for shape in ((2, 3), (3, 3)):
        spec, why = samples.make_sample(sig, shape)
        if spec is None:
            return {"sample": None, "why": why}
        args, kwargs = samples.build(spec, dtypes)
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(10)
        try:
            result = fn(*args, **kwargs)
            encoded = samples.encode(result, lambda v: v.numpy() if hasattr(v, "numpy") else v)
        except _Timeout:
            return {"sample": spec, "why": "no sample: TensorFlow took over 10 s"}
        except Exception as e:   # noqa: BLE001 - the sample does not fit this function
            why = f"no sample: TensorFlow raised {type(e).__name__}"
            continue
        finally:
            signal.alarm(0)
        if encoded is None:
            return {"sample": spec, "why": f"no sample: returns a {type(result).__name__}"}
        if "nan" in json.dumps(encoded):
            # outside the function's domain (cholesky of a matrix that is not positive
            # definite gives NaN beside whatever memory held): nothing to compare
            return {"sample": spec, "why": "no sample: TensorFlow's output has NaN on it"}
        return {"sample": spec, "output": encoded}
    return {"sample": None, "why": why}


def main():
    tf.random.set_seed(0)
    w = Walker()
    w.walk("tf", tf)
    w.walk("tf.keras", tf.keras)   # the lazy loader: reached through dir(tf) too, made sure here
    w.walk("keras", keras)
    w.members(MEMBER_CLASSES)
    for root, module in (("tf", tf), ("keras", keras)):   # the one dunder learners print
        w.add(f"{root}.__version__", module.__version__)
    entries, tf_samples = [], {}
    for entry in w.by_key.values():
        aliases = entry["aliases"]
        name = canonical(aliases)
        obj, kind = entry["obj"], entry["kind"]
        sig = signature_of(obj) if kind in ("function", "class", "method") and obj is not None else None
        reason = _scope(aliases)
        row = {"name": name, "aliases": sorted(aliases - {name}), "kind": kind,
               "signature": sig, "scope": reason}
        if entry["owner"]:
            row["owner"] = entry["owner"]
        if kind == "class" and obj is not None:
            base = member_base(obj, w.member_classes)
            if base:
                row["member_base"] = base   # count.py: `x = ThisClass(...)`; x.fit -> base's fit
        if kind == "module":
            row["signature"] = None
        entries.append(row)
        if reason is None and kind == "function" and any(SAMPLE_MODULES.match(a) for a in aliases):
            if sig is not None:
                tf_samples[name] = run_sample(name, obj, sig)
    for path, mod in w.modules.items():
        entries.append({"name": path, "aliases": [], "kind": "module", "signature": None,
                        "scope": mod["scope"], "names_inside": mod["names_inside"]})
    entries.sort(key=lambda e: e["name"])
    DATA.mkdir(exist_ok=True)
    header = {"tensorflow": tf.__version__, "keras": keras.__version__,
              "numpy": np.__version__, "reasons": scope.REASONS}
    write_lines(DATA / "api.json", header, "names", entries)
    write_lines(DATA / "tf_samples.json", header | {"reasons": None}, "samples",
                [{"name": k} | v for k, v in sorted(tf_samples.items())])
    n_in = sum(e["scope"] is None for e in entries)
    n_run = sum("output" in v for v in tf_samples.values())
    print(f"walk: {len(entries)} names ({n_in} in scope); {len(tf_samples)} functions sampled, "
          f"{n_run} with TensorFlow's output")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-check"]:
        import doctest
        failed, tried = doctest.testmod()
        print(f"walk.py: {tried - failed}/{tried} self-checks passed")
        raise SystemExit(1 if failed else 0)
    main()
