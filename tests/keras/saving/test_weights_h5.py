"""model.save_weights / load_weights in Keras 3's `.weights.h5` layout (issue 32).

The expected layouts are the ones Keras 3.15 writes for the same models (group names, the
`name` attribute, dataset shapes), read off its files with h5py; tools/keras_interop/ loads
tapekit's files into Keras and Keras's into tapekit. No TensorFlow here.
"""
import zipfile

import numpy as np
import pytest

import tapekit as tk

h5py = pytest.importorskip("h5py")


def layout(path):
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: found.__setitem__(
            name, dict(obj.attrs) if isinstance(obj, h5py.Group) else tuple(obj.shape)))
    return {k: v for k, v in found.items() if k.endswith("vars") or "/vars/" in k or k == "vars"}


def sequential(name_last="out", seed=1):
    tk.layers.clear_session()
    tk.random.set_seed(seed)
    return tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(4, activation="relu"),
                          tk.layers.Dense(2), tk.layers.Dense(2, name=name_last)])


def test_a_sequential_is_written_as_keras_3_writes_it(tmp_path):
    sequential().save_weights(tmp_path / "m.weights.h5")
    assert layout(tmp_path / "m.weights.h5") == {
        "vars": {"name": "sequential"},
        "layers/dense/vars": {"name": "dense"},
        "layers/dense/vars/0": (3, 4), "layers/dense/vars/1": (4,),
        "layers/dense_1/vars": {"name": "dense_1"},
        "layers/dense_1/vars/0": (4, 2), "layers/dense_1/vars/1": (2,),
        # named by class and position, not by the layer's own name ("out")
        "layers/dense_2/vars": {"name": "out"},
        "layers/dense_2/vars/0": (2, 2), "layers/dense_2/vars/1": (2,)}


def test_a_functional_model_keeps_its_input_layer_group(tmp_path):
    tk.layers.clear_session()
    inputs = tk.Input(shape=(3,), name="x")
    hidden = tk.layers.Dense(4, name="h")(inputs)
    model = tk.Model(inputs, [tk.layers.Dense(1, name="o1")(hidden), tk.layers.Dense(2)(hidden)])
    model.save_weights(tmp_path / "f.weights.h5")
    got = layout(tmp_path / "f.weights.h5")
    assert got["layers/input_layer/vars"] == {"name": "x"}
    assert got["layers/dense/vars"] == {"name": "h"} and got["layers/dense/vars/0"] == (3, 4)
    assert got["layers/dense_1/vars"] == {"name": "o1"} and got["layers/dense_1/vars/0"] == (4, 1)
    assert got["layers/dense_2/vars/0"] == (4, 2)


class Block(tk.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.d1 = tk.layers.Dense(3)
        self.bn = tk.layers.BatchNormalization()
        self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

    def call(self, x, training=None):
        return self.bn(self.d1(x), training=training) * self.scale


class Subclassed(tk.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.block = Block()
        self.head = tk.layers.Dense(1)
        self.extra = [tk.layers.Dense(2), tk.layers.Dense(2)]

    def call(self, x, training=None):
        return self.head(self.extra[1](self.extra[0](self.block(x, training=training))))


def test_a_subclassed_model_is_walked_by_attribute_as_keras_3_does(tmp_path):
    tk.layers.clear_session()
    model = Subclassed()
    model(np.ones((2, 4), "float32"))
    model.save_weights(tmp_path / "s.weights.h5")
    got = layout(tmp_path / "s.weights.h5")
    assert {k: v for k, v in got.items() if k.endswith("vars")} == {
        "vars": {"name": "subclassed"}, "block/vars": {"name": "block"},
        "block/bn/vars": {"name": "batch_normalization"}, "block/d1/vars": {"name": "dense"},
        "extra/dense/vars": {"name": "dense_2"}, "extra/dense_1/vars": {"name": "dense_3"},
        "head/vars": {"name": "dense_1"}}
    # batch norm: gamma, beta (trainable), then moving mean and variance
    assert [got[f"block/bn/vars/{i}"] for i in range(4)] == [(3,)] * 4
    assert got["block/vars/0"] == ()


def test_weights_come_back_and_predictions_match(tmp_path):
    model, x = sequential(), np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
    model.save_weights(tmp_path / "m.weights.h5")
    other = sequential(name_last="last", seed=2)      # another init, another name
    assert not np.allclose(other(x).numpy(), model(x).numpy())
    other.load_weights(tmp_path / "m.weights.h5")
    np.testing.assert_array_equal(other(x).numpy(), model(x).numpy())


def test_a_subclassed_model_round_trips_including_non_trainable_weights(tmp_path):
    tk.layers.clear_session()
    model, x = Subclassed(), np.arange(8, dtype="float32").reshape(2, 4)
    model(x, training=True)                            # moves batch norm's moving statistics
    model.save_weights(tmp_path / "s.weights.h5")
    tk.layers.clear_session()
    other = Subclassed()
    other(x)
    other.load_weights(tmp_path / "s.weights.h5")
    for a, b in zip(model.weights, other.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_a_file_that_does_not_fit_raises_and_changes_nothing(tmp_path):
    sequential().save_weights(tmp_path / "m.weights.h5")
    tk.layers.clear_session()
    smaller = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(4), tk.layers.Dense(3)])
    before = [w.numpy().copy() for w in smaller.weights]
    with pytest.raises(ValueError) as err:
        smaller.load_weights(tmp_path / "m.weights.h5")
    text = str(err.value)
    assert "layers/dense_1/vars" in text and "(4, 2)" in text and "(4, 3)" in text
    assert "layers/dense_2/vars belong to no layer" in text and "unchanged" in text
    for w, b in zip(smaller.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)   # the first layer fit, and was not loaded


def test_skip_mismatch_loads_what_fits_and_warns(tmp_path):
    sequential().save_weights(tmp_path / "m.weights.h5")
    saved = sequential().weights[0].numpy()
    tk.layers.clear_session()
    smaller = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(4), tk.layers.Dense(3)])
    with pytest.warns(UserWarning, match="skipped"):
        smaller.load_weights(tmp_path / "m.weights.h5", skip_mismatch=True)
    np.testing.assert_array_equal(smaller.weights[0].numpy(), saved)


@pytest.mark.parametrize("content", [b"", b"not hdf5 at all", b"\x89HDF\r\n\x1a\n" + b"\0" * 40])
def test_a_file_that_is_not_hdf5_gets_a_clear_error(tmp_path, content):
    bad = tmp_path / "bad.weights.h5"
    bad.write_bytes(content)
    model = sequential()
    before = [w.numpy().copy() for w in model.weights]
    with pytest.raises(ValueError, match="is not a weights file"):
        model.load_weights(bad)
    assert all(np.array_equal(w.numpy(), b) for w, b in zip(model.weights, before))


def test_a_truncated_file_gets_a_clear_error(tmp_path):
    sequential().save_weights(tmp_path / "m.weights.h5")
    data = (tmp_path / "m.weights.h5").read_bytes()
    (tmp_path / "cut.weights.h5").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="is not a weights file|does not fit"):
        sequential().load_weights(tmp_path / "cut.weights.h5")


def test_only_numbers_are_read(tmp_path):
    path = tmp_path / "strings.weights.h5"
    with h5py.File(path, "w") as f:
        group = f.create_group("layers/dense/vars")
        group.create_dataset("0", data=np.array([b"import os"]))
        group.create_dataset("1", data=np.zeros(4, "float32"))
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(4)])
    with pytest.raises(ValueError, match="weight 0: not an array of numbers"):
        model.load_weights(path)


def test_the_weights_inside_a_keras_archive_load(tmp_path):
    model, x = sequential(), np.ones((2, 3), "float32")
    model.save_weights(tmp_path / "m.weights.h5")
    with zipfile.ZipFile(tmp_path / "m.keras", "w") as archive:
        archive.writestr("metadata.json", "{}")
        archive.write(tmp_path / "m.weights.h5", "model.weights.h5")
    other = sequential(seed=2)
    other.load_weights(tmp_path / "m.keras")
    np.testing.assert_array_equal(other(x).numpy(), model(x).numpy())
    with zipfile.ZipFile(tmp_path / "empty.keras", "w") as archive:
        archive.writestr("config.json", "{}")
    with pytest.raises(ValueError, match="is not a weights file"):
        other.load_weights(tmp_path / "empty.keras")


def test_names_and_arguments_are_checked(tmp_path):
    model = sequential()
    with pytest.raises(ValueError, match=r"must end in \.weights\.h5"):
        model.save_weights(tmp_path / "m.h5")
    model.save_weights(tmp_path / "m.weights.h5")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        model.save_weights(tmp_path / "m.weights.h5", overwrite=False)
    unbuilt = tk.Sequential([tk.layers.Dense(2)])
    with pytest.raises(ValueError, match="no weights yet"):
        unbuilt.save_weights(tmp_path / "u.weights.h5")
    assert not (tmp_path / "u.weights.h5").exists() and not list(tmp_path.glob("*.partial"))


# --- names in any language (issue 43) ----------------------------------------------------------
def named_model():
    tk.layers.clear_session()
    tk.random.set_seed(3)
    i = tk.Input((3,), name="in put")
    h = tk.layers.Dense(2, name="密集层")(i)
    h = tk.layers.Dense(2, name="a\x00b")(h)
    return tk.Model(i, tk.layers.Dense(1, name="x\ud800y")(h), name="模型 1")


def test_layers_named_in_any_language_save_and_load_their_weights(tmp_path):
    """Keras 3.15 names the groups by class (layers/dense, layers/dense_1, ...) and writes the
    layer's name in the group's `name` attribute: `密集层` there as it is. A NUL or a lone
    surrogate, which HDF5's UTF-8 text cannot hold (Keras 3.15's save_weights fails: "VLEN
    strings do not support embedded NULLs"), is written escaped; loading reads the groups
    by path, so the escape changes nothing."""
    model = named_model()
    model.save_weights(tmp_path / "n.weights.h5")
    got = layout(tmp_path / "n.weights.h5")
    assert got["vars"] == {"name": "模型 1"}
    assert got["layers/input_layer/vars"] == {"name": "in put"}
    assert got["layers/dense/vars"] == {"name": "密集层"}
    assert got["layers/dense_1/vars"] == {"name": "a\\x00b"}
    assert got["layers/dense_2/vars"] == {"name": "x\\ud800y"}
    again = named_model()
    again.set_weights([np.zeros(w.shape, np.float32) for w in again.weights])
    again.load_weights(tmp_path / "n.weights.h5")
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())


def test_a_keras_3_weights_file_with_unicode_names_loads(tmp_path):
    """The layout Keras 3.15 wrote for Input("in put") -> Dense(3, name="密集层"): groups by
    class, the names only in the `name` attributes."""
    rng = np.random.default_rng(0)
    kernel, bias = rng.normal(size=(2, 3)).astype("float32"), rng.normal(size=3).astype("float32")
    path = tmp_path / "k.weights.h5"
    with h5py.File(path, "w") as f:
        f.create_group("vars").attrs["name"] = "模型 1"
        f.create_group("layers/input_layer/vars").attrs["name"] = "in put"
        g = f.create_group("layers/dense/vars")
        g.attrs["name"] = "密集层"
        g.create_dataset("0", data=kernel)
        g.create_dataset("1", data=bias)
    tk.layers.clear_session()
    i = tk.Input((2,), name="in put")
    model = tk.Model(i, tk.layers.Dense(3, name="密集层")(i), name="模型 1")
    model.load_weights(path)
    np.testing.assert_array_equal(model.get_layer("密集层").kernel.numpy(), kernel)
