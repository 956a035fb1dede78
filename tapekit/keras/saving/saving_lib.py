"""Whole models in Keras 3's `.keras` file: a zip archive of three members,

    config.json        the model's config (serialize_keras_object), with its compile config
    model.weights.h5   the weights in Keras 3's HDF5 layout (weights_h5.py), and the
                       optimizer's state under optimizer/vars when the model is compiled
    metadata.json      {"keras_version": ..., "date_saved": ...}

so a model saved here loads in Keras 3 (`keras.models.load_model`) and one Keras 3 saved loads
here. Loading reads the JSON and numeric arrays only: nothing is unpickled and no module named
in the file is imported; a Lambda's code is refused unless safe_mode=False. Every member is
checked (and every weight planned) before the model is returned, so a file that is truncated,
hostile or does not fit raises one error and nothing half-built escapes; the archive is
opened, and what its config declares is capped, in files.py.
"""
import datetime
import io
import json
import os
import zipfile
from importlib import metadata as _metadata


from . import files, weights_h5
from .files import CONFIG, METADATA, WEIGHTS
from .serialization_lib import deserialize_keras_object, serialize_keras_object

SUFFIX = ".keras"
# metadata.json's "keras_version": the Keras release whose file format tapekit writes and is
# checked against (tools/keras_interop/roundtrip.py). Keras 3 does not read metadata.json when
# it loads a model (only config.json and model.weights.h5), so it accepts the file whatever
# the version says; "saved_by" tells a reader which library really wrote it.
KERAS_FORMAT_VERSION = "3.15.1"


def save_model(model, filepath, overwrite=True, zipped=True):
    """Write `model` to `filepath` (ending in .keras) in Keras 3's format.

    The config is made (and must be JSON) before anything is written, and the archive is
    written under a name of its own beside its final name and moved there when complete
    (files.write_whole): an existing file is replaced whole or left as it was.

    >>> import os, tempfile, zipfile
    >>> model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2)])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
    >>> tk.saving.save_model(model, path)              # model.save(path) does the same
    >>> sorted(zipfile.ZipFile(path).namelist())
    ['config.json', 'metadata.json', 'model.weights.h5']
    """
    path = os.fspath(filepath)
    if not isinstance(path, str) or not path.endswith(SUFFIX):
        hint = (" (for weights only, use model.save_weights(...) with a name ending in "
                ".weights.h5)" if str(path).endswith(".h5") else "")
        raise ValueError(f"save: the file name must end in .keras (Keras 3's format), got "
                         f"{filepath!r}{hint}")
    if not zipped:
        raise NotImplementedError("save: tapekit writes the zipped .keras file only (zipped=True)")
    if not model.built:
        raise ValueError(f"save: model {model.name!r} has no weights yet: build it first (call "
                         f"it on a batch, or start it with tk.Input(shape=...))")
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"save: {path!r} exists; pass overwrite=True to replace it")
    config = serialize_keras_object(model)
    try:
        config_json = json.dumps(config)
    except TypeError as err:
        raise TypeError(f"save: the config of model {model.name!r} is not JSON ({err}); a "
                        f"layer's get_config() must return numbers, strings, lists and dicts "
                        f"(serialize other objects with tk.saving.serialize_keras_object)"
                        ) from None
    metadata = json.dumps({"keras_version": KERAS_FORMAT_VERSION,
                           "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
                           "saved_by": f"tapekit {_tapekit_version()}"})
    h5py = weights_h5.load_h5py("save")
    weights = io.BytesIO()
    with h5py.File(weights, "w") as f:
        weights_h5.write_groups(model, f)
        weights_h5.write_optimizer(model, f)

    def write(temporary):
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_STORED) as archive:
            archive.writestr(METADATA, metadata)
            archive.writestr(CONFIG, config_json)
            archive.writestr(WEIGHTS, weights.getvalue())
    files.write_whole(path, write)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """A model from a .keras file that `model.save` or Keras 3 wrote.

    custom_objects: {name: class or function} for the custom classes the file names (or
    register them with @tk.saving.register_keras_serializable()). compile=False skips the
    optimizer, loss and metrics. safe_mode=False allows a Lambda layer's code to be loaded
    (only for files you trust).

    >>> import os, tempfile
    >>> model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2, name="out")])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
    >>> model.save(path)
    >>> loaded = tk.models.load_model(path)
    >>> x = np.ones((1, 3))
    >>> loaded.get_layer("out").units, bool((loaded(x) == model(x)).numpy().all())
    (2, True)
    """
    path = os.fspath(filepath)
    if not isinstance(path, str) or not path.endswith(SUFFIX):
        if str(path).endswith(".h5"):
            raise ValueError(f"load_model: {filepath!r} is an HDF5 file: tapekit reads Keras 3's "
                             f".keras files. Weights in a .weights.h5 file load into a model "
                             f"built by the same code: model.load_weights({filepath!r})")
        raise ValueError(f"load_model: the file name must end in .keras (Keras 3's format), "
                         f"got {filepath!r}")
    if not os.path.exists(path):
        raise FileNotFoundError(f"load_model: no such file: {path!r}")
    config_text, weights = _read_archive(path)
    try:
        config = json.loads(config_text)
    except (ValueError, RecursionError) as err:
        raise ValueError(f"load_model: {path!r}: config.json is not valid JSON ({err})") from None
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(f"load_model: {path!r}: config.json does not describe a model (it needs "
                         f"'class_name' and 'config')")
    if not compile:
        config["compile_config"] = None
    try:
        model = deserialize_keras_object(config, custom_objects=custom_objects,
                                         safe_mode=safe_mode)
    except RecursionError:
        raise ValueError(f"load_model: {path!r}: config.json is nested too deeply to be a "
                         f"model's config") from None
    if not hasattr(model, "weights") or not hasattr(model, "layers"):
        raise ValueError(f"load_model: {path!r} describes a {type(model).__name__}, not a model")
    h5py = weights_h5.load_h5py("load_model")
    with files.open_h5(h5py, weights, "load_model", f"{path!r}: {WEIGHTS}") as f:
        plan, problems = weights_h5.read_plan(model, f)
        if problems:
            listed = "\n  ".join(problems[:12]) + ("\n  ..." if len(problems) > 12 else "")
            raise ValueError(f"load_model: {path!r}: the weights do not fit the model its "
                             f"config describes:\n  {listed}")
        optimizer_plan, unfit = weights_h5.optimizer_plan(model, f, h5py, f"load_model: {path!r}")
        if unfit:
            raise ValueError(unfit + " To load the model without the optimizer's state, pass "
                                     "compile=False and compile it again.")
    for weight, value in plan + optimizer_plan:
        weight.assign(value.astype(weight.dtype, copy=False))
    return model


def _read_archive(path):
    """(config.json text, model.weights.h5 bytes), each member checked before it is read."""
    config, weights = files.read_archive(path, "load_model", (CONFIG, WEIGHTS))
    try:
        return config.decode("utf-8"), weights
    except UnicodeDecodeError as err:
        raise ValueError(f"load_model: {path!r}: config.json is not UTF-8 text ({err})") from None


def model_from_json(json_string, custom_objects=None):
    """A model (without weights) from `model.to_json()`'s string or Keras 3's: the same rules
    as load_model (nothing imported, lambdas refused).

    >>> model = tk.models.model_from_json(
    ...     tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(3)]).to_json())
    >>> [w.shape for w in model.weights]
    [(4, 3), (3,)]
    """
    try:
        config = json.loads(json_string)
    except (TypeError, ValueError, RecursionError) as err:
        raise ValueError(f"model_from_json: not a JSON model config ({err})") from None
    return deserialize_keras_object(config, custom_objects=custom_objects)


def _tapekit_version():
    """The installed tapekit's version (its metadata, not the package: keras/ never imports
    tapekit's root, which imports keras/)."""
    try:
        return _metadata.version("tapekit")
    except _metadata.PackageNotFoundError:
        return "unknown"
