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
import os

from .. import restoring
from ..keras.optimizers.base_optimizer import Optimizer
from ..namespaces import no_attribute
from ..tensor import Variable
from .files import checked_prefix, read_file, write_file, write_state
from .graph import children, entry_shown, resolve, show, trackable, walk


def _check_fit(entry, array, var, problems):
    if tuple(array.shape) != tuple(var.shape):
        problems.append(f"{entry_shown(entry)}: the checkpoint holds shape {tuple(array.shape)} "
                        f"({array.dtype.name}), the variable {getattr(var, 'path', var.name)!r} has "
                        f"shape {tuple(var.shape)} ({var.dtype.name})")
    elif array.dtype != var.dtype:
        problems.append(f"{entry_shown(entry)}: the checkpoint holds dtype {array.dtype.name}, "
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
                problems.append(f"{entry_shown(entry)}: the checkpoint holds a variable there, "
                                f"the program has a {type(target).__name__}")
            else:
                _check_fit(entry, array, target, problems)
                plan.append((target, array))
        return plan, waiting, problems, holders

    @staticmethod
    def _target(root, entry):
        """(the variable `entry` goes into, None), or (None, the object to wait in)."""
        obj, holder = resolve(root, entry["route"])
        if entry.get("slot") is None or obj is None:
            return obj, holder
        var, holder = resolve(root, entry["variable"])
        if var is None:
            return None, holder
        if not isinstance(var, Variable) or not isinstance(obj, Optimizer):
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
            restoring.wait(self)
            for holder in {id(h): h for h in holders if h is not None}.values():
                holder.__dict__.setdefault("_checkpoint_deferred", []).append(self)
                self._holders.append(holder)
        else:
            restoring.done(self)

    def _unmatched(self):
        root = self._checkpoint()
        if root is None:
            return []
        variables, _ = walk(root)
        return [(route, v) for route, v in variables.values() if id(v) not in self._matched]

    def assert_consumed(self):
        """Every value in the checkpoint went into a variable, and every variable reachable
        from the checkpoint's objects got one; else AssertionError saying which."""
        if self._waiting:
            shown = ", ".join(entry_shown(e) for e, _ in self._waiting[:5])
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

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute


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
            if not trackable(root):
                raise ValueError(f"Checkpoint: root must be a trackable object (a Variable, "
                                 f"tk.Module, Keras layer, model or optimizer, or a Checkpoint), "
                                 f"got {type(root).__name__} {root!r}")
            objects.update(children(root))
        for name, value in kwargs.items():
            if not trackable(value):
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
        variables, optimizers = walk(self)
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
        write_file(prefix, self._entries())
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
        write_state(directory, path, [path])
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
        prefix = checked_prefix("Checkpoint.restore", save_path)
        entries = read_file("Checkpoint.restore", prefix)
        if any(e["route"] == ["save_counter"] and e.get("slot") is None for e, _ in entries):
            self.save_counter                                 # noqa: B018 (made, to be restored)
        return CheckpointLoadStatus(self, os.fspath(save_path), entries)

    def read(self, save_path, options=None):
        """Read a checkpoint `write` wrote: the same as `restore` in tapekit."""
        if save_path is None:
            raise ValueError("Checkpoint.read: save_path is None; pass the prefix write() returned")
        return self.restore(save_path, options)

    def sync(self):
        """Nothing to wait for: tapekit writes a checkpoint before save returns (TF's sync waits
        for an asynchronous save)."""

    def __repr__(self):
        return f"<tk.train.Checkpoint of {', '.join(self._objects) or 'nothing'}>"
