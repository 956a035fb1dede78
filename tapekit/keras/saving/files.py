"""Where model files are written and opened: a file is written whole or not at all, and a
file being read is held to caps, so that one that is damaged or hostile raises a clear error
before it makes tapekit read or allocate more than it should.

Writing (`save`, `save_weights`): the file is written under a new name of its own beside the
final one, then moved over it in one step (`os.replace`). An existing file is never written
into, and two threads saving to one path leave the whole file of the one that finished last.

Reading: every loading path opens its file here (`load_model`, `load_weights` of a .keras
archive or a .weights.h5 file), and whatever a config declares is checked before it is made:

    MAX_MEMBER_BYTES     a member of a .keras archive that declares more bytes is refused
                         before it is read (a zip "bomb" declares gigabytes in a few KB)
    MAX_DECLARED_BYTES   while a config is read (deserialize_keras_object: load_model,
                         model_from_json), the shapes it declares are checked before any array
                         is made for them: each Input's batch shape and build shape (unknown
                         sizes as 1), each array of zeros a layer is run on to learn its output
                         shape, and the weights its layers build, in total

A trusted file that needs more loads after raising them, e.g.
`tk.keras.saving.files.MAX_DECLARED_BYTES = 8 << 30`.
"""
import contextlib
import io
import math
import os
import secrets
import threading
import zipfile

import numpy as np

# The members of a .keras archive (Keras 3's names).
CONFIG, WEIGHTS, METADATA = "config.json", "model.weights.h5", "metadata.json"
# A legitimate model's weights fit in its model.weights.h5 member, so the two caps agree.
MAX_MEMBER_BYTES = 1 << 31
MAX_DECLARED_BYTES = 1 << 31


def write_whole(path, write):
    """Call `write(temporary_path)` to write the file, then move it to `path` in one step.

    The temporary file is made in `path`'s directory (a move within one file system is
    atomic) under a name no other file has (created exclusively, with the permissions a new
    file gets), and removed if `write` fails: `path` then stays as it was.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "notes.txt")
    >>> tk.keras.saving.files.write_whole(path, lambda tmp: pathlib.Path(tmp).write_text("whole"))
    >>> path.read_text(), [p.name for p in path.parent.iterdir()]
    ('whole', ['notes.txt'])
    """
    directory, name = os.path.split(os.path.abspath(path))
    while True:
        temporary = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.partial")
        try:
            os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:         # another writer's name: draw again
            continue
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.remove(temporary)
        except FileNotFoundError:
            pass
        raise


# --- reading ---------------------------------------------------------------------------------
def read_archive(path, what, members):
    """The bytes of `members` of the .keras archive at `path`, each checked against
    MAX_MEMBER_BYTES before it is read; `what` (load_model, load_weights) names the caller."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise ValueError(f"{what}: {path!r} is not a .keras file (a zip archive): {err}. "
                         f"It may be truncated or of another format.") from None
    with archive:
        names = archive.namelist()
        missing = [n for n in members if n not in names]
        if missing:
            extra = (" (weights as model.weights.npz are not supported)"
                     if "model.weights.npz" in names else "")
            raise ValueError(f"{what}: {path!r} has no {' and no '.join(missing)}: a .keras "
                             f"file holds {CONFIG}, {WEIGHTS} and {METADATA}; it holds "
                             f"{names[:10]}{extra}")
        return [_read_member(archive, name, path, what) for name in members]


def _read_member(archive, name, path, what):
    declared = archive.getinfo(name).file_size
    if declared > MAX_MEMBER_BYTES:
        raise ValueError(f"{what}: {path!r}: member {name} declares {declared:,} bytes, more "
                         f"than the {MAX_MEMBER_BYTES:,} tapekit reads from an archive; refusing "
                         f"it. If you trust the file, raise the cap: "
                         f"tk.keras.saving.files.MAX_MEMBER_BYTES = {declared:_}")
    try:
        with archive.open(name) as member:
            data = member.read(MAX_MEMBER_BYTES + 1)    # never more than the cap, whatever it says
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as err:
        raise ValueError(f"{what}: {path!r}: member {name} cannot be read ({err}); the file "
                         f"is damaged or truncated") from None
    if len(data) > MAX_MEMBER_BYTES:
        raise ValueError(f"{what}: {path!r}: member {name} holds more than the "
                         f"{MAX_MEMBER_BYTES:,} bytes tapekit reads from an archive")
    return data


def open_h5(h5py, source, what, where):
    """The HDF5 file `source` (a path, or a member's bytes), opened to read, or a ValueError
    saying that `where` is no weights file."""
    try:
        return h5py.File(io.BytesIO(source) if isinstance(source, bytes) else source, "r")
    except OSError as err:
        raise ValueError(f"{what}: {where} is not an HDF5 file ({err}): it is not a weights "
                         f"file that Keras 3 or tapekit wrote; nothing was loaded") from None


# --- what a config declares ----------------------------------------------------------------------
_reading = threading.local()     # .kept: bytes of weights built so far by the config being read


@contextlib.contextmanager
def reading_config():
    """Count what the config being read makes tapekit allocate (deserialize_keras_object
    enters it; a config read inside another one counts towards the outer one)."""
    if getattr(_reading, "kept", None) is not None:
        yield
        return
    _reading.kept = 0
    try:
        yield
    finally:
        _reading.kept = None


def check_declared(what, shape, dtype, kept=False):
    """While a config is read, refuse an array of `shape` and `dtype` (unknown sizes as 1)
    that would take more than MAX_DECLARED_BYTES; `kept` arrays (weights) count together.
    `what` names the layer and where the shape comes from. Outside a config, nothing.

    >>> with tk.keras.saving.files.reading_config():
    ...     tk.Input(shape=(50_000, 50_000), name="huge")
    Traceback (most recent call last):
    ValueError: InputLayer 'huge': batch_shape (None, 50000, 50000) (float32) takes 10,000,000,000 bytes at batch size 1, more than the 2,147,483,648 bytes tapekit allocates for what a file or config declares. If you trust it, raise the limit: tk.keras.saving.files.MAX_DECLARED_BYTES = 10_000_000_000
    """
    before = getattr(_reading, "kept", None)
    if before is None:
        return
    size = math.prod(1 if d is None else int(d) for d in shape) * np.dtype(dtype).itemsize
    total = before + size if kept else size
    if total > MAX_DECLARED_BYTES:
        batch = " at batch size 1" if shape and shape[0] is None else ""
        together = f" ({total:,} with the weights built before it)" if kept and before else ""
        raise ValueError(f"{what} {tuple(shape)} ({np.dtype(dtype).name}) takes {size:,} bytes"
                         f"{batch}{together}, more than the {MAX_DECLARED_BYTES:,} bytes tapekit "
                         f"allocates for what a file or config declares. If you trust it, raise "
                         f"the limit: tk.keras.saving.files.MAX_DECLARED_BYTES = {total:_}")
    if kept:
        _reading.kept = total
