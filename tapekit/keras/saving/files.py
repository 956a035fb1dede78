"""Where model files are written and opened: a file is written whole or not at all, and a
file being read is held to caps, so that one that is damaged or hostile raises a clear error
before it makes tapekit read or allocate more than it should.

Writing (`save`, `save_weights`): the file is written under a new name of its own beside the
final one, then moved over it in one step (`os.replace`). An existing file is never written
into, and two threads saving to one path leave the whole file of the one that finished last.
"""
import os
import secrets


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
