"""tf.train.Checkpoint in tapekit: save the values of the variables reachable from some
objects, and put them back into the same objects (or new ones built the same way) later.

    ckpt = tk.train.Checkpoint(model=model, optimizer=optimizer)
    ckpt.save("ckpts/run")              # writes ckpts/run-1.tapekit.h5; returns "ckpts/run-1"
    ckpt.restore("ckpts/run-1")         # assigns the saved values into the existing variables

What is saved is a graph of dependencies keyed by names, as TensorFlow's is: the checkpoint's
keyword names (`model`, `optimizer`), then each object's attributes by name (a tk.Module's or a
Keras layer's `dense`, `kernel`, ...; a list's items by index, a dict's by key), down to the
variables. A variable reachable by two routes is saved once, under its shortest route (ties:
the route whose names sort first). An optimizer's slots (Adam's momentum and velocity) are
saved with the variable they belong to, as TensorFlow saves them. Restoring walks the saved
names through the objects you give it, so only the names need to match, not the Python
classes or the order in which things were made.

Deferred restoration, as TensorFlow's: a value whose variable does not exist yet (a Keras
model not built, an optimizer that has not made its slots) is kept and assigned when the
variable is made (the layer is built, the optimizer takes its first step).

The file format is tapekit's own: one HDF5 file `<prefix>.tapekit.h5` holding the arrays and
the names of their routes (as JSON text: names are data, never run). TensorFlow writes
`<prefix>.index` and `<prefix>.data-00000-of-00001` instead; tapekit does not read those and
says so, rather than guess at them. Like TensorFlow, `save` and CheckpointManager keep a
small text file `checkpoint` in the directory naming the latest checkpoints. Every file is
written under a temporary name and moved into place whole, so a failure never leaves half a
checkpoint where a good one was.
"""
import json
import os
import re
import time
import weakref

import numpy as np

from ..module import Module
from ..namespaces import no_attribute
from ..tensor import Variable

SUFFIX = ".tapekit.h5"
FORMAT = "tapekit checkpoint"
VERSION = 1
TF_SUFFIXES = (".index", ".data-00000-of-00001")
STATE_FILE = "checkpoint"


# --- the dependency graph --------------------------------------------------------------------
def _optimizer_class():
    from ..keras.optimizers.base_optimizer import Optimizer   # noqa: PLC0415 (keras after core)
    return Optimizer


def _trackable(value):
    return (isinstance(value, (Variable, Module, Checkpoint)) or hasattr(value, "_checkpoint_children")
            or isinstance(value, _optimizer_class()))


def _holds_trackable(value, depth=0):
    if depth > 20:
        return False
    items = value.values() if isinstance(value, dict) else value
    return any(_trackable(v) or (isinstance(v, (list, tuple, dict)) and _holds_trackable(v, depth + 1))
               for v in items)


def _children(obj):
    """[(name, child)] that the checkpoint's graph has below `obj`, sorted by name."""
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, (list, tuple)):
        found = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, dict):
        found = [(str(k), v) for k, v in obj.items()]
    elif hasattr(obj, "_checkpoint_children"):
        found = list(obj._checkpoint_children())
    elif isinstance(obj, _optimizer_class()):     # its own variables; the slots go with theirs
        found = [(k, v) for k, v in vars(obj).items() if isinstance(v, Variable)]
    else:
        found = list(vars(obj).items())
        if "_layers" in vars(obj) and isinstance(obj, Module):
            # a Sequential's or functional model's layers, by their place among the layers
            # (InputLayers, which hold nothing, left out: a Sequential given tk.Input and
            # one built later name their Dense alike)
            from ..keras.layers.input_layer import InputLayer   # noqa: PLC0415
            found = [(k, v) for k, v in found if k != "_layers"]
            found.append(("layers", [v for v in obj._layers if not isinstance(v, InputLayer)]))
    return sorted(((k, v) for k, v in found if _trackable(v) or (
        isinstance(v, (list, tuple, dict)) and _holds_trackable(v))), key=lambda kv: kv[0])


def _graph(root):
    """Walk breadth first from `root`: ({id(variable): (route, variable)},
    [(route, optimizer)]), each object at its shortest route (a list of names)."""
    variables, optimizers, seen = {}, [], {id(root)}
    level = [([], root)]
    while level:
        following = []
        for route, obj in level:
            for name, child in _children(obj):
                if id(child) in seen:
                    continue
                seen.add(id(child))
                where = route + [name]
                if isinstance(child, Variable):
                    variables[id(child)] = (where, child)
                else:
                    if isinstance(child, _optimizer_class()):
                        optimizers.append((where, child))
                    following.append((where, child))
        level = following
    return variables, optimizers


def _resolve(root, route):
    """(object, None) at `route` below `root`, or (None, the last object reached that can hold
    attributes) where a name is missing."""
    obj, holder = root, root
    for name in route:
        nxt = dict(_children(obj)).get(name)
        if nxt is None:
            return None, holder
        obj = nxt
        if hasattr(obj, "__dict__"):
            holder = obj
    return obj, None


def show(route):
    """A route as TensorFlow shows one, `(root).model.dense.kernel`; a name that is not a
    Python identifier or a number is quoted: `(root)['my model']`."""
    return "(root)" + "".join(f".{n}" if n.isidentifier() or n.isdigit() else f"[{n!r}]"
                              for n in route)


def _key(route):
    """TensorFlow's name for a route in a checkpoint's reader: '/' joins, '.' is '..', '/' '.S'."""
    return "/".join(n.replace(".", "..").replace("/", ".S") for n in route)


def _entry_key(entry):
    if entry.get("slot") is None:
        return _key(entry["route"]) + "/.ATTRIBUTES/VARIABLE_VALUE"
    return (f"{_key(entry['variable'])}/.OPTIMIZER_SLOT/{_key(entry['route'])}/"
            f"{_key([entry['slot']])}/.ATTRIBUTES/VARIABLE_VALUE")


def _entry_shown(entry):
    if entry.get("slot") is None:
        return show(entry["route"])
    return f"the {entry['slot']!r} slot of {show(entry['variable'])} in {show(entry['route'])}"


# --- files -------------------------------------------------------------------------------------
def _h5py(what):
    from ..keras.saving.weights_h5 import load_h5py   # noqa: PLC0415
    return load_h5py(what)


def _write_file(prefix, entries):
    """Write [(entry, array)] to `<prefix>.tapekit.h5`, whole or not at all."""
    from ..keras.saving.files import write_whole   # noqa: PLC0415
    h5py = _h5py("Checkpoint.write")
    path = os.fspath(prefix) + SUFFIX
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)

    def write(temporary):
        with h5py.File(temporary, "w") as f:
            f.attrs["format"] = FORMAT
            f.attrs["version"] = VERSION
            f.attrs["entries"] = json.dumps([e for e, _ in entries])
            values = f.create_group("values")
            for i, (_, array) in enumerate(entries):
                values.create_dataset(str(i), data=array)
    write_whole(path, write)


def _tf_files(prefix):
    return [prefix + s for s in TF_SUFFIXES if os.path.exists(prefix + s)]


def _checked_prefix(what, save_path):
    """The prefix of the checkpoint `save_path` names (a prefix, or the .tapekit.h5 file), or a
    clear error for a TensorFlow checkpoint or a missing file."""
    path = os.fspath(save_path)
    if not isinstance(path, str):
        raise TypeError(f"{what}: save_path must be a path, got {save_path!r}")
    for s in TF_SUFFIXES:
        if path.endswith(s):
            path = path[: -len(s)]
    if path.endswith(SUFFIX):
        path = path[: -len(SUFFIX)]
    if os.path.exists(path + SUFFIX):
        return path
    tf = _tf_files(path)
    if tf:
        raise ValueError(f"{what}: {save_path!r} is a TensorFlow checkpoint ({', '.join(tf)}); "
                         f"tapekit writes and reads its own checkpoint files "
                         f"(<prefix>{SUFFIX}) and does not read TensorFlow's. Save the values "
                         f"again with tapekit (e.g. load them in TensorFlow and copy them with "
                         f"variable.assign).")
    if os.path.isdir(path):
        raise ValueError(f"{what}: {save_path!r} is a directory; pass a checkpoint's prefix, e.g. "
                         f"tk.train.latest_checkpoint({save_path!r})")
    raise FileNotFoundError(f"{what}: no checkpoint at {save_path!r} (no file {path + SUFFIX!r}). "
                            f"Pass the prefix that save() returned, with its number "
                            f"(e.g. 'path/to/ckpt-1'), or tk.train.latest_checkpoint(directory).")


def _read_file(what, prefix):
    """[(entry, array)] from `<prefix>.tapekit.h5`, checked: only numeric arrays and JSON."""
    from ..keras.saving.files import open_h5   # noqa: PLC0415
    h5py = _h5py(what)
    path = prefix + SUFFIX
    with open_h5(h5py, path, what, repr(path)) as f:
        if f.attrs.get("format") != FORMAT:
            raise ValueError(f"{what}: {path!r} is an HDF5 file but not a tapekit checkpoint (it "
                             f"has no format attribute {FORMAT!r}); a Keras weights file loads "
                             f"with model.load_weights")
        if int(f.attrs.get("version", 0)) > VERSION:
            raise ValueError(f"{what}: {path!r} was written by a newer tapekit (format version "
                             f"{int(f.attrs['version'])}); this tapekit reads version {VERSION}")
        try:
            entries = json.loads(f.attrs["entries"])
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{what}: {path!r}: its list of entries cannot be read ({err}); the "
                             f"file is damaged") from None
        values = f.get("values")
        out = []
        for i, entry in enumerate(entries):
            data = values.get(str(i)) if isinstance(values, h5py.Group) else None
            if (not isinstance(data, h5py.Dataset) or data.dtype.kind not in "biufc"
                    or not _valid_entry(entry)):
                raise ValueError(f"{what}: {path!r}: entry {i} is not a named array of numbers; "
                                 f"the file is damaged")
            out.append((entry, np.asarray(data[()])))
    return out


def _valid_entry(entry):
    def names(r):
        return isinstance(r, list) and all(isinstance(n, str) for n in r)
    return (isinstance(entry, dict) and names(entry.get("route"))
            and (entry.get("slot") is None or (isinstance(entry["slot"], str)
                                               and names(entry.get("variable")))))


# --- the directory's state file (TensorFlow's "checkpoint" text file) ----------------------------
def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _unquote(text):
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), text[1:-1])


def _write_state(directory, latest, paths, timestamps=(), preserved=None, filename=STATE_FILE):
    from ..keras.saving.files import write_whole   # noqa: PLC0415

    def rel(p):
        return os.path.relpath(p, directory) if not os.path.isabs(p) or os.path.isabs(directory) \
            else p
    lines = [f"model_checkpoint_path: {_quote(rel(latest))}"]
    lines += [f"all_model_checkpoint_paths: {_quote(rel(p))}" for p in paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps]
    if preserved is not None:
        lines.append(f"last_preserved_timestamp: {preserved!r}")
    text = "\n".join(lines) + "\n"
    write_whole(os.path.join(directory, filename),
                lambda tmp: open(tmp, "w", encoding="utf-8").write(text))


def _read_state(directory, filename=STATE_FILE):
    """{"latest": path or None, "paths": [...], "timestamps": [...]} from the state file (paths
    joined to `directory` where relative), or None when there is none."""
    try:
        with open(os.path.join(directory, filename or STATE_FILE), encoding="utf-8") as f:
            text = f.read(1 << 20)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, UnicodeDecodeError):
        return None
    state = {"latest": None, "paths": [], "timestamps": [], "preserved": None}
    for line in text.splitlines():
        m = re.match(r'\s*(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|[-+0-9.eE]+)\s*$', line)
        if not m:
            continue
        key, value = m.groups()
        if value.startswith('"'):
            value = _unquote(value)
            value = value if os.path.isabs(value) else os.path.join(directory, value)
        if key == "model_checkpoint_path":
            state["latest"] = value
        elif key == "all_model_checkpoint_paths":
            state["paths"].append(value)
        elif key == "all_model_checkpoint_timestamps":
            state["timestamps"].append(float(value))
        elif key == "last_preserved_timestamp":
            state["preserved"] = float(value)
    return state


def _exists(prefix):
    return os.path.exists(prefix + SUFFIX) or bool(_tf_files(prefix))


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in `checkpoint_dir` (from its `checkpoint` file), or
    None when there is none, as tf.train.latest_checkpoint.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> ckpt = tk.train.Checkpoint(v=tk.Variable(1.0))
    >>> _ = ckpt.save(os.path.join(d, "ckpt")); _ = ckpt.save(os.path.join(d, "ckpt"))
    >>> os.path.basename(tk.train.latest_checkpoint(d))
    'ckpt-2'
    >>> tk.train.latest_checkpoint(os.path.join(d, "nothing here")) is None
    True
    """
    directory = os.fspath(checkpoint_dir)
    state = _read_state(directory, latest_filename)
    if state is None or state["latest"] is None or not _exists(state["latest"]):
        return None
    return state["latest"]


# --- restoring ---------------------------------------------------------------------------------
_pending = weakref.WeakSet()     # statuses with values waiting for their variables


def retry_deferred():
    """Assign the values that restores are keeping for variables made since (a layer built, an
    optimizer's slots made). Keras layers and optimizers call this; nothing to do is cheap."""
    for status in list(_pending):
        status._retry()


def has_deferred():
    return bool(_pending)


def _check_fit(entry, array, var, problems):
    if tuple(array.shape) != tuple(var.shape):
        problems.append(f"{_entry_shown(entry)}: the checkpoint holds shape {tuple(array.shape)} "
                        f"({array.dtype.name}), the variable {getattr(var, 'path', var.name)!r} has "
                        f"shape {tuple(var.shape)} ({var.dtype.name})")
    elif array.dtype != var.dtype:
        problems.append(f"{_entry_shown(entry)}: the checkpoint holds dtype {array.dtype.name}, "
                        f"the variable {getattr(var, 'path', var.name)!r} has dtype "
                        f"{var.dtype.name} (shape {tuple(var.shape)})")


class CheckpointLoadStatus:
    """What `Checkpoint.restore` returned: which saved values went where, and which wait for
    variables not made yet. Its assertions are TensorFlow's."""

    def __init__(self, checkpoint, save_path, entries):
        # While values wait, the objects they wait in hold the status (`_holders`): as
        # TensorFlow keeps deferred restorations with the objects, whoever keeps the status.
        self._root = checkpoint
        self._holders = []
        self.save_path = save_path
        self._waiting = entries          # [(entry, array)] not yet assigned
        self._matched = set()            # id() of the variables assigned
        self._retry(first=True)

    def _checkpoint(self):
        return self._root

    def _plan(self):
        root = self._checkpoint()
        plan, waiting, problems, holders = [], [], [], []
        if root is None:
            return plan, waiting, problems, holders
        for entry, array in self._waiting:
            target, holder = self._target(root, entry)
            if target is None:
                waiting.append((entry, array))
                holders.append(holder)
            elif not isinstance(target, Variable):
                problems.append(f"{_entry_shown(entry)}: the checkpoint holds a variable there, "
                                f"the program has a {type(target).__name__}")
            else:
                _check_fit(entry, array, target, problems)
                plan.append((target, array))
        return plan, waiting, problems, holders

    @staticmethod
    def _target(root, entry):
        """(the variable `entry` goes into, None), or (None, the object to wait in)."""
        obj, holder = _resolve(root, entry["route"])
        if entry.get("slot") is None or obj is None:
            return obj, holder
        var, holder = _resolve(root, entry["variable"])
        if var is None:
            return None, holder
        if not isinstance(var, Variable) or not isinstance(obj, _optimizer_class()):
            return var, None                  # not a variable: _plan says so
        slots = obj._slots.get(id(var))
        return (None, obj) if slots is None else (slots[1].get(entry["slot"]), None)

    def _retry(self, first=False):
        plan, waiting, problems, holders = self._plan()
        if problems:
            listed = "\n  ".join(problems[:12]) + ("\n  ..." if len(problems) > 12 else "")
            raise ValueError(f"Checkpoint.restore: {self.save_path!r} does not fit the objects "
                             f"being restored:\n  {listed}\nNothing "
                             f"{'was' if first else 'more was'} assigned. Build the same "
                             f"architecture (same attribute names, shapes and dtypes) as when "
                             f"the checkpoint was saved.")
        for var, array in plan:
            var.assign(array)
            self._matched.add(id(var))
        self._waiting = waiting
        for holder in self._holders:              # let go of the objects waited in before
            kept = vars(holder).get("_checkpoint_deferred", [])
            if self in kept:
                kept.remove(self)
        self._holders = []
        if waiting:
            _pending.add(self)
            for holder in {id(h): h for h in holders if h is not None}.values():
                holder.__dict__.setdefault("_checkpoint_deferred", []).append(self)
                self._holders.append(holder)
        else:
            _pending.discard(self)

    def _unmatched(self):
        root = self._checkpoint()
        if root is None:
            return []
        variables, _ = _graph(root)
        return [(route, v) for route, v in variables.values() if id(v) not in self._matched]

    def assert_consumed(self):
        """Every value in the checkpoint went into a variable, and every variable reachable
        from the checkpoint's objects got one; else AssertionError saying which."""
        if self._waiting:
            shown = ", ".join(_entry_shown(e) for e, _ in self._waiting[:5])
            raise AssertionError(f"Unresolved object in checkpoint: {len(self._waiting)} saved "
                                 f"value(s) have no variable yet: {shown}. Build the model (call "
                                 f"it on a batch) and the optimizer (optimizer.build(model."
                                 f"trainable_variables)) to restore them, or call expect_partial()")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """Every variable reachable from the checkpoint's objects got a value (values kept for
        variables not made yet are allowed); else AssertionError naming them."""
        unmatched = self._unmatched()
        if unmatched:
            shown = ", ".join(f"{show(r)} ({v.name!r}, shape {tuple(v.shape)})"
                              for r, v in unmatched[:5])
            raise AssertionError(f"Found {len(unmatched)} Python objects that were not bound to "
                                 f"checkpointed values, likely due to changes in the Python "
                                 f"program: {shown}")
        return self

    def assert_nontrivial_match(self):
        """At least one variable besides the save counter got a value."""
        root = self._checkpoint()
        counter = getattr(root, "_save_counter", None)
        if not [i for i in self._matched if counter is None or i != id(counter)]:
            raise AssertionError(f"Nothing except the save counter was restored from "
                                 f"{self.save_path!r}: no saved name matches the objects given")
        return self

    def expect_partial(self):
        """Say that not every saved value is expected to be used; tapekit prints no warning
        about them anyway. Returns the status."""
        return self

    def __getattr__(self, name):
        return no_attribute(self, name)


class InitializationOnlyStatus(CheckpointLoadStatus):
    """What `restore(None)` returns: nothing was restored (TensorFlow's)."""

    def __init__(self):
        self._waiting, self._matched, self.save_path, self._root = [], set(), None, None

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_nontrivial_match = assert_consumed


# --- Checkpoint ----------------------------------------------------------------------------------
class Checkpoint:
    """Save and restore variables, tk.Modules, Keras models, layers and optimizers (their
    slots too), and other Checkpoints, by the names given here (tf.train.Checkpoint).

    >>> import os, tempfile
    >>> step, w = tk.Variable(3), tk.Variable([1.0, 2.0])
    >>> ckpt = tk.train.Checkpoint(step=step, weights=w)
    >>> path = ckpt.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
    >>> os.path.basename(path)
    'ckpt-1'
    >>> _ = w.assign([0.0, 0.0])
    >>> ckpt.restore(path).assert_consumed().__class__.__name__
    'CheckpointLoadStatus'
    >>> w.numpy()
    array([1., 2.], dtype=float32)

    The files are tapekit's own, `<prefix>.tapekit.h5` (see tapekit/train/checkpoint.py): a
    TensorFlow checkpoint (`.index`, `.data-...`) is refused, not misread.
    """

    def __init__(self, root=None, **kwargs):
        objects = {}
        if root is not None:
            if not _trackable(root):
                raise ValueError(f"Checkpoint: root must be a trackable object (a Variable, "
                                 f"tk.Module, Keras layer, model or optimizer, or a Checkpoint), "
                                 f"got {type(root).__name__} {root!r}")
            objects.update(_children(root))
        for name, value in kwargs.items():
            if not _trackable(value):
                raise ValueError(f"Checkpoint: `Checkpoint` was expecting a trackable object (a "
                                 f"Variable, tk.Module, Keras layer, model or optimizer, or a "
                                 f"Checkpoint) for {name!r}, got {type(value).__name__} {value!r}")
            if root is not None and name in objects and objects[name] is not value:
                raise ValueError(f"Checkpoint: {name!r} is given as a keyword and is also an "
                                 f"attribute of root; pass it once")
            objects[name] = value
        self._objects = objects
        self._save_counter = None

    def _checkpoint_children(self):
        out = list(self._objects.items())
        if self._save_counter is not None:
            out.append(("save_counter", self._save_counter))
        return out

    @property
    def save_counter(self):
        """How many times `save` has been called (restored with the checkpoint), as TensorFlow's."""
        if self._save_counter is None:
            self._save_counter = Variable(0, dtype="int64", trainable=False, name="save_counter")
        return self._save_counter

    def __getattr__(self, name):
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        return no_attribute(self, name)

    def _entries(self):
        variables, optimizers = _graph(self)
        entries = [({"route": route}, var.numpy()) for route, var in variables.values()]
        for route, opt in optimizers:
            for var, named in list(opt._slots.values()):
                if id(var) not in variables:
                    continue          # a slot of a variable not in this checkpoint: as TF, left out
                for slot, value in named.items():
                    entries.append(({"route": route, "slot": slot,
                                     "variable": variables[id(var)][0]}, value.numpy()))
        return entries

    def write(self, file_prefix, options=None):
        """Write the checkpoint to `<file_prefix>.tapekit.h5` (no number added, save_counter
        unchanged, the directory's `checkpoint` file untouched); returns `file_prefix`."""
        prefix = os.fspath(file_prefix)
        _write_file(prefix, self._entries())
        return prefix

    def save(self, file_prefix, options=None):
        """Count this save (save_counter + 1 = N), write `<file_prefix>-N`, note it in the
        directory's `checkpoint` file, and return "file_prefix-N"."""
        counter = self.save_counter
        counter.assign_add(1)
        try:
            path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}")
        except BaseException:
            counter.assign_sub(1)
            raise
        directory = os.path.dirname(path) or "."
        _write_state(directory, path, [path])
        return path

    def restore(self, save_path, options=None):
        """Assign the values saved at `save_path` (a prefix save() returned) into these objects'
        variables; returns a status (`assert_consumed()`, `expect_partial()`, ...).

        Everything that exists is checked before anything is assigned: a shape or dtype that
        does not fit raises ValueError naming the route, and no variable changes. Values for
        variables not made yet wait for them (see the module's docstring). `None` restores
        nothing, as in TensorFlow.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        prefix = _checked_prefix("Checkpoint.restore", save_path)
        entries = _read_file("Checkpoint.restore", prefix)
        if any(e["route"] == ["save_counter"] and e.get("slot") is None for e, _ in entries):
            self.save_counter                                 # noqa: B018 (made, to be restored)
        return CheckpointLoadStatus(self, os.fspath(save_path), entries)

    def read(self, save_path, options=None):
        """Read a checkpoint `write` wrote: the same as `restore` in tapekit."""
        if save_path is None:
            raise ValueError("Checkpoint.read: save_path is None; pass the prefix write() returned")
        return self.restore(save_path, options)

    def __repr__(self):
        return f"<tk.train.Checkpoint of {', '.join(self._objects) or 'nothing'}>"


# --- CheckpointManager -----------------------------------------------------------------------------
class CheckpointManager:
    """Save numbered checkpoints into a directory and keep the newest `max_to_keep` of them
    (tf.train.CheckpointManager); `latest_checkpoint` and `checkpoints` read the directory's
    `checkpoint` file, so a new manager continues where an earlier run stopped.

    >>> import os, tempfile
    >>> ckpt = tk.train.Checkpoint(v=tk.Variable(1.0))
    >>> manager = tk.train.CheckpointManager(ckpt, tempfile.mkdtemp(), max_to_keep=2)
    >>> [os.path.basename(manager.save()) for _ in range(3)]
    ['ckpt-1', 'ckpt-2', 'ckpt-3']
    >>> [os.path.basename(p) for p in manager.checkpoints]      # ckpt-1 was deleted
    ['ckpt-2', 'ckpt-3']
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None, last_checkpoint_step=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager: checkpoint must be a tk.train.Checkpoint, got "
                            f"{type(checkpoint).__name__}")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"CheckpointManager: max_to_keep must be a positive integer or None, "
                             f"got {max_to_keep!r}")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._name = checkpoint_name
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step = last_checkpoint_step
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = _read_state(self._directory)
        if state is not None and state["latest"] is not None:
            times = state["timestamps"] or [time.time()] * len(state["paths"])
            self._kept = [(p, t) for p, t in zip(state["paths"], times) if _exists(p)]
            self._latest = state["latest"] if _exists(state["latest"]) else None
            self._preserved = state["preserved"] if state["preserved"] is not None else time.time()
        else:
            self._kept, self._latest, self._preserved = [], None, time.time()

    checkpoint = property(lambda self: self._checkpoint)
    directory = property(lambda self: self._directory)
    checkpoint_interval = property(lambda self: self._checkpoint_interval)

    @property
    def latest_checkpoint(self):
        """The prefix of the newest checkpoint, or None."""
        return self._latest

    @property
    def checkpoints(self):
        """The prefixes of the checkpoints kept, oldest first."""
        return [p for p, _ in self._kept]

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save a checkpoint numbered `checkpoint_number` (default: the save counter after
        counting this save), delete the oldest beyond max_to_keep; returns its prefix. With a
        checkpoint_interval, a save before enough steps returns None."""
        if self._checkpoint_interval is not None and check_interval:
            step = int(np.asarray(getattr(self._step_counter, "numpy", lambda: self._step_counter)()))
            if self._last_step is not None and step < self._last_step + self._checkpoint_interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(
            np.asarray(getattr(checkpoint_number, "numpy", lambda: checkpoint_number)()))
        try:
            path = self._checkpoint.write(f"{self._prefix}-{number}")
        except BaseException:
            counter.assign_sub(1)
            raise
        now = time.time()
        self._kept = [(p, t) for p, t in self._kept if p != path] + [(path, now)]
        self._latest = path
        self._sweep()
        _write_state(self._directory, path, self.checkpoints, [t for _, t in self._kept],
                     self._preserved)
        return path

    def _sweep(self):
        if self._max_to_keep is None:
            return
        while len(self._kept) > self._max_to_keep:
            path, stamp = self._kept.pop(0)
            if self._keep_hours is not None and stamp - self._preserved > self._keep_hours * 3600:
                self._preserved = stamp        # kept for good, no longer managed (as TF)
                continue
            for file in [path + SUFFIX]:
                try:
                    os.remove(file)
                except FileNotFoundError:
                    pass

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its prefix; without one, call init_fn
        (if given) and return None."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self):
        """Nothing to wait for: tapekit writes checkpoints before save returns."""

    def __getattr__(self, name):
        return no_attribute(self, name)


# --- reading a checkpoint's arrays -------------------------------------------------------------
class CheckpointReader:
    """The arrays of a checkpoint by TensorFlow's key names (tf.train.load_checkpoint):
    `get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE")`, `get_variable_to_shape_map()`, ..."""

    def __init__(self, prefix):
        self._arrays = {_entry_key(e): a for e, a in _read_file("load_checkpoint", prefix)}

    def get_tensor(self, name):
        if name not in self._arrays:
            raise KeyError(f"load_checkpoint: the checkpoint has no key {name!r}; its keys are "
                           f"{sorted(self._arrays)[:20]}")
        return self._arrays[name].copy()

    def has_tensor(self, name):
        return name in self._arrays

    def get_variable_to_shape_map(self):
        return {k: list(a.shape) for k, a in self._arrays.items()}

    def get_variable_to_dtype_map(self):
        from .. import dtypes   # noqa: PLC0415
        return {k: dtypes.as_dtype(a.dtype) for k, a in self._arrays.items()}


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint's prefix, or for the latest one in a directory.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = tk.train.Checkpoint(step=tk.Variable(7)).save(os.path.join(d, "ckpt"))
    >>> tk.train.load_checkpoint(d).get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE")
    array(7, dtype=int32)
    """
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"load_checkpoint: no checkpoint found in {path!r}")
        path = latest
    return CheckpointReader(_checked_prefix("load_checkpoint", path))
