"""model.save_weights / load_weights in Keras 3's `.weights.h5` layout (issue 32).

The expected layouts are the ones Keras 3.15 writes for the same models (group names, the
`name` attribute, dataset shapes), read off its files with h5py; tools/keras_interop/ loads
tapekit's files into Keras and Keras's into tapekit. No TensorFlow here.
"""
import io
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


# --- the optimizer's state in optimizer/vars, as Keras 3.15 keeps it ----------------------------
# A model of two Dense layers, its weights and its optimizer's state after 3 steps, laid out
# by hand in the order Keras 3.15's optimizer.variables has them (each value distinct, so a
# slot put in another's place changes the next step). "same": every variable (2, 2), where a
# slot in the wrong place went unnoticed; "mixed": kernels and biases, where tapekit dropped
# the state ("14 variables does not fit 14 variables"). config.json is tapekit's (Keras 3.15
# loads it); model.weights.h5 is replaced by the hand-made one.
X_STEP = np.array([[0.5, -1.0], [1.5, 0.25]], "float32")
Y_STEP = {"same": np.array([[0.3, -0.1], [-0.2, 0.4]], "float32"),
          "mixed": np.array([[0.3], [-0.2]], "float32")}
SHAPES = {"same": [[(2, 2)], [(2, 2)]], "mixed": [[(2, 2), (2,)], [(2, 1), (1,)]]}
OPTIMIZERS = {
    "sgd": lambda: tk.optimizers.SGD(0.1),
    "sgd_momentum": lambda: tk.optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: tk.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: tk.optimizers.Adam(0.05),
    "adam_amsgrad": lambda: tk.optimizers.Adam(0.05, amsgrad=True),
    "adam_schedule": lambda: tk.optimizers.Adam(
        tk.optimizers.schedules.ExponentialDecay(0.05, 10, 0.5)),
    "rmsprop": lambda: tk.optimizers.RMSprop(0.01),
    "rmsprop_momentum": lambda: tk.optimizers.RMSprop(0.01, momentum=0.5),
    "rmsprop_centered": lambda: tk.optimizers.RMSprop(0.01, centered=True),
    "rmsprop_centered_momentum": lambda: tk.optimizers.RMSprop(0.01, centered=True,
                                                               momentum=0.5),
    "nadam": lambda: tk.optimizers.Nadam(0.05),
    "adamw": lambda: tk.optimizers.AdamW(0.05, weight_decay=0.1),
    "adagrad": lambda: tk.optimizers.Adagrad(0.1)}
# Keras 3.15's optimizer.variables of each, for the "mixed" model (v.path, read in the TF venv);
# the "same" model's is the same without the biases.
_M, _V, _H = "momentum", "velocity", "velocity_hat"
_W = ("dense_kernel", "dense_bias", "dense_1_kernel", "dense_1_bias")
KERAS_ORDER = {
    "sgd": ["iteration", "learning_rate"],
    "sgd_momentum": ["iteration", "learning_rate"] + [f"{w}_{_M}" for w in _W],
    "adam": ["iteration", "learning_rate"] + [f"{w}_{s}" for w in _W for s in (_M, _V)],
    "adam_amsgrad": ["iteration", "learning_rate"] + [f"{w}_{s}" for w in _W for s in (_M, _V)]
                    + [f"{w}_{_H}" for w in _W],
    "adam_schedule": ["iteration"] + [f"{w}_{s}" for w in _W for s in (_M, _V)],
    "rmsprop": ["iteration", "learning_rate"] + [f"{w}_{_V}" for w in _W],
    "rmsprop_momentum": ["iteration", "learning_rate"] + [f"{w}_{s}" for s in (_V, _M)
                                                          for w in _W],
    "rmsprop_centered": ["iteration", "learning_rate"] + [
        f"{w}_{s}" for s in (_V, "average_gradient") for w in _W],
    "rmsprop_centered_momentum": ["iteration", "learning_rate"] + [
        f"{w}_{s}" for s in (_V, _M, "average_gradient") for w in _W]}
KERAS_ORDER["sgd_nesterov"] = KERAS_ORDER["sgd_momentum"]
KERAS_ORDER["adamw"] = KERAS_ORDER["adam"]
# Nadam's product of momentum decays, unnamed in Keras 3.15 ("variable"), after the slots
KERAS_ORDER["nadam"] = KERAS_ORDER["adam"] + ["variable"]
KERAS_ORDER["adagrad"] = ["iteration", "learning_rate"] + [f"{w}_accumulator" for w in _W]
# The weights after one train_on_batch(X_STEP, Y_STEP) of Keras 3.15.1 (TF 2.21) from each file
KERAS_NEXT = {
    "adam/mixed": [[[-0.5987583, -0.1677253], [0.2664561, 0.6979521]], [-0.49778327, 0.6472681],
        [[-0.39618027], [0.59509385]], [-0.2967378]],
    "adam/same": [[[-0.5987188, -0.16603135], [0.26644525, 0.69878626]],
        [[-0.4972794, -0.117056966], [0.26523557, 0.64704]]],
    "adam_amsgrad/mixed": [[[-0.5993202, -0.16730526], [0.2665308, 0.6986085]],
        [-0.49850622, 0.64793587], [[-0.39708325], [0.5959939]], [-0.29728645]],
    "adam_amsgrad/same": [[[-0.5990945, -0.16618659], [0.2664917, 0.6990094]],
        [[-0.49770147, -0.11700461], [0.26540518, 0.64735365]]],
    "adam_schedule/mixed": [[[-0.5989914, -0.16752654], [0.26649565, 0.69833654]],
        [-0.49819943, 0.647781], [[-0.3968974], [0.596015]], [-0.29735026]],
    "adam_schedule/same": [[[-0.5989594, -0.16615063], [0.26648682, 0.6990141]],
        [[-0.4977902, -0.11698368], [0.26550427, 0.6475957]]],
    "rmsprop/mixed": [[[-0.5960093, -0.1808392], [0.2702679, 0.6879671]], [-0.50004905, 0.64868724],
        [[-0.39001605], [0.5875905]], [-0.3088349]],
    "rmsprop/same": [[[-0.59547055, -0.16021784], [0.2701314, 0.6974898]],
        [[-0.49278024, -0.12639672], [0.26422822, 0.64570385]]],
    "rmsprop_centered/mixed": [[[-0.5959216, -0.18091193], [0.2702679, 0.6876694]],
        [-0.5000497, 0.64867616], [[-0.389668], [0.5872184]], [-0.30885962]],
    "rmsprop_centered/same": [[[-0.59542227, -0.16019079], [0.27013162, 0.6974799]],
        [[-0.49266192, -0.12641877], [0.26422483, 0.64567274]]],
    "rmsprop_centered_momentum/mixed": [[[-0.54575753, -0.17253901], [0.23693672, 0.612399]],
        [-0.440051, 0.5586583], [[-0.31935298], [0.48196748]], [-0.22894453]],
    "rmsprop_centered_momentum/same": [[[-0.5653659, -0.15517905], [0.25013146, 0.652468]],
        [[-0.4525774, -0.11974332], [0.23755611, 0.58564913]]],
    "rmsprop_momentum/mixed": [[[-0.5460093, -0.17250586], [0.23693456, 0.61296713]],
        [-0.44004905, 0.55868727], [[-0.32001603], [0.4825905]], [-0.22883491]],
    "rmsprop_momentum/same": [[[-0.5654705, -0.15521783], [0.25013143, 0.6524898]],
        [[-0.45278022, -0.119730055], [0.23756155, 0.58570385]]],
    "sgd/mixed": [[[-0.59460276, -0.1927173], [0.27354425, 0.67239803]], [-0.5000806, 0.64694685],
        [[-0.3800356], [0.5661359]], [-0.31951895]],
    "sgd/same": [[[-0.59385973, -0.15584266], [0.27328038, 0.6946582]],
        [[-0.48781487, -0.13606948], [0.26147848, 0.6399233]]],
    "sgd_momentum/mixed": [[[-0.6126028, -0.1957173], [0.28554425, 0.69939804]],
        [-0.5360806, 0.70094687], [[-0.4340356], [0.6471359]], [-0.39151895]],
    "sgd_momentum/same": [[[-0.61185974, -0.15884267], [0.28528038, 0.72165823]],
        [[-0.52381486, -0.14206947], [0.28547847, 0.6939233]]],
    "sgd_nesterov/mixed": [[[-0.6059452, -0.21886288], [0.29053408, 0.6718563]],
        [-0.53255314, 0.69279903], [[-0.41066766], [0.6085582]], [-0.401886]],
    "sgd_nesterov/same": [[[-0.6045335, -0.14880106], [0.2900327, 0.71415067]],
        [[-0.50924826, -0.158932], [0.2784091, 0.67945427]]],
    # Keras 3.15.1's weights after one step from the same files: Nadam, AdamW, Adagrad
    "nadam/mixed": [[[-0.59926254, -0.16896701], [0.26712328, 0.6977957]], [-0.49958706,
            0.6493097], [[-0.39806098], [0.59734595]], [-0.30043358]],
    "nadam/same": [[[-0.5991859, -0.16567335], [0.26710218, 0.6994188]], [[-0.4986067,
            -0.11801838], [0.26607987, 0.6488659]]],
    "adamw/mixed": [[[-0.59575826, -0.16689196], [0.26512277, 0.6944521]], [-0.49528328,
            0.6440181], [[-0.39418027], [0.5920938]], [-0.29523778]],
    "adamw/same": [[[-0.5957188, -0.16519801], [0.26511192, 0.6952863]], [[-0.4947794,
            -0.11647363], [0.26390225, 0.64379]]],
    "adagrad/mixed": [[[-0.5643441, -0.24994032], [0.2991855, 0.6222979]], [-0.5004654,
            0.63763136], [[-0.32935238], [0.5211989]], [-0.36576137]],
    "adagrad/same": [[[-0.56017375, -0.11367145], [0.29806304, 0.6767648]], [[-0.44246137,
            -0.1862976], [0.24406473, 0.6119555]]],
}


def two_dense(kind):
    tk.layers.clear_session()
    use_bias = kind == "mixed"
    return tk.Sequential([tk.Input(shape=(2,)),
                          tk.layers.Dense(2, use_bias=use_bias, activation="tanh"),
                          tk.layers.Dense(1 if use_bias else 2, use_bias=use_bias)])


def start_weights(kind):
    shapes = [s for layer in SHAPES[kind] for s in layer]
    return [np.linspace(-0.6 + 0.1 * k, 0.7 - 0.05 * k, int(np.prod(s)), dtype="float32")
            .reshape(s) for k, s in enumerate(shapes)]


def slot_value(slot, k, shape):
    """The k-th slot entry's value: distinct, velocities positive, average gradients small."""
    ramp = np.linspace(0.0, 1.0, int(np.prod(shape)), dtype="float32").reshape(shape)
    if slot in (_V, _H, "accumulator"):
        return (0.02 + 0.01 * k + 0.03 * ramp).astype("float32")
    if slot == "average_gradient":
        return (0.01 * (k + 1) * (ramp - 0.5)).astype("float32")
    return (0.05 * (k + 1) * (ramp - 0.4)).astype("float32")


def keras_state(name, kind):
    """[(slot, variable index, array)] in KERAS_ORDER at iteration 3 (slot None: iterations
    and the learning rate)."""
    weights = [w for w in _W if kind == "mixed" or not w.endswith("_bias")]
    shapes = [s for layer in SHAPES[kind] for s in layer]
    out = [(None, None, np.int64(3))]
    if "learning_rate" in KERAS_ORDER[name]:
        out.append((None, None, np.float32(OPTIMIZERS[name]().learning_rate.numpy())))
    head = len(out)
    for path in KERAS_ORDER[name]:
        owner = next((w for w in weights if path.startswith(w + "_")), None)
        if path == "variable":       # Nadam's u_product after 3 steps of beta_1 = 0.9: about
            out.append(("u_product", None, np.float32(0.107)))      # 0.468 * 0.475 * 0.483
        elif owner is not None:
            slot, var = path[len(owner) + 1:], weights.index(owner)
            out.append((slot, var, slot_value(slot, len(out) - head, shapes[var])))
    return out


def keras_file(path, name, kind):
    """A .keras archive: tapekit's config of the compiled model, Keras 3.15's weights layout."""
    model = two_dense(kind)
    model.compile(optimizer=OPTIMIZERS[name](), loss="mse")
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        config = archive.read("config.json")
    h5 = path.with_suffix(".h5")
    weights = iter(start_weights(kind))
    with h5py.File(h5, "w") as f:
        f.create_group("vars").attrs["name"] = model.name
        for group, shapes in zip(("layers/dense/vars", "layers/dense_1/vars"), SHAPES[kind]):
            for i, _ in enumerate(shapes):
                f.create_dataset(f"{group}/{i}", data=next(weights))
        for i, (_, _, value) in enumerate(keras_state(name, kind)):
            f.create_dataset(f"optimizer/vars/{i}", data=value)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("metadata.json", "{}")
        archive.writestr("config.json", config)
        archive.writestr("model.weights.h5", h5.read_bytes())
    return path


@pytest.mark.parametrize("kind", ["same", "mixed"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_keras_3_file_resumes_with_keras_3s_next_step(tmp_path, name, kind):
    # before: RMSprop with two or three slots put them in the wrong places ("same": the next
    # step was off by up to 0.045) or dropped them ("mixed"), an Adam with a schedule dropped
    # its state, an Adam with amsgrad loaded uncompiled
    model = tk.models.load_model(keras_file(tmp_path / "k.keras", name, kind))
    opt, variables = model.optimizer, model.trainable_variables
    assert int(opt.iterations) == 3
    for slot, var, value in keras_state(name, kind):     # each slot where Keras keeps it
        if slot == "u_product":
            np.testing.assert_array_equal(opt._u_product.numpy(), value)
        elif slot is not None:
            np.testing.assert_array_equal(opt._slots_for(variables[var])[slot].numpy(), value)
    model.train_on_batch(X_STEP, Y_STEP[kind])
    for got, expected in zip(model.get_weights(), KERAS_NEXT[f"{name}/{kind}"]):
        np.testing.assert_allclose(got, np.array(expected, "float32"), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_tapekit_writes_the_optimizers_state_in_keras_3s_order(tmp_path, name):
    model = two_dense("mixed")
    model.set_weights(start_weights("mixed"))
    model.compile(optimizer=OPTIMIZERS[name](), loss="mse")
    model.fit(np.tile(X_STEP, (3, 1)), np.tile(Y_STEP["mixed"], (3, 1)), batch_size=2,
              shuffle=False, verbose=0)
    model.save(tmp_path / "t.keras")
    with zipfile.ZipFile(tmp_path / "t.keras") as archive:
        (tmp_path / "t.h5").write_bytes(archive.read("model.weights.h5"))
    opt = model.optimizer
    by_path = {"iteration": opt.iterations, "learning_rate": opt._learning_rate,
               "variable": getattr(opt, "_u_product", None)}
    for var in model.trainable_variables:
        for slot, value in opt._slots.get(id(var), (var, {}))[1].items():
            by_path[f"{var.path.replace('/', '_')}_{slot}"] = value    # Keras 3's slot path
    with h5py.File(tmp_path / "t.h5") as f:
        stored = f["optimizer/vars"]
        assert len(stored) == len(KERAS_ORDER[name])
        for i, path in enumerate(KERAS_ORDER[name]):
            np.testing.assert_array_equal(stored[str(i)][()], by_path[path].numpy())
    assert [v.name for v in opt.variables] == [by_path[p].name for p in KERAS_ORDER[name]]


def edit_optimizer_vars(path, edit):
    """Rewrite the archive's optimizer/vars through `edit(group)`."""
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    h5 = path.with_suffix(".edit.h5")
    h5.write_bytes(members["model.weights.h5"])
    with h5py.File(h5, "a") as f:
        edit(f["optimizer/vars"])
    members["model.weights.h5"] = h5.read_bytes()
    with zipfile.ZipFile(path, "w") as archive:
        for n, data in members.items():
            archive.writestr(n, data)
    return path


def replace(i, value):
    def edit(group):
        del group[str(i)]
        group.create_dataset(str(i), data=value)
    return edit


ORDER_WORDS = ("iterations, then learning_rate, then velocity of each trainable variable, then "
               "momentum of each trainable variable, then average_gradient of each trainable "
               "variable")


@pytest.mark.parametrize("edit, why", [
    (replace(3, np.zeros((2, 2), "float32")),
     "optimizer/vars/3 has shape (2, 2), but the 'velocity' slot of dense/bias belongs there, "
     "of shape (2,)"),
    (lambda group: group.__delitem__("13"), "the file holds 13 variables"),
    (replace(6, np.array([b"x", b"y"])),
     "optimizer/vars/6, where the 'momentum' slot of dense/kernel belongs, is not an array of "
     "numbers"),
    (replace(0, np.float64(2.5)), "optimizer/vars/0, the number of iterations, is 2.5"),
])
def test_an_optimizer_state_that_does_not_fit_is_refused_naming_the_slot(tmp_path, edit, why):
    # before: placed by shape, or dropped with "14 variables does not fit 14 variables"
    path = edit_optimizer_vars(keras_file(tmp_path / "k.keras", "rmsprop_centered_momentum",
                                          "mixed"), edit)
    with pytest.raises(ValueError) as err:
        tk.models.load_model(path)
    text = str(err.value)
    assert text.startswith(f"load_model: {str(path)!r}: the optimizer's state in the file does "
                           f"not fit the model's RMSprop: {why}. For this model's 4 trainable "
                           f"variables, RMSprop keeps 14 variables, in Keras 3's order: "
                           f"{ORDER_WORDS}.")
    assert text.endswith("pass compile=False and compile it again.")
    assert tk.models.load_model(path, compile=False).get_weights()[0].shape == (2, 2)


def test_a_file_saved_before_the_first_step_loads_with_the_slots_at_zero(tmp_path):
    model = two_dense("mixed")
    model.compile(optimizer=tk.optimizers.RMSprop(0.01, momentum=0.5, centered=True), loss="mse")
    model.save(tmp_path / "fresh.keras")
    with zipfile.ZipFile(tmp_path / "fresh.keras") as archive, \
            h5py.File(io.BytesIO(archive.read("model.weights.h5"))) as f:
        assert len(f["optimizer/vars"]) == 2            # iterations, learning rate: as Keras
    loaded = tk.models.load_model(tmp_path / "fresh.keras")
    assert int(loaded.optimizer.iterations) == 0
    assert all(not v.numpy().any() for v in loaded.optimizer.variables[2:])
    assert len(loaded.optimizer.variables) == 2 + 3 * 4


def test_a_schedule_keeps_no_learning_rate_variable_as_keras(tmp_path):
    # Keras 3.15: optimizer.variables of Adam(ExponentialDecay(...)) starts [iteration, slots...];
    # tapekit wrote a learning rate too, so Keras skipped the whole state ("9 variables whereas
    # the saved optimizer has 10") and tapekit dropped Keras's
    opt = OPTIMIZERS["adam_schedule"]()
    w = tk.Variable([1.0, 2.0], name="w")
    opt.apply_gradients([(tk.constant([0.5, -0.5]), w)])
    assert [v.name for v in opt.variables] == ["Adam/iteration:0", "Adam/w/momentum:0",
                                              "Adam/w/velocity:0"]


def trained(name="rmsprop_centered_momentum"):
    model = two_dense("mixed")
    model.set_weights(start_weights("mixed"))
    model.compile(optimizer=OPTIMIZERS[name](), loss="mse")
    model.fit(X_STEP, Y_STEP["mixed"], verbose=0)
    return model


def test_save_weights_writes_and_load_weights_reads_a_built_optimizers_state(tmp_path):
    # Keras 3.15's save_weights writes optimizer/vars for a compiled model, and its
    # load_weights loads them into an optimizer that has made its slots
    model = trained()
    model.save_weights(tmp_path / "m.weights.h5")
    state = tk.saving.weights_h5.optimizer_state(model)
    with h5py.File(tmp_path / "m.weights.h5") as f:
        assert [f[f"optimizer/vars/{i}"][()].tolist() for i in range(len(f["optimizer/vars"]))] \
            == [v.tolist() for _, v in state]
    other = two_dense("mixed")
    other.compile(optimizer=OPTIMIZERS["rmsprop_centered_momentum"](), loss="mse")
    other.optimizer.build(other.trainable_variables)
    other.load_weights(tmp_path / "m.weights.h5")
    assert [w.tolist() for w in other.get_weights()] == [w.tolist() for w in model.get_weights()]
    for (what, a), (_, b) in zip(state, tk.saving.weights_h5.optimizer_state(other)):
        np.testing.assert_array_equal(a, b, err_msg=what)


def test_load_weights_leaves_an_optimizer_without_slots_as_it_is_with_a_warning(tmp_path):
    trained().save_weights(tmp_path / "m.weights.h5")
    other = two_dense("mixed")
    other.compile(optimizer=OPTIMIZERS["rmsprop_centered_momentum"](), loss="mse")
    with pytest.warns(UserWarning, match=r"the file holds the optimizer's state, but the "
                                         r"model's RMSprop has made no slots yet.*"
                                         r"model.optimizer.build\(model.trainable_variables\)"):
        other.load_weights(tmp_path / "m.weights.h5")
    assert int(other.optimizer.iterations) == 0 and not other.optimizer._slots


def test_load_weights_refuses_an_optimizer_state_that_does_not_fit_unless_skip_mismatch(tmp_path):
    model = trained("adam")
    model.save_weights(tmp_path / "m.weights.h5")
    other = two_dense("mixed")
    other.compile(optimizer=OPTIMIZERS["adam_amsgrad"](), loss="mse")
    other.optimizer.build(other.trainable_variables)
    before = other.get_weights()
    with pytest.raises(ValueError, match=r"load_weights: .*: the optimizer's state in the file "
                                         r"does not fit the model's Adam: the file holds 10 "
                                         r"variables.*keeps 14 variables.*then velocity_hat of "
                                         r"each trainable variable.*skip_mismatch=True"):
        other.load_weights(tmp_path / "m.weights.h5")
    assert all(np.array_equal(a, b) for a, b in zip(other.get_weights(), before))
    with pytest.warns(UserWarning, match="The optimizer's state was skipped"):
        other.load_weights(tmp_path / "m.weights.h5", skip_mismatch=True)
    assert all(np.array_equal(a, b) for a, b in zip(other.get_weights(), model.get_weights()))
    assert int(other.optimizer.iterations) == 0


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
