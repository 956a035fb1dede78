"""Model files written whole and read under caps (saving/files.py, issue 43): save and
save_weights write under a name of their own and move the file into place; every loading path
keeps the archive's member cap, and what a config declares is checked before it is allocated.

The configs below are in the layout Keras 3.15.1 writes (read off its files in the TF venv);
the archives are built here with zipfile and h5py.
"""
import json
import os
import stat
import threading
import tracemalloc
import zipfile

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


# --- the caps on reading -----------------------------------------------------------------------
def peak_bytes(call):
    """(what call returned or raised, the most bytes Python allocated while it ran)."""
    tracemalloc.start()
    try:
        try:
            result = call()
        except Exception as err:        # noqa: BLE001 - handed back to the test
            result = err
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def zipped(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_load_weights_of_a_keras_archive_keeps_the_member_cap(tmp_path, monkeypatch):
    # issue 43: a 66 KB file made load_weights read a 64 MiB member with the cap at 8 MiB
    # (load_model refused it; load_weights read the member whole, then found it was no HDF5)
    path = zipped(tmp_path / "bomb.keras", {"config.json": "{}",
                                            "model.weights.h5": bytes(64 << 20)})
    assert path.stat().st_size < 100_000
    monkeypatch.setattr(files, "MAX_MEMBER_BYTES", 8 << 20)
    err, peak = peak_bytes(lambda: model(0, 3).load_weights(path))
    assert isinstance(err, ValueError)
    assert str(err).startswith(f"load_weights: {str(path)!r}: member model.weights.h5 declares "
                               f"67,108,864 bytes, more than the 8,388,608 tapekit reads")
    assert "tk.keras.saving.files.MAX_MEMBER_BYTES = 67_108_864" in str(err)
    assert peak < 2 << 20


def test_a_member_is_never_read_past_the_cap_whatever_it_declares(tmp_path, monkeypatch):
    path = zipped(tmp_path / "m.keras", {"config.json": "{}", "model.weights.h5": bytes(4096)})
    monkeypatch.setattr(files, "MAX_MEMBER_BYTES", 1000)
    with zipfile.ZipFile(path) as archive:
        archive.getinfo("model.weights.h5").file_size = 10     # a header that lies
        with pytest.raises(ValueError, match="member model.weights.h5 (holds more than the 1,000|"
                                             "cannot be read)"):
            files._read_member(archive, "model.weights.h5", str(path), "load_weights")


POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
          "registered_name": None}


def keras_sequential(batch_shape, layers=()):
    """config.json of a Sequential as Keras 3.15.1 writes it (read off
    keras.Sequential([keras.Input(shape=(50000, 50000)), keras.layers.Dropout(0.5)]).save)."""
    dropout = {"module": "keras.layers", "class_name": "Dropout", "config": {
        "name": "dropout", "trainable": True, "dtype": {**POLICY, "shared_object_id": 1},
        "rate": 0.5, "seed": None, "noise_shape": None}, "registered_name": None}
    return {"module": "keras", "class_name": "Sequential", "config": {
        "name": "sequential", "trainable": True, "dtype": POLICY, "layers": [
            {"module": "keras.layers", "class_name": "InputLayer", "config": {
                "batch_shape": batch_shape, "dtype": "float32", "sparse": False,
                "ragged": False, "name": "input_layer", "optional": False},
             "registered_name": None}, *(layers or [dropout])],
        "build_input_shape": batch_shape}, "registered_name": None,
        "build_config": {"input_shape": batch_shape}, "compile_config": {}}


def keras_file(path, config, weights=()):
    h5 = path.with_suffix(".h5")
    with h5py.File(h5, "w") as f:
        f.create_group("vars").attrs["name"] = config["config"]["name"]
        for group, arrays in weights:
            for i, a in enumerate(arrays):
                f.create_dataset(f"{group}/{i}", data=a)
    return zipped(path, {"metadata.json": "{}", "config.json": json.dumps(config),
                         "model.weights.h5": h5.read_bytes()}, zipfile.ZIP_STORED)


def test_a_huge_declared_input_is_refused_before_anything_is_allocated(tmp_path, monkeypatch):
    # issue 43: a Dropout after Input(shape=(50000, 50000)) made load_model allocate 10 GB of
    # zeros to find the Dropout's output shape (Keras 3.15 loads that file in 0.05 s). The
    # same at a smaller scale, with the limit lowered to 8 MiB: 36 MB of zeros before
    monkeypatch.setattr(files, "MAX_DECLARED_BYTES", 8 << 20)
    path = keras_file(tmp_path / "wide.keras", keras_sequential([None, 3000, 3000]))
    err, peak = peak_bytes(lambda: tk.models.load_model(path))
    assert str(err) == (
        "InputLayer 'input_layer': batch_shape (None, 3000, 3000) (float32) takes 36,000,000 "
        "bytes at batch size 1, more than the 8,388,608 bytes tapekit allocates for what a file "
        "or config declares. If you trust it, raise the limit: "
        "tk.keras.saving.files.MAX_DECLARED_BYTES = 36_000_000")
    assert peak < 2 << 20
    monkeypatch.setattr(files, "MAX_DECLARED_BYTES", 36_000_000)    # as the message says
    loaded, peak = peak_bytes(lambda: tk.models.load_model(path))
    assert [type(layer).__name__ for layer in loaded.layers] == ["Dropout"]
    assert loaded.output.shape == (None, 3000, 3000)
    assert peak < 2 << 20                       # Dropout's output shape needs no zeros now


def dense(name, units, fan_in):
    return {"module": "keras.layers", "class_name": "Dense", "config": {
        "name": name, "trainable": True, "dtype": POLICY, "units": units, "activation": "linear",
        "use_bias": False}, "registered_name": None,
        "build_config": {"input_shape": [None, fan_in]}}


def test_weights_a_config_declares_are_capped_in_total(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_DECLARED_BYTES", 1 << 20)
    one = keras_sequential([None, 256], [dense("d0", 512, 256)])           # 512 KiB: fits
    keras_file(tmp_path / "one.keras", one, [("layers/dense/vars", [np.zeros((256, 512), "f4")])])
    assert tk.models.load_model(tmp_path / "one.keras").layers[0].kernel.shape == (256, 512)
    two = keras_sequential([None, 256], [dense("d0", 512, 256), dense("d1", 1024, 512)])
    err = pytest.raises(ValueError, tk.models.model_from_json, json.dumps(two)).value
    assert str(err).startswith(
        "Dense 'd1': weight 'kernel' (512, 1024) (float32) takes 2,097,152 bytes (2,621,440 with "
        "the weights built before it), more than the 1,048,576 bytes")
    big = keras_sequential([None, 256], [dense("d1", 1 << 16, 256)])       # 64 MiB
    err, peak = peak_bytes(lambda: tk.models.model_from_json(json.dumps(big)))
    assert "Dense 'd1': weight 'kernel' (256, 65536) (float32) takes 67,108,864 bytes" in str(err)
    assert peak < 4 << 20                       # refused before the kernel was made


def test_a_subclassed_models_build_shape_is_checked_before_it_runs(monkeypatch):
    @tk.saving.register_keras_serializable(package="test_files")
    class Echo(tk.Model):
        def call(self, x):
            return x
    monkeypatch.setattr(files, "MAX_DECLARED_BYTES", 1 << 20)
    config = {"module": None, "class_name": "Echo", "registered_name": "test_files>Echo",
              "config": {"name": "echo", "trainable": True, "dtype": POLICY},
              "build_config": {"input_shape": [None, 1024, 1024]}}
    err, peak = peak_bytes(lambda: tk.saving.deserialize_keras_object(config))
    assert str(err).startswith("Echo 'echo': build_config['input_shape'] (None, 1024, 1024) "
                               "(float32) takes 4,194,304 bytes at batch size 1, more than")
    assert peak < 1 << 20


def test_shapes_built_by_code_are_not_capped(monkeypatch):
    # the caps are for what a file declares: a model written in code builds as it did
    monkeypatch.setattr(files, "MAX_DECLARED_BYTES", 1000)
    m = tk.Sequential([tk.Input(shape=(30, 30)), tk.layers.Dense(40)])
    assert m.layers[0].kernel.shape == (30, 40)
