"""Writing model files whole (saving/files.py): save and save_weights write under a name of
their own and move the file into place, never touching another file (issue 43)."""
import os
import stat
import threading

import numpy as np
import pytest

import tapekit as tk
from tapekit.keras.saving import files

h5py = pytest.importorskip("h5py")
X = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)


def model(seed, width):
    tk.random.set_seed(seed)
    return tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(width), tk.layers.Dense(1)])


def test_write_whole_leaves_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "m.keras"
    target.write_bytes(b"old")

    def half(temporary):
        with open(temporary, "wb") as f:
            f.write(b"half")
        raise OSError("disk full")
    with pytest.raises(OSError, match="disk full"):
        files.write_whole(target, half)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["m.keras"]


def test_the_written_file_gets_a_new_files_permissions(tmp_path):
    # a temporary file made by tempfile.mkstemp is private (0600): moved into place, the
    # saved model would be unreadable to the group where every other file is readable
    (tmp_path / "plain").write_bytes(b"")
    model(0, 3).save(tmp_path / "m.keras")
    model(0, 3).save_weights(tmp_path / "m.weights.h5")
    plain = stat.S_IMODE(os.stat(tmp_path / "plain").st_mode)
    assert stat.S_IMODE(os.stat(tmp_path / "m.keras").st_mode) == plain
    assert stat.S_IMODE(os.stat(tmp_path / "m.weights.h5").st_mode) == plain


@pytest.mark.parametrize("name, save", [
    ("m.keras", lambda m, p: m.save(p)), ("m.weights.h5", lambda m, p: m.save_weights(p))])
def test_saving_never_touches_a_file_named_like_a_temporary(tmp_path, name, save):
    # before, save wrote into <path>.partial and then deleted it, whatever that file was
    unrelated = tmp_path / f"{name}.partial"
    unrelated.write_bytes(b"someone's notes")
    save(model(0, 3), tmp_path / name)
    assert unrelated.read_bytes() == b"someone's notes"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, unrelated.name])


def test_two_threads_saving_to_one_path_leave_one_whole_model(tmp_path):
    # before: FileNotFoundError (both moved or removed the one <path>.partial), and once a file
    # that matched neither model
    path = tmp_path / "shared.keras"
    models = [model(1, 3), model(2, 5)]
    expected = [m(X).numpy() for m in models]
    errors = []

    def save_many(m, barrier):
        try:
            for _ in range(15):
                barrier.wait(timeout=60)
                m.save(path)
        except threading.BrokenBarrierError:
            pass                        # the other thread failed: its error is reported
        except Exception as err:        # noqa: BLE001 - reported below
            errors.append(err)
            barrier.abort()
    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=save_many, args=(m, barrier)) for m in models]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    loaded = tk.models.load_model(path)
    got = loaded(X).numpy()
    width = loaded.layers[0].units
    assert width in (3, 5)
    np.testing.assert_array_equal(got, expected[width == 5])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.keras"]
