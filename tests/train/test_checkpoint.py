"""tk.train.Checkpoint, CheckpointManager, latest_checkpoint, load_checkpoint.

The behaviours asserted here (numbering, the `checkpoint` file, the keys a reader shows, which
assertion raises when, deferred restoration into an unbuilt model and an optimizer without
slots) were checked against TF 2.21 with Keras 3.15 on the same programs.
"""
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


def _trained(units=2):
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input((3,)), tk.layers.Dense(units, name="d")])
    opt = tk.optimizers.Adam(0.1)
    with tk.GradientTape() as tape:
        loss = tk.reduce_sum(model(np.ones((4, 3), "float32")))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                            model.trainable_variables))
    return model, opt


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


def test_restore_counter_from_an_earlier_checkpoint(tmp_path):
    ckpt = tk.train.Checkpoint(v=tk.Variable(1.0))
    first = ckpt.save(str(tmp_path / "ck"))
    ckpt.save(str(tmp_path / "ck"))
    ckpt.restore(first)
    assert int(ckpt.save_counter.numpy()) == 1         # as TF: the next save is ck-2 again
    assert ckpt.save(str(tmp_path / "ck")).endswith("ck-2")


def test_model_and_optimizer_slots_restore_and_training_continues_identically(tmp_path):
    model, opt = _trained()
    ckpt = tk.train.Checkpoint(model=model, optimizer=opt, step=tk.Variable(5))
    path = ckpt.save(str(tmp_path / "ck"))
    keys = set(tk.train.load_checkpoint(path).get_variable_to_shape_map())
    assert "model/layers/0/kernel/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/VARIABLE_VALUE" in keys
    # a second model built the same way, with a new optimizer that has taken a step elsewhere
    model2, opt2 = _trained()
    model2.layers[0].kernel.assign(np.zeros((3, 2), "float32"))
    tk.train.Checkpoint(model=model2, optimizer=opt2, step=tk.Variable(0)).restore(path) \
        .assert_consumed()
    for a, b in zip(model.weights + opt.variables, model2.weights + opt2.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert int(opt2.iterations.numpy()) == 1


def test_deferred_restoration_into_an_unbuilt_model_and_an_optimizer_without_slots(tmp_path):
    model, opt = _trained()
    path = tk.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ck"))
    later = tk.Sequential([tk.layers.Dense(2, name="d")])           # not built: no weights yet
    opt2 = tk.optimizers.Adam(0.1)
    status = tk.train.Checkpoint(model=later, optimizer=opt2).restore(path)
    status.assert_existing_objects_matched()           # TF: passes, values wait for variables
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint.*"
                                             r"\(root\)\.model\.layers\.0\.bias"):
        status.assert_consumed()
    later.build((None, 3))                             # the kernel and bias get their values
    np.testing.assert_array_equal(later.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())
    opt2.build(later.trainable_variables)              # and the slots theirs (TF: 0.4, 0.016)
    momentum = [v for v in opt2.variables if v.path.endswith("kernel/momentum")][0]
    np.testing.assert_allclose(momentum.numpy(), np.full((3, 2), 0.4), rtol=1e-6)
    status.assert_consumed()


def test_slots_wait_for_the_first_step(tmp_path):
    model, opt = _trained()
    path = tk.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ck"))
    model2 = tk.Sequential([tk.Input((3,)), tk.layers.Dense(2, name="d")])
    opt2 = tk.optimizers.Adam(0.1)
    status = tk.train.Checkpoint(model=model2, optimizer=opt2).restore(path)
    grads = [tk.zeros_like(v) for v in model2.trainable_variables]
    opt2.apply_gradients(zip(grads, model2.trainable_variables))   # slots made, restored, stepped
    opt.apply_gradients(zip(grads, model.trainable_variables))
    for a, b in zip(model.weights + opt.variables, model2.weights + opt2.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    status.assert_consumed()


def test_unmatched_python_objects_are_named(tmp_path):
    path = tk.train.Checkpoint(v=tk.Variable(1.0)).save(str(tmp_path / "ck"))
    status = tk.train.Checkpoint(v=tk.Variable(0.0), w=tk.Variable(2.0)).restore(path)
    for check in (status.assert_consumed, status.assert_existing_objects_matched):
        with pytest.raises(AssertionError, match=r"Found 1 Python objects that were not bound.*\(root\)\.w"):
            check()
    assert status.expect_partial() is status
    status.assert_nontrivial_match()
    empty = tk.train.Checkpoint().restore(path)
    with pytest.raises(AssertionError, match=r"\(root\)\.v"):
        empty.assert_consumed()
    with pytest.raises(AssertionError, match="Nothing except the save counter"):
        empty.assert_nontrivial_match()
    with pytest.raises(AssertionError, match=r"No checkpoint specified \(save_path=None\)"):
        tk.train.Checkpoint(v=tk.Variable(1.0)).restore(None).assert_consumed()


def test_mismatch_names_the_route_shapes_and_dtypes_and_changes_nothing(tmp_path):
    path = tk.train.Checkpoint(a=tk.Variable(1.0), b=tk.Variable(2.0)).save(str(tmp_path / "ck"))
    a, b = tk.Variable(0.0), tk.Variable([0.0, 0.0])
    with pytest.raises(ValueError, match=r"(?s)\(root\)\.b: the checkpoint holds shape \(\) \(float32\).*"
                                         r"shape \(2,\) \(float32\).*Nothing was assigned"):
        tk.train.Checkpoint(a=a, b=b).restore(path)
    assert float(a.numpy()) == 0.0                      # `a` fitted, but nothing was assigned
    with pytest.raises(ValueError, match=r"\(root\)\.a: the checkpoint holds dtype float32.*int32"):
        tk.train.Checkpoint(a=tk.Variable(0)).restore(path)
    with pytest.raises(ValueError, match="holds a variable there, the program has a Net"):
        tk.train.Checkpoint(a=Net()).restore(path)


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


def test_checkpoint_rejects_what_it_cannot_track():
    with pytest.raises(ValueError, match="expecting a trackable object.*'n', got int"):
        tk.train.Checkpoint(n=1)


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


def test_train_namespace_refuses_what_tapekit_lacks():
    assert {"Checkpoint", "CheckpointManager", "latest_checkpoint", "load_checkpoint"} <= set(dir(tk.train))
    with pytest.raises(AttributeError, match="Example"):
        tk.train.Example          # noqa: B018
