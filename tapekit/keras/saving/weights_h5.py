"""Model weights in Keras 3's `.weights.h5` layout, so that a file moves between tapekit and Keras.

Keras 3 walks a model the way its saving library does and writes each layer's own weights,
trainable ones first, as the datasets "0", "1", ... of an HDF5 group `<path>/vars` whose
attribute `name` is the layer's name:

    vars                    the model's own weights (usually none)
    layers/dense/vars/0     a Sequential's or functional model's layers sit under `layers/`,
    layers/dense/vars/1     named by their class in snake_case and numbered per class
    layers/dense_1/vars/0   (dense, dense_1, ...) whatever names the layers were given
    block/d1/vars/0         a layer's sublayers sit under the attribute holding them; the
    block/_inner/vars/0     attributes are visited in sorted order, private ones (`_inner`)
                            last; a list or dict numbers its layers by class, a nested one
                            is `container`, `container_1`, ...
    layers/dense_3/vars/0   a subclassed model's `layers` (its sublayers, in the order they
                            were assigned) is visited as an attribute too: a layer held in a
                            list, a dict or a private attribute usually sits there, as the
                            attributes sorted before "layers" took the others first

Each layer is written once, where the walk first meets it (a number is used up also where it
is met again).

A compiled model's optimizer state sits under `optimizer/vars` (Keras 3's optimizer.variables:
iterations, the learning rate, then the slots in Keras 3's order, see `optimizer_state`), in a
.weights.h5 file as in a .keras archive. load_weights reads it, as Keras 3 does, into an
optimizer that has made its slots (one that has taken a step, or was built), and leaves an
optimizer that has not as it is, with a warning.

Loading reads the file whole and checks every group against the model before it assigns
anything: a file that does not fit (a layer missing, other counts or shapes of weights,
weights no layer takes) raises and leaves every weight as it was. Only numeric arrays are read:
nothing in the file is unpickled or run.
"""
import os
import warnings

import numpy as np

from ...tensor import Variable
from ..utils.naming import snake_name
from . import files
from .keras_saveable import KerasSaveable

SUFFIX = ".weights.h5"


def layer_paths(model):
    """[(path, layer)], the model first (path ''), in the order Keras 3 walks them.

    >>> tk.layers.clear_session()
    >>> model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2, name="hidden"),
    ...                        tk.layers.Dense(1)])
    >>> [(path, layer.name) for path, layer in tk.saving.weights_h5.layer_paths(model)]
    [('', 'sequential'), ('layers/dense', 'hidden'), ('layers/dense_1', 'dense')]
    """
    found, seen = [], set()
    _walk(model, "", found, seen)
    return found


def own_weights(layer):
    """The weights a layer holds itself (not its sublayers'), trainable first, as Keras 3 saves."""
    mine = list(layer.__dict__.get("_weights", ()))
    ids = {id(v) for v in mine}             # `in` would compare tensors element-wise
    mine += [v for v in vars(layer).values() if isinstance(v, Variable) and id(v) not in ids]
    return [v for v in mine if v.trainable] + [v for v in mine if not v.trainable]


def save_weights(model, filepath, overwrite=True):
    """Write `model`'s weights to `filepath` (ending in .weights.h5) in Keras 3's layout.

    The file is written under a name of its own beside its final name and moved there when
    complete (files.write_whole), so a failure never leaves half a file in place of an old
    one, and no other file is touched.

    >>> import os, tempfile
    >>> model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2)])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
    >>> model.save_weights(path)           # the method calls this function
    >>> os.path.getsize(path) > 0
    True
    """
    path = _checked_path("save_weights", filepath, (SUFFIX,))
    if not model.built:
        raise ValueError(f"save_weights: model {model.name!r} has no weights yet: build it "
                         f"first (call it on a batch, or give it tk.Input(shape=...))")
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"save_weights: {path!r} exists; pass overwrite=True to replace it")
    h5py = load_h5py("save_weights")

    def write(temporary):
        with h5py.File(temporary, "w") as f:
            write_groups(model, f)
            write_optimizer(model, f)
    files.write_whole(path, write)


def write_groups(model, f):
    """Write every layer's weights into the open HDF5 file `f` (Keras 3's groups)."""
    for where, layer in layer_paths(model):
        group = f.create_group(_group_name(where))
        group.attrs["name"] = storable(layer.name)
        for i, weight in enumerate(own_weights(layer)):
            group.create_dataset(str(i), data=weight.numpy())


def read_plan(model, f):
    """[(weight, array)] for every weight of `model` from the open HDF5 file `f`, and the
    problems found (a list of texts); nothing is assigned."""
    return _plan(model, f, load_h5py("load_model"))


def load_weights(model, filepath, skip_mismatch=False):
    """Read weights that `save_weights` or Keras 3 wrote (.weights.h5, or a .keras archive).

    Every group is checked before any weight is assigned. With `skip_mismatch=True` the
    weights that fit are loaded and each one that does not is reported in a warning.

    >>> import os, tempfile
    >>> model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2)])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
    >>> model.save_weights(path)
    >>> other = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2)])
    >>> other.load_weights(path)
    >>> bool((other.weights[0].numpy() == model.weights[0].numpy()).all())
    True
    >>> tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(5)]).load_weights(path)
    Traceback (most recent call last):
    ValueError: load_weights: ... does not fit model ...:
    ...
    """
    path = _checked_path("load_weights", filepath, (SUFFIX, ".keras"))
    h5py = load_h5py("load_weights")
    if path.endswith(".keras"):      # the archive's weights member, read under its cap
        source, where = files.read_archive(path, "load_weights", (files.WEIGHTS,))[0], \
            f"{path!r}: {files.WEIGHTS}"
    else:
        source, where = path, repr(path)
    with files.open_h5(h5py, source, "load_weights", where) as f:
        plan, problems = _plan(model, f, h5py)
        optimizer, unfit = optimizer_plan(model, f, h5py, f"load_weights: {path!r}", build=False)
    if problems:
        listed = "\n  ".join(problems[:12]) + ("\n  ..." if len(problems) > 12 else "")
        message = (f"load_weights: {path!r} does not fit model {model.name!r}:\n  {listed}")
        if not skip_mismatch:
            raise ValueError(message + "\nNothing was loaded: the model's weights are unchanged. "
                             "Build the same architecture as the saved model, or pass "
                             "skip_mismatch=True to load what fits.")
        warnings.warn(message + "\nThose weights were skipped; the rest were loaded.", stacklevel=3)
    if unfit:
        if not skip_mismatch:
            raise ValueError(unfit + " Nothing was loaded. To load the weights and leave the "
                                     "optimizer as it is, pass skip_mismatch=True.")
        warnings.warn(unfit + " The optimizer's state was skipped; the weights that fit were "
                              "loaded.", stacklevel=3)
    for weight, value in plan + optimizer:
        weight.assign(value.astype(weight.dtype, copy=False))


def _plan(model, f, h5py):
    """[(weight, array)] to assign, and the problems found, reading every group of the walk."""
    plan, problems, read = [], [], set()
    unsafe = _unsafe_entries(f, h5py)
    if unsafe:
        return [], [f"{n}: {why} (only plain groups and arrays stored in the file are read)"
                    for n, why in unsafe[:12]]
    for where, layer in layer_paths(model):
        mine, name = own_weights(layer), _group_name(where)
        group = f.get(name)
        what = f"layer {layer.name!r} ({type(layer).__name__}, at {name})"
        if not isinstance(group, h5py.Group):
            if mine:
                problems.append(f"{what}: the file has no such group")
            continue
        read.add(name)
        stored = list(group.keys())
        if sorted(stored) != sorted(str(i) for i in range(len(stored))):
            problems.append(f"{what}: expected datasets named 0..{len(stored) - 1}, found {stored}")
            continue
        if len(stored) != len(mine):
            problems.append(f"{what}: the layer has {len(mine)} weights "
                            f"{[w.shape for w in mine]}, the file {len(stored)}")
            continue
        for i, weight in enumerate(mine):
            data = group[str(i)]
            if not isinstance(data, h5py.Dataset) or data.dtype.kind not in "biuf":
                problems.append(f"{what}, weight {i}: not an array of numbers")
            elif tuple(data.shape) != tuple(weight.shape):
                problems.append(f"{what}, weight {i} ({weight.path}): shape {tuple(data.shape)} in "
                                f"the file, {tuple(weight.shape)} in the model")
            else:
                plan.append((weight, np.asarray(data[()])))
    extra = []
    f.visititems(lambda n, obj: extra.append(n) if n.endswith("vars") and len(obj)
                 and n not in read and not n.startswith("optimizer/") else None)
    problems += [f"the file's weights at {n} belong to no layer of this model" for n in extra]
    return plan, problems


# --- the optimizer's state, as Keras 3 writes it ------------------------------------------
# optimizer/vars/0, 1, ... hold Keras 3's optimizer.variables: iterations, the learning rate
# (unless a schedule gives it), then the slots of each trainable variable by groups
# (Optimizer._keras_slot_order; RMSprop(centered=True, momentum=0.5): every velocity, then every
# momentum, then every average_gradient). The datasets carry no names: the i-th one is the i-th
# slot of that order, so each is written and read by its place in it (never matched by shape),
# and a file whose entries do not fit that order is refused, naming the slot that does not fit.
def optimizer_state(model):
    """[(what, array)] of the model's optimizer in Keras 3's order (what optimizer/vars holds),
    or None without an optimizer. Once the optimizer has slots, every trainable variable's are
    listed (zeros for a variable that had no step yet: Keras 3 builds them all at once).

    >>> tk.layers.clear_session()
    >>> model = tk.Sequential([tk.Input(shape=(2,)), tk.layers.Dense(1)])
    >>> model.compile(optimizer=tk.optimizers.Adam(amsgrad=True), loss="mse")
    >>> _ = model.fit(np.ones((2, 2)), np.ones((2, 1)), verbose=0)
    >>> for what, _ in tk.saving.weights_h5.optimizer_state(model):
    ...     print(what)
    iterations
    learning_rate
    the 'momentum' slot of dense/kernel
    the 'velocity' slot of dense/kernel
    the 'momentum' slot of dense/bias
    the 'velocity' slot of dense/bias
    the 'velocity_hat' slot of dense/kernel
    the 'velocity_hat' slot of dense/bias
    """
    opt = getattr(model, "optimizer", None)
    if opt is None or not hasattr(opt, "_slots"):
        return None
    out = [(name, v.numpy()) for name, v in opt._keras_head()]
    if not _built(opt):
        return out                         # no slots yet: Keras 3 writes none either
    for slot, var in opt._keras_slot_order(model.trainable_variables):
        entry = opt._slots.get(id(var))
        value = entry[1][slot].numpy() if entry is not None else np.zeros(var.shape, var.dtype)
        out.append((_slot_label(slot, var), value))
    return out


def write_optimizer(model, f):
    """Write the optimizer's state under optimizer/vars of the open HDF5 file `f`."""
    state = optimizer_state(model)
    if state is None:
        return
    group = f.create_group("optimizer/vars")
    group.attrs["name"] = snake_name(type(model.optimizer).__name__)
    for i, (_, value) in enumerate(state):
        group.create_dataset(str(i), data=value)


def optimizer_plan(model, f, h5py, where, build=True):
    """([(optimizer variable, array)], None) from the file's optimizer/vars, entry i into the
    i-th variable of Keras 3's order for the model's optimizer over its trainable variables;
    ([], why) when the entries do not fit, naming the slot Keras 3 keeps where one does not
    (`where` begins the text; the caller adds what to do). A file saved before the first step
    (iterations and the learning rate only) leaves the slots at zero. build=True makes the
    slots first (load_model, as Keras 3's compile_from_config); otherwise an optimizer that
    has none yet is left as it is, with a warning (Keras 3's load_weights). Nothing is assigned."""
    opt = getattr(model, "optimizer", None)
    group = f.get("optimizer/vars")
    if opt is None or not hasattr(opt, "_slots") or not isinstance(group, h5py.Group) \
            or not len(group):
        return [], None
    trainable = model.trainable_variables
    if opt._slot_names and not _built(opt):
        if not build:
            warnings.warn(f"{where}: the file holds the optimizer's state, but the model's "
                          f"{type(opt).__name__} has made no slots yet, so it was left as it is "
                          f"(as Keras 3 does); call model.optimizer.build("
                          f"model.trainable_variables) before load_weights to load it too",
                          stacklevel=4)
            return [], None
        opt.build(trainable)
    head = opt._keras_head()
    expected = head + [(_slot_label(slot, var), opt._slots_for(var)[slot])
                       for slot, var in opt._keras_slot_order(trainable)]
    name, n = type(opt).__name__, len(group)

    def unfit(why):
        return [], (f"{where}: the optimizer's state in the file does not fit the model's "
                    f"{name}: {why}. For this model's {len(trainable)} trainable variables, "
                    f"{name} keeps {len(expected)} variables, in Keras 3's order: "
                    f"{opt._describe_slot_order()}. The file may come from another optimizer, "
                    f"another setting of it (amsgrad, momentum, centered, a learning-rate "
                    f"schedule) or another model.")
    if set(group.keys()) != {str(i) for i in range(n)}:
        return unfit(f"its entries are {sorted(group.keys())[:10]}, not 0..{n - 1}")
    if n not in (len(head), len(expected)):
        return unfit(f"the file holds {n} variables")
    plan = []
    for i, (what, target) in enumerate(expected[:n]):
        data = group[str(i)]
        if not isinstance(data, h5py.Dataset) or data.dtype.kind not in "biuf":
            return unfit(f"optimizer/vars/{i}, where {what} belongs, is not an array of numbers")
        if tuple(data.shape) != tuple(target.shape):
            return unfit(f"optimizer/vars/{i} has shape {tuple(data.shape)}, but {what} "
                         f"belongs there, of shape {tuple(target.shape)}")
        value = np.asarray(data[()])
        if target is opt.iterations and not (value == np.floor(value) and value >= 0):
            return unfit(f"optimizer/vars/{i}, the number of iterations, is {value}")
        plan.append((target, value))
    return plan, None


def _built(opt):
    """Whether the optimizer has made its slots (a step taken, or build called)."""
    return bool(opt._slots) or getattr(opt, "_built_variables", None) is not None


def _slot_label(slot, var):
    return f"the {slot!r} slot of {var.path}"


def _unsafe_entries(f, h5py):
    """[(path, why)] for links and datasets that reach outside the file: soft and external
    links, virtual datasets, datasets stored in external files (as Keras 3 refuses them)."""
    found, stack = [], [("", f)]
    while stack:
        prefix, group = stack.pop()
        for key in group:
            path = f"{prefix}/{key}" if prefix else key
            link = group.get(key, getlink=True)
            if not isinstance(link, h5py.HardLink):
                found.append((path, f"a {type(link).__name__}"))
                continue
            obj = group[key]
            if isinstance(obj, h5py.Group):
                stack.append((path, obj))
            elif isinstance(obj, h5py.Dataset) and (obj.is_virtual or obj.external):
                found.append((path, "a virtual or externally stored dataset"))
    return found


def _walk(layer, path, found, seen):
    """Keras 3's _save_state: the layer, then what each attribute holds."""
    if id(layer) in seen:
        return
    seen.add(id(layer))
    found.append((path, layer))
    for attr, held in _children(layer):
        where = f"{path}/{attr}" if path else attr
        if isinstance(held, KerasSaveable):
            _walk(held, where, found, seen)
        else:
            _walk_container(held, where, found, seen, set())


def _walk_container(container, path, found, seen, containers):
    """Keras 3's _save_container_state: a list's (a dict's values') layers named by class,
    dense, dense_1, ...; a nested list or dict container, container_1, ..."""
    if id(container) in containers:
        return
    containers.add(id(container))
    used = {}
    for item in container.values() if isinstance(container, dict) else container:
        if isinstance(item, KerasSaveable):
            _walk(item, f"{path}/{_numbered(snake_name(_keras_class_name(item)), used)}",
                  found, seen)
        elif isinstance(item, (list, tuple, dict)):
            _walk_container(item, f"{path}/{_numbered('container', used)}", found, seen,
                            containers)


def _numbered(name, used):
    """name, then name_1, name_2, ... (Keras 3's _get_unique_name)."""
    used[name] = used.get(name, -1) + 1
    return f"{name}_{used[name]}" if used[name] else name


def _keras_class_name(layer):
    """Keras 3's class name: a functional tk.Model is Keras's Functional (a nested one's
    weights sit under layers/functional/...)."""
    if type(layer).__name__ == "Model" and layer.__dict__.get("_graph") is not None:
        return "Functional"
    return type(layer).__name__


def _children(layer):
    """(attribute, layer or container of layers) that Keras 3 walks below `layer`
    (_walk_saveable): a Sequential's or functional model's `layers` first; then the
    attributes by name, private ones last, with a subclassed model's `layers` among them."""
    attrs = dict(vars(layer))
    children = []
    if "_layers" in attrs:                     # Sequential and functional models: their layers
        del attrs["_layers"]
        children.append(("layers", layer.layers))
    elif isinstance(getattr(type(layer), "layers", None), property):   # a subclassed Model
        attrs["layers"] = layer.layers
    for attr in sorted(attrs, key=lambda name: f"~{name}" if name.startswith("_") else name):
        value = attrs[attr]
        if isinstance(value, KerasSaveable) or (isinstance(value, (list, tuple, dict))
                                        and _holds_layers(value)):
            children.append((attr, value))
    return children


def _holds_layers(container):
    items = container.values() if isinstance(container, dict) else container
    return any(isinstance(v, KerasSaveable) or (isinstance(v, (list, tuple, dict)) and _holds_layers(v))
               for v in items)


def storable(name):
    """`name` as an HDF5 text attribute holds it: a NUL or a lone surrogate (which HDF5's UTF-8
    strings cannot hold, so Keras 3.15's save fails on them) written as a backslash escape.
    The attribute only labels the group: loading reads groups by their paths."""
    if "\x00" not in name:
        try:
            name.encode("utf-8")
            return name
        except UnicodeEncodeError:
            pass
    return name.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")


def _group_name(path):
    return f"{path}/vars" if path else "vars"


def _checked_path(what, filepath, suffixes):
    path = os.fspath(filepath)
    if not isinstance(path, str) or not path.endswith(suffixes):
        raise ValueError(f"{what}: the file name must end in {' or '.join(suffixes)} (Keras 3's "
                         f"names), got {filepath!r}")
    return path


def load_h5py(what):
    """The h5py module, imported on first use; without it, an ImportError naming `what`."""
    try:
        import h5py  # noqa: PLC0415 - h5py only when a weights file is read or written
    except ImportError:
        raise ImportError(f"{what} needs h5py: pip install h5py") from None
    return h5py
