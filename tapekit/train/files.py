"""tapekit's checkpoint files, and the directory's `checkpoint` file that names the latest.

A checkpoint is one HDF5 file `<prefix>.tapekit.h5`: its attribute `format` says it is
tapekit's, `entries` (JSON text) names the route of each array, and `values/0`, `values/1`, ...
hold the arrays. Names are data: read as JSON, never run. TensorFlow writes `<prefix>.index`
and `<prefix>.data-00000-of-00001` instead: tapekit refuses those rather than guess at them.
Files are written under a temporary name and moved into place whole (files.write_whole).
"""
import json
import os
import re

import numpy as np

from .. import dtypes
from ..keras.saving.files import open_h5, write_whole
from ..keras.saving.weights_h5 import load_h5py
from .graph import entry_key

SUFFIX = ".tapekit.h5"
FORMAT = "tapekit checkpoint"
VERSION = 1
TF_SUFFIXES = (".index", ".data-00000-of-00001")
STATE_FILE = "checkpoint"


def write_file(prefix, entries):
    """Write [(entry, array)] to `<prefix>.tapekit.h5`, whole or not at all."""
    h5py = load_h5py("Checkpoint.write")
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


def tf_files(prefix):
    return [prefix + s for s in TF_SUFFIXES if os.path.exists(prefix + s)]


def checked_prefix(what, save_path):
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
    tf = tf_files(path)
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


def read_file(what, prefix):
    """[(entry, array)] from `<prefix>.tapekit.h5`, checked: only numeric arrays and JSON."""
    h5py = load_h5py(what)
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


def write_state(directory, latest, paths, timestamps=(), preserved=None, filename=STATE_FILE):

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


def read_state(directory, filename=STATE_FILE):
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


def exists(prefix):
    return os.path.exists(prefix + SUFFIX) or bool(tf_files(prefix))


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
    state = read_state(directory, latest_filename)
    if state is None or state["latest"] is None or not exists(state["latest"]):
        return None
    return state["latest"]


# --- reading a checkpoint's arrays -------------------------------------------------------------
class CheckpointReader:
    """The arrays of a checkpoint by TensorFlow's key names (tf.train.load_checkpoint):
    `get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE")`, `get_variable_to_shape_map()`, ..."""

    def __init__(self, prefix):
        self._arrays = {entry_key(e): a for e, a in read_file("load_checkpoint", prefix)}

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
    return CheckpointReader(checked_prefix("load_checkpoint", path))
