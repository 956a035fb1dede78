"""tk.train.CheckpointManager: numbering, max_to_keep, the state file, a new run continuing
(checked against TF 2.21's CheckpointManager on the same programs)."""
import os

import numpy as np
import pytest

import tapekit as tk


def test_manager_keeps_max_to_keep_and_continues_in_a_new_run(tmp_path):
    ckpt = tk.train.Checkpoint(v=tk.Variable(1.0))
    manager = tk.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    saved = [manager.save() for _ in range(3)]
    assert [os.path.basename(p) for p in saved] == ["ckpt-1", "ckpt-2", "ckpt-3"]
    assert manager.checkpoints == saved[1:] and manager.latest_checkpoint == saved[2]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2.tapekit.h5", "ckpt-3.tapekit.h5"]
    state = (tmp_path / "checkpoint").read_text()
    assert 'all_model_checkpoint_paths: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-3"' in state
    assert manager.save(checkpoint_number=10).endswith("ckpt-10")
    again = tk.train.CheckpointManager(tk.train.Checkpoint(v=tk.Variable(0.0)), str(tmp_path),
                                       max_to_keep=2, checkpoint_name="ckpt")
    assert again.checkpoints == [saved[2], str(tmp_path / "ckpt-10")]
    assert again.restore_or_initialize() == str(tmp_path / "ckpt-10")
    assert float(again.checkpoint.v.numpy()) == 1.0
    called = []
    fresh = tk.train.CheckpointManager(ckpt, str(tmp_path / "new"), max_to_keep=None,
                                       init_fn=lambda: called.append(1))
    assert fresh.restore_or_initialize() is None and called == [1]


def test_manager_interval():
    step = tk.Variable(0)
    with pytest.raises(ValueError, match="step_counter"):
        tk.train.CheckpointManager(tk.train.Checkpoint(s=step), "d", 1, checkpoint_interval=2)


def test_manager_interval_skips_early_saves(tmp_path):
    step = tk.Variable(0)
    manager = tk.train.CheckpointManager(tk.train.Checkpoint(s=step), str(tmp_path), 3,
                                         step_counter=step, checkpoint_interval=2)
    assert manager.save() is not None
    step.assign(1)
    assert manager.save() is None
    step.assign(2)
    assert manager.save() is not None
