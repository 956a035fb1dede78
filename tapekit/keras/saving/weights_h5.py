"""Model weights in Keras 3's `.weights.h5` layout, so that a file moves between tapekit and Keras.

Keras 3 walks a model the way its saving library does and writes each layer's own weights,
trainable ones first, as the datasets "0", "1", ... of an HDF5 group `<path>/vars` whose
attribute `name` is the layer's name:

    vars                    the model's own weights (usually none)
    layers/dense/vars/0     a Sequential's or functional model's layers sit under `layers/`,
    layers/dense/vars/1     named by their class in snake_case and numbered per class
    layers/dense_1/vars/0   (dense, dense_1, ...) whatever names the layers were given
    block/d1/vars/0         a subclassed model's layers sit under the attribute holding them,
    extra/dense_1/vars/0    attributes in sorted order; a list numbers its layers by class

The optimizer's state is not written (Keras 3 adds it under `optimizer/` when the model is
compiled; loading such a file here reads the model's weights and leaves the optimizer alone).

Loading reads the file whole and checks every group against the model before it assigns
anything: a file that does not fit (a layer missing, other counts or shapes of weights,
weights no layer takes) raises and leaves every weight as it was. Only numeric arrays are read:
nothing in the file is unpickled or run.
"""
import io
import os
import warnings
import zipfile

import numpy as np

from ...tensor import Variable
from ..layers.naming import snake_name
from ..layers.base import Layer

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

    The file is written beside its final name and moved there when complete, so a failure
    never leaves half a file in place of an old one.

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
    partial = f"{path}.partial"
    try:
        with h5py.File(partial, "w") as f:
            write_groups(model, f)
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


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
    try:
        source = _weights_file_of_archive(path) if path.endswith(".keras") else path
        f = h5py.File(source, "r")
    except (OSError, zipfile.BadZipFile, KeyError) as err:
        raise ValueError(f"load_weights: {path!r} is not a weights file that Keras 3 or tapekit "
                         f"wrote ({err}); the model's weights are unchanged") from None
    with f:
        plan, problems = _plan(model, f, h5py)
    if problems:
        listed = "\n  ".join(problems[:12]) + ("\n  ..." if len(problems) > 12 else "")
        message = (f"load_weights: {path!r} does not fit model {model.name!r}:\n  {listed}")
        if not skip_mismatch:
            raise ValueError(message + "\nNothing was loaded: the model's weights are unchanged. "
                             "Build the same architecture as the saved model, or pass "
                             "skip_mismatch=True to load what fits.")
        warnings.warn(message + "\nThose weights were skipped; the rest were loaded.", stacklevel=3)
    for weight, value in plan:
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
    if id(layer) in seen:
        return
    seen.add(id(layer))
    found.append((path, layer))
    for attr, held in _children(layer):
        where = f"{path}/{attr}" if path else attr
        if isinstance(held, Layer):
            _walk(held, where, found, seen)
            continue
        counts = {}
        for item in held:                      # Keras 3: dense, dense_1, ... per class
            name = snake_name(_keras_class_name(item))
            counts[name] = counts.get(name, -1) + 1
            _walk(item, f"{where}/{name}" + (f"_{counts[name]}" if counts[name] else ""),
                  found, seen)


def _keras_class_name(layer):
    """Keras 3's class name: a functional tk.Model is Keras's Functional (a nested one's
    weights sit under layers/functional/...)."""
    if type(layer).__name__ == "Model" and layer.__dict__.get("_graph") is not None:
        return "Functional"
    return type(layer).__name__


def _children(layer):
    """(attribute, layer or list of layers) that Keras 3 walks below `layer`."""
    if "_layers" in vars(layer):               # Sequential and functional models: their layers
        return [("layers", layer.layers)]
    children = []
    for attr in sorted(vars(layer)):
        value = vars(layer)[attr]
        if isinstance(value, Layer):
            children.append((attr, value))
        elif isinstance(value, (list, tuple, dict)):
            items = value.values() if isinstance(value, dict) else value
            layers = [v for v in items if isinstance(v, Layer)]
            if layers:
                children.append((attr, layers))
    return children


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


def _weights_file_of_archive(path):
    """The model.weights.h5 inside a .keras archive, as a file object (the zip is not unpacked)."""
    with zipfile.ZipFile(path) as archive:
        return io.BytesIO(archive.read("model.weights.h5"))


def load_h5py(what):
    """The h5py module, imported on first use; without it, an ImportError naming `what`."""
    try:
        import h5py  # noqa: PLC0415 - h5py only when a weights file is read or written
    except ImportError:
        raise ImportError(f"{what} needs h5py: pip install h5py") from None
    return h5py
