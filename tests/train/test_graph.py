"""The dependency graph a checkpoint saves: routes by attribute name, lists, dicts, nested
checkpoints, TF's key names in the reader (checked against TF 2.21), names kept as data."""
import os

import numpy as np
import pytest

import tapekit as tk


class Net(tk.Module):
    def __init__(self, w=(1.0, 2.0)):
        super().__init__()
        self.w = tk.Variable(list(w))
        self.items = [tk.Variable(3.0), tk.Variable(4.0)]
        self.table = {"a b": tk.Variable(5.0)}


def test_module_lists_dicts_and_nested_checkpoints_round_trip(tmp_path):
    ckpt = tk.train.Checkpoint(net=Net(), inner=tk.train.Checkpoint(v=tk.Variable(6.0)))
    for _ in range(3):
        path = ckpt.save(str(tmp_path / "ck"))
    reader = tk.train.load_checkpoint(str(tmp_path))
    # TF 2.21 shows the same keys (its reader adds _CHECKPOINTABLE_OBJECT_GRAPH)
    assert sorted(reader.get_variable_to_shape_map()) == [
        "inner/v/.ATTRIBUTES/VARIABLE_VALUE", "net/items/0/.ATTRIBUTES/VARIABLE_VALUE",
        "net/items/1/.ATTRIBUTES/VARIABLE_VALUE", "net/table/a b/.ATTRIBUTES/VARIABLE_VALUE",
        "net/w/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    assert reader.get_tensor("save_counter/.ATTRIBUTES/VARIABLE_VALUE") == 3
    other = tk.train.Checkpoint(net=Net(w=(0.0, 0.0)), inner=tk.train.Checkpoint(v=tk.Variable(0.0)))
    other.net.items[1].assign(0.0)
    other.restore(path).assert_consumed()
    np.testing.assert_array_equal(other.net.w.numpy(), [1.0, 2.0])
    assert float(other.net.items[1].numpy()) == 4.0 and float(other.inner.v.numpy()) == 6.0
    assert float(other.net.table["a b"].numpy()) == 5.0
    assert int(other.save_counter.numpy()) == 3        # restored, and save goes on from it
    assert other.save(str(tmp_path / "ck")).endswith("ck-4")


def test_names_are_data(tmp_path):
    names = {"__import__('os')": tk.Variable(1.0), "a/b.c": tk.Variable(2.0)}
    path = tk.train.Checkpoint(**names).save(str(tmp_path / "ck"))
    keys = sorted(tk.train.load_checkpoint(path).get_variable_to_shape_map())
    assert "a.Sb..c/.ATTRIBUTES/VARIABLE_VALUE" in keys            # TF's escapes
    other = {k: tk.Variable(0.0) for k in names}
    other["extra name"] = tk.Variable(0.0)
    status = tk.train.Checkpoint(**other).restore(path)
    assert float(other["a/b.c"].numpy()) == 2.0
    with pytest.raises(AssertionError, match=r"\(root\)\['extra name'\]"):
        status.assert_consumed()
