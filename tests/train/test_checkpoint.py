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


def test_checkpoint_rejects_what_it_cannot_track():
    with pytest.raises(ValueError, match="expecting a trackable object.*'n', got int"):
        tk.train.Checkpoint(n=1)


def test_train_namespace_refuses_what_tapekit_lacks():
    assert {"Checkpoint", "CheckpointManager", "latest_checkpoint", "load_checkpoint"} <= set(dir(tk.train))
    # the namespace's other TF names still say tapekit lacks them (the inventory's table)
    with pytest.raises(tk.namespaces.NotInTapekit, match="tf.train.Example: it is outside tapekit's scope"):
        tk.train.Example          # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        tk.train.no_such_name     # noqa: B018
