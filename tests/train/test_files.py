"""tapekit's checkpoint files and the directory's `checkpoint` file: names, numbering, a
TensorFlow checkpoint refused, whole-or-nothing writes (checked against TF 2.21)."""
import os

import numpy as np
import pytest

import tapekit as tk


def test_save_numbers_prefixes_and_writes_the_state_file(tmp_path):
    ckpt = tk.train.Checkpoint(v=tk.Variable(1.0))
    prefix = str(tmp_path / "a" / "ck")
    assert ckpt.save(prefix) == prefix + "-1"          # the directory is made, as TF's
    assert ckpt.save(prefix) == prefix + "-2"
    assert int(ckpt.save_counter.numpy()) == 2
    assert ckpt.write(str(tmp_path / "b" / "w")) == str(tmp_path / "b" / "w")
    assert int(ckpt.save_counter.numpy()) == 2         # write does not count
    assert sorted(os.listdir(tmp_path / "a")) == ["checkpoint", "ck-1.tapekit.h5", "ck-2.tapekit.h5"]
    assert sorted(os.listdir(tmp_path / "b")) == ["w.tapekit.h5"]   # no state file for write
    assert (tmp_path / "a" / "checkpoint").read_text() == (
        'model_checkpoint_path: "ck-2"\nall_model_checkpoint_paths: "ck-2"\n')
    assert tk.train.latest_checkpoint(str(tmp_path / "a")) == prefix + "-2"
    assert tk.train.latest_checkpoint(str(tmp_path / "b")) is None
    assert tk.train.latest_checkpoint(str(tmp_path / "nope")) is None


def test_a_tensorflow_checkpoint_is_refused(tmp_path):
    for suffix in (".index", ".data-00000-of-00001"):
        (tmp_path / f"ck-1{suffix}").write_bytes(b"\x00tf")
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ck-1"\n')
    latest = tk.train.latest_checkpoint(str(tmp_path))
    assert latest == str(tmp_path / "ck-1")
    ckpt = tk.train.Checkpoint(v=tk.Variable(1.0))
    for given in (latest, latest + ".index"):
        with pytest.raises(ValueError, match="is a TensorFlow checkpoint.*does not read TensorFlow's"):
            ckpt.restore(given)
    with pytest.raises(FileNotFoundError, match=r"no checkpoint at .*ck-7"):
        ckpt.restore(str(tmp_path / "ck-7"))
    with pytest.raises(ValueError, match="is a directory"):
        ckpt.restore(str(tmp_path))
    (tmp_path / "x.weights.h5").write_bytes(b"")
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1)])
    model.save_weights(str(tmp_path / "m.weights.h5"))
    os.replace(tmp_path / "m.weights.h5", tmp_path / "m.tapekit.h5")
    with pytest.raises(ValueError, match="not a tapekit checkpoint"):
        ckpt.restore(str(tmp_path / "m"))


def test_a_failed_write_leaves_the_old_checkpoint(tmp_path, monkeypatch):
    v = tk.Variable(1.0)
    ckpt = tk.train.Checkpoint(v=v)
    ckpt.write(str(tmp_path / "w"))
    before = (tmp_path / "w.tapekit.h5").read_bytes()
    from tapekit.train import checkpoint

    def broken(self):
        raise RuntimeError("disk full")
    monkeypatch.setattr(checkpoint.Checkpoint, "_entries", broken)
    v.assign(5.0)
    with pytest.raises(RuntimeError):
        ckpt.write(str(tmp_path / "w"))
    with pytest.raises(RuntimeError):
        ckpt.save(str(tmp_path / "s"))
    assert (tmp_path / "w.tapekit.h5").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["w.tapekit.h5"]         # no partial file left
    assert int(ckpt.save_counter.numpy()) == 0                      # the failed save uncounted
