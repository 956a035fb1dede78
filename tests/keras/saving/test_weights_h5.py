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
    return {k: v for k, v in found.items()
            if k.endswith("vars") or "/vars/" in k or k.startswith("vars/")}


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


class Inner(tk.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.d1 = tk.layers.Dense(3)
        self._hidden = tk.layers.Dense(3)
        self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

    def call(self, x):
        return self._hidden(self.d1(x)) * self.scale


class Holders(tk.Model):
    """Layers held every way Keras 3 walks differently: an uppercase and a private attribute,
    a list, a dict (inserted b before a), a list in a list, and a weight of the model's own."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.Zeta = tk.layers.Dense(2)
        self._private = tk.layers.Dense(2)
        self.block = Inner()
        self.alpha = tk.layers.Dense(2)
        self.stack = [tk.layers.Dense(2), tk.layers.Dense(2, use_bias=False)]
        self.table = {"b": tk.layers.Dense(2), "a": tk.layers.Dense(2)}
        self.nested = [[tk.layers.Dense(2)], tk.layers.Dense(2)]
        self.w = self.add_weight(shape=(2,), initializer="ones", name="w")

    def call(self, x):
        h = self.block(x)
        h = self.Zeta(h) + self._private(h) + self.alpha(h)
        for layer in self.stack:
            h = layer(h)
        h = self.table["b"](h) + self.table["a"](h)
        return (self.nested[0][0](h) + self.nested[1](h)) * self.w


# Keras 3.15.1's .weights.h5 for the same model built with `import keras` (save_weights, read
# with h5py in the TF venv): each group, the name attribute Keras gave it (the layer's name)
# and its datasets' shapes. A layer in a list, a dict or a private attribute sits under
# `layers/` (the model's `layers`, visited after the attributes sorted before it); dense,
# dense_2 and the block under layers/ are numbered but not written again.
KERAS_HOLDERS = {
    "vars": ("holders", [(2,)]),
    "Zeta/vars": ("dense", [(3, 2), (2,)]),
    "alpha/vars": ("dense_4", [(3, 2), (2,)]),
    "block/vars": ("inner", [()]),
    "block/_hidden/vars": ("dense_3", [(3, 3), (3,)]),
    "block/d1/vars": ("dense_2", [(4, 3), (3,)]),
    "layers/dense_1/vars": ("dense_1", [(3, 2), (2,)]),
    "layers/dense_3/vars": ("dense_5", [(2, 2), (2,)]),
    "layers/dense_4/vars": ("dense_6", [(2, 2)]),
    "layers/dense_5/vars": ("dense_7", [(2, 2), (2,)]),
    "layers/dense_6/vars": ("dense_8", [(2, 2), (2,)]),
    "layers/dense_7/vars": ("dense_9", [(2, 2), (2,)]),
    "layers/dense_8/vars": ("dense_10", [(2, 2), (2,)]),
}


def holders():
    tk.layers.clear_session()
    model = Holders()
    model(np.ones((2, 4), "float32"))
    return model


def test_a_subclassed_model_holding_layers_every_way_is_written_as_keras_3_writes_it(tmp_path):
    holders().save_weights(tmp_path / "h.weights.h5")
    got = layout(tmp_path / "h.weights.h5")
    assert {k: v["name"] for k, v in got.items() if k.endswith("vars")} == {
        k: name for k, (name, _) in KERAS_HOLDERS.items()}
    for group, (_, shapes) in KERAS_HOLDERS.items():
        assert [got[f"{group}/{i}"] for i in range(len(shapes))] == shapes


def test_a_keras_written_subclassed_models_weights_are_found(tmp_path):
    # before: "layer 'dense_1' (Dense, at _private/vars): the file has no such group", and six
    # more, then "the file's weights at layers/dense_1/vars belong to no layer of this model"
    rng = np.random.default_rng(5)
    stored = {}
    with h5py.File(tmp_path / "k.weights.h5", "w") as f:
        for group, (name, shapes) in KERAS_HOLDERS.items():
            g = f.require_group(group)
            g.attrs["name"] = name
            for i, shape in enumerate(shapes):
                stored[name, i] = rng.normal(size=shape).astype("float32")
                g.create_dataset(str(i), data=stored[name, i])
    model = holders()
    model.load_weights(tmp_path / "k.weights.h5")
    for layer in [model] + model._flatten_layers(recursive=True):
        for i, weight in enumerate(tk.keras.saving.weights_h5.own_weights(layer)):
            np.testing.assert_array_equal(weight.numpy(), stored[layer.name, i])


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
    with pytest.raises(ValueError, match=r"empty.keras' has no model.weights.h5: a .keras file "
                                         r"holds config.json, model.weights.h5 and metadata.json"):
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
