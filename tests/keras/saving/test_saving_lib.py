"""model.save / load_model in Keras 3's `.keras` zip (issue 32).

The layouts expected here (members, config keys, the optimizer's weights group) are the ones
Keras 3.15 writes; the "Keras-written" file below is built by hand in that layout, and
tools/keras_interop/roundtrip.py checks real files both ways with TensorFlow. No TF here.
"""
import json
import warnings
import zipfile

import numpy as np
import pytest

import tapekit as tk

h5py = pytest.importorskip("h5py")
X = np.linspace(-1, 1, 24, dtype="float32").reshape(6, 4)
Y = np.tanh(X[:, :1] - X[:, 1:2])


def sequential():
    tk.layers.clear_session()
    tk.random.set_seed(0)
    return tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(5, activation="relu"),
                          tk.layers.Dropout(0.1), tk.layers.Dense(1, name="out")])


def functional():
    tk.layers.clear_session()
    tk.random.set_seed(1)
    a, b = tk.Input(shape=(4,), name="a"), tk.Input(shape=(4,), name="b")
    shared = tk.layers.Dense(3, activation="tanh", name="shared")
    joined = tk.layers.Concatenate(name="cat")([shared(a), shared(b)])
    return tk.Model({"a": a, "b": b}, [tk.layers.Dense(1, name="o1")(joined),
                                       tk.layers.Dense(2, name="o2")(joined)])


@tk.saving.register_keras_serializable(package="tests")
class Residual(tk.Model):
    def __init__(self, width=3, **kwargs):
        super().__init__(**kwargs)
        self.width = width
        self.inner = tk.layers.Dense(width, activation="relu")
        self.bn = tk.layers.BatchNormalization()
        self.head = tk.layers.Dense(1)

    def call(self, x, training=None):
        return self.head(self.bn(self.inner(x), training=training))

    def get_config(self):
        return {**super().get_config(), "width": self.width}


def subclassed():
    tk.layers.clear_session()
    tk.random.set_seed(2)
    model = Residual(width=4, name="res")
    model(X)
    return model


def members(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: info.compress_type for info in archive.infolist()}


def read_json(path, name):
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(name))


# --- the file -------------------------------------------------------------------------------
def test_the_archive_holds_keras_3s_three_members_stored(tmp_path):
    sequential().save(tmp_path / "m.keras")
    assert members(tmp_path / "m.keras") == {"metadata.json": zipfile.ZIP_STORED,
                                             "config.json": zipfile.ZIP_STORED,
                                             "model.weights.h5": zipfile.ZIP_STORED}
    metadata = read_json(tmp_path / "m.keras", "metadata.json")
    assert metadata["keras_version"] == "3.15.1"
    assert metadata["saved_by"] == f"tapekit {tk.__version__}"
    assert len(metadata["date_saved"]) == len("2026-11-26@14:23:42")


def test_config_json_is_keras_3s_sequential_config(tmp_path):
    model = sequential()
    model.save(tmp_path / "m.keras")
    config = read_json(tmp_path / "m.keras", "config.json")
    assert (config["module"], config["class_name"], config["registered_name"]) == \
        ("keras.models", "Sequential", None)
    assert config["build_config"] == {"input_shape": [None, 4]}
    assert "compile_config" not in config                   # not compiled
    inner = config["config"]
    assert set(inner) == {"name", "trainable", "dtype", "layers", "build_input_shape"}
    assert [(c["class_name"], c["config"]["name"]) for c in inner["layers"]] == [
        ("InputLayer", "input_layer"), ("Dense", "dense"), ("Dropout", "dropout"),
        ("Dense", "out")]
    assert inner["layers"][1]["build_config"] == {"input_shape": [None, 4]}
    assert inner["layers"][3]["build_config"] == {"input_shape": [None, 5]}


def test_the_weights_member_has_the_weights_h5_layout(tmp_path):
    model = sequential()
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as archive:
        (tmp_path / "w.h5").write_bytes(archive.read("model.weights.h5"))
    with h5py.File(tmp_path / "w.h5") as f:
        np.testing.assert_array_equal(f["layers/dense/vars/0"][()], model.layers[0].kernel.numpy())
        np.testing.assert_array_equal(f["layers/dense_1/vars/1"][()], model.layers[2].bias.numpy())
        assert "optimizer" not in f


def test_nested_models_sit_under_keras_3s_class_names(tmp_path):
    tk.layers.clear_session()
    enc_in = tk.Input(shape=(4,), name="enc_in")
    encoder = tk.Model(enc_in, tk.layers.Dense(2, name="code")(enc_in), name="encoder")
    decoder = tk.Sequential([tk.Input(shape=(2,)), tk.layers.Dense(4, name="recon")],
                            name="decoder")
    x = tk.Input(shape=(4,), name="x")
    model = tk.Model(x, decoder(encoder(x)), name="autoencoder")
    model.save(tmp_path / "ae.keras")
    with zipfile.ZipFile(tmp_path / "ae.keras") as archive:
        (tmp_path / "w.h5").write_bytes(archive.read("model.weights.h5"))
    with h5py.File(tmp_path / "w.h5") as f:
        groups = []
        f.visititems(lambda n, o: groups.append(n) if n.endswith("vars") and len(o) else None)
    # Keras 3 names a nested functional model's group by its class, Functional
    assert sorted(groups) == ["layers/functional/layers/dense/vars",
                              "layers/sequential/layers/dense/vars"]
    config = read_json(tmp_path / "ae.keras", "config.json")["config"]
    assert [(e["class_name"], e["name"]) for e in config["layers"]] == [
        ("InputLayer", "x"), ("Functional", "encoder"), ("Sequential", "decoder")]
    loaded = tk.models.load_model(tmp_path / "ae.keras")
    np.testing.assert_array_equal(loaded(X).numpy(), model(X).numpy())


# --- round trips in tapekit ------------------------------------------------------------------
@pytest.mark.parametrize("make", [sequential, functional, subclassed])
def test_a_saved_model_loads_with_the_same_config_and_predictions(make, tmp_path):
    model = make()
    inputs = {"a": X, "b": X[::-1]} if make is functional else X
    expected = model(inputs, training=False)
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    assert type(loaded) is type(model)
    assert loaded.get_config() == model.get_config()
    got = loaded(inputs, training=False)
    for a, b in zip(tk.nest.flatten(expected), tk.nest.flatten(got)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert [w.shape for w in loaded.weights] == [w.shape for w in model.weights]


def test_a_subclassed_models_custom_config_is_kept(tmp_path):
    model = subclassed()
    model.save(tmp_path / "m.keras")
    config = read_json(tmp_path / "m.keras", "config.json")
    assert (config["class_name"], config["registered_name"]) == ("Residual", "tests>Residual")
    assert config["config"]["width"] == 4 and config["config"]["name"] == "res"
    loaded = tk.saving.load_model(tmp_path / "m.keras")
    assert loaded.width == 4 and loaded.inner.units == 4


def test_compile_settings_and_optimizer_state_come_back(tmp_path):
    model = sequential()
    model.compile(optimizer=tk.optimizers.Adam(0.02), loss="mse", metrics=["mae"])
    model.fit(X, Y, batch_size=3, epochs=2, shuffle=False, verbose=0)
    model.save(tmp_path / "m.keras")
    config = read_json(tmp_path / "m.keras", "config.json")["compile_config"]
    assert config["loss"] == "mse" and config["metrics"] == ["mae"]
    assert config["optimizer"]["class_name"] == "Adam"
    assert config["optimizer"]["config"]["learning_rate"] == pytest.approx(0.02)

    loaded = tk.models.load_model(tmp_path / "m.keras")
    assert loaded.compiled and type(loaded.optimizer) is tk.optimizers.Adam
    assert int(loaded.optimizer.iterations) == 4
    mine = tk.keras.saving.weights_h5.optimizer_state(model)
    theirs = tk.keras.saving.weights_h5.optimizer_state(loaded)
    assert len(mine) == 2 + 2 * 4                     # iterations, lr, (m, v) of 4 weights
    for (what, a), (what_too, b) in zip(mine, theirs):
        assert what == what_too
        np.testing.assert_array_equal(a, b)
    # both train on identically: the optimizer's moments came across
    tk.random.set_seed(9)                             # the same dropout masks for both
    h1 = model.fit(X, Y, batch_size=3, epochs=1, shuffle=False, verbose=0).history
    tk.random.set_seed(9)
    h2 = loaded.fit(X, Y, batch_size=3, epochs=1, shuffle=False, verbose=0).history
    assert h1 == h2
    np.testing.assert_array_equal(model.predict(X, verbose=0), loaded.predict(X, verbose=0))


def test_compile_false_leaves_the_model_uncompiled(tmp_path):
    model = sequential()
    model.compile(optimizer="sgd", loss="mse")
    model.save(tmp_path / "m.keras")
    assert not tk.models.load_model(tmp_path / "m.keras", compile=False).compiled


def test_load_model_answers_to_keras_names(tmp_path):
    import tapekit as keras
    sequential().save(tmp_path / "m.keras")
    for load in (keras.models.load_model, keras.saving.load_model, tk.keras.models.load_model):
        assert isinstance(load(tmp_path / "m.keras"), keras.Sequential)


# --- a file in the layout Keras 3 writes ------------------------------------------------------
POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
          "registered_name": None}


def dense_entry(name, units, activation, fan_in, source):
    return {"module": "keras.layers", "class_name": "Dense", "config": {
        "name": name, "trainable": True, "dtype": POLICY, "units": units,
        "activation": activation, "use_bias": True,
        "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform",
                               "config": {"seed": None, "input_axes": None, "output_axes": None},
                               "registered_name": None},
        "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros",
                             "config": {}, "registered_name": None},
        "kernel_regularizer": None, "bias_regularizer": None, "kernel_constraint": None,
        "bias_constraint": None, "quantization_config": None},
        "registered_name": None, "build_config": {"input_shape": [None, fan_in]},
        "name": name, "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {
            "shape": [None, fan_in], "dtype": "float32", "keras_history": [source, 0, 0]}}],
            "kwargs": {}}]}


KERAS_FUNCTIONAL = {
    "module": "keras.src.models.functional", "class_name": "Functional",
    "config": {"name": "functional", "trainable": True, "layers": [
        {"module": "keras.layers", "class_name": "InputLayer", "config": {
            "batch_shape": [None, 4], "dtype": "float32", "sparse": False, "ragged": False,
            "name": "x", "optional": False}, "registered_name": None, "name": "x",
         "inbound_nodes": []},
        dense_entry("h", 5, "tanh", 4, "x"),
        dense_entry("o1", 1, "linear", 5, "h")],
        "input_layers": ["x", 0, 0], "output_layers": ["o1", 0, 0]},
    "registered_name": "Functional", "build_config": {"input_shape": None},
    "compile_config": {
        "optimizer": {"module": "keras.optimizers", "class_name": "SGD", "config": {
            "name": "sgd", "learning_rate": 0.009999999776482582, "weight_decay": None,
            "clipnorm": None, "global_clipnorm": None, "clipvalue": None, "use_ema": False,
            "ema_momentum": 0.99, "ema_overwrite_frequency": None, "loss_scale_factor": None,
            "gradient_accumulation_steps": None, "momentum": 0.0, "nesterov": False},
            "registered_name": None},
        "loss": "mse", "loss_weights": None, "metrics": ["mae"], "weighted_metrics": None,
        "run_eagerly": False, "steps_per_execution": 1, "jit_compile": False}}


def keras_file(path, config=KERAS_FUNCTIONAL, weights=None, members_=None):
    rng = np.random.default_rng(0)
    weights = weights or {"layers/dense/vars": [rng.normal(size=(4, 5)), rng.normal(size=5)],
                          "layers/dense_1/vars": [rng.normal(size=(5, 1)), rng.normal(size=1)]}
    h5 = path.with_suffix(".h5")
    with h5py.File(h5, "w") as f:
        f.create_group("vars").attrs["name"] = "functional"
        for group, arrays in weights.items():
            g = f.create_group(group)
            g.attrs["name"] = group
            for i, a in enumerate(arrays):
                g.create_dataset(str(i), data=np.asarray(a, "float32"))
        opt = f.create_group("optimizer/vars")
        opt.attrs["name"] = "sgd"
        opt.create_dataset("0", data=np.int64(7))
        opt.create_dataset("1", data=np.float32(0.01))
    content = members_ if members_ is not None else {
        "metadata.json": json.dumps({"keras_version": "3.15.1", "date_saved": "2026-11-26@14:23:42"}),
        "config.json": json.dumps(config), "model.weights.h5": h5.read_bytes()}
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in content.items():
            archive.writestr(name, data)
    return weights


def test_a_keras_3_functional_file_loads_and_predicts_as_numpy_says(tmp_path):
    weights = keras_file(tmp_path / "k.keras")
    model = tk.models.load_model(tmp_path / "k.keras")
    (w1, b1), (w2, b2) = [[np.float32(a) for a in weights[g]] for g in
                          ("layers/dense/vars", "layers/dense_1/vars")]
    expected = np.tanh(X @ w1.astype("float32") + b1) @ w2.astype("float32") + b2
    np.testing.assert_allclose(model.predict(X, verbose=0), expected, rtol=1e-6, atol=1e-6)
    assert [layer.name for layer in model.layers] == ["x", "h", "o1"]
    assert type(model.optimizer) is tk.optimizers.SGD and int(model.optimizer.iterations) == 7
    assert model.loss == "mse"
    assert model.get_config() == KERAS_FUNCTIONAL["config"] | {
        "layers": model.get_config()["layers"]}
    assert [entry["inbound_nodes"] for entry in model.get_config()["layers"]] == \
        [entry["inbound_nodes"] for entry in KERAS_FUNCTIONAL["config"]["layers"]]


def test_a_keras_3_file_compiled_with_a_cross_entropy_object_loads_compiled(tmp_path):
    # Keras 3.15 writes label_smoothing (0.0 by default) in every cross-entropy loss and metric
    # config; tapekit refused it, so such a model loaded uncompiled (its loss and metrics lost).
    config = json.loads(json.dumps(KERAS_FUNCTIONAL))
    config["compile_config"]["loss"] = {
        "module": "keras.losses", "class_name": "BinaryCrossentropy", "config": {
            "name": "binary_crossentropy", "reduction": "sum_over_batch_size", "from_logits": True,
            "label_smoothing": 0.1, "axis": -1}, "registered_name": None}
    config["compile_config"]["metrics"] = [{
        "module": "keras.metrics", "class_name": "BinaryCrossentropy", "config": {
            "name": "binary_crossentropy", "dtype": "float32", "from_logits": True,
            "label_smoothing": 0}, "registered_name": None}]
    keras_file(tmp_path / "bce.keras", config=config)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # not "loaded without compiling it"
        model = tk.models.load_model(tmp_path / "bce.keras")
    assert model.compiled
    assert type(model.loss) is tk.losses.BinaryCrossentropy
    y = np.array([[1.0], [0.0], [1.0], [0.0], [1.0], [0.0]], "float32")
    smoothed = y * 0.9 + 0.05                            # Keras: y * (1 - s) + s / 2
    expected = float(tk.losses.BinaryCrossentropy(from_logits=True)(smoothed, model(X)))
    assert float(model.loss(y, model(X))) == pytest.approx(expected, rel=1e-6)


# --- refusals: clear errors, nothing returned --------------------------------------------------
def test_wrong_names_are_refused_with_the_fix(tmp_path):
    model = sequential()
    with pytest.raises(ValueError, match="must end in .keras"):
        model.save(tmp_path / "m.zip")
    with pytest.raises(ValueError, match=r"model.save_weights\(...\)"):
        model.save(tmp_path / "m.h5")
    with pytest.raises(ValueError, match=r"model.load_weights\("):
        tk.models.load_model(tmp_path / "m.weights.h5")
    with pytest.raises(FileNotFoundError, match="no such file"):
        tk.models.load_model(tmp_path / "absent.keras")


def test_a_truncated_file_is_refused(tmp_path):
    sequential().save(tmp_path / "m.keras")
    data = (tmp_path / "m.keras").read_bytes()
    (tmp_path / "cut.keras").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a .keras file .*truncated"):
        tk.models.load_model(tmp_path / "cut.keras")


@pytest.mark.parametrize("content, message", [
    ({"config.json": "{}"}, "has no model.weights.h5"),
    ({"config.json": "{not json", "model.weights.h5": b"x"}, "config.json is not valid JSON"),
    ({"config.json": "[1, 2]", "model.weights.h5": b"x"}, "does not describe a model"),
    ({"config.json": json.dumps({"module": "keras.initializers", "class_name": "Zeros",
                                 "config": {}}), "model.weights.h5": b"x"}, "not a model"),
    ({"config.json": json.dumps(KERAS_FUNCTIONAL), "model.weights.h5": b"not hdf5"},
     "model.weights.h5 is not an HDF5 file"),
    ({"config.json": "[" * 100000 + "]" * 100000, "model.weights.h5": b"x"}, "JSON|nested"),
])
def test_a_damaged_archive_is_refused_by_name(tmp_path, content, message):
    keras_file(tmp_path / "bad.keras", members_=content)
    with pytest.raises(ValueError, match=message):
        tk.models.load_model(tmp_path / "bad.keras")


def test_weights_that_do_not_fit_the_config_are_refused(tmp_path):
    keras_file(tmp_path / "bad.keras", weights={
        "layers/dense/vars": [np.zeros((4, 6)), np.zeros(6)],
        "layers/dense_1/vars": [np.zeros((5, 1)), np.zeros(1)]})
    with pytest.raises(ValueError, match=r"(?s)do not fit the model.*shape \(4, 6\) in the file, "
                                         r"\(4, 5\) in the model"):
        tk.models.load_model(tmp_path / "bad.keras")


def test_a_member_declaring_too_many_bytes_is_refused_before_reading(tmp_path, monkeypatch):
    sequential().save(tmp_path / "m.keras")
    monkeypatch.setattr(tk.keras.saving.files, "MAX_MEMBER_BYTES", 100)
    with pytest.raises(ValueError, match="declares .* bytes, more than the 100"):
        tk.models.load_model(tmp_path / "m.keras")


def test_an_unknown_class_in_the_file_names_the_fix(tmp_path):
    config = json.loads(json.dumps(KERAS_FUNCTIONAL))
    config["config"]["layers"][1]["class_name"] = "FancyDense"
    config["config"]["layers"][1]["module"] = "my_project.layers"
    keras_file(tmp_path / "bad.keras", config=config)
    with pytest.raises(TypeError, match=r"Could not locate class 'FancyDense'.*custom_objects="
                                        r"\{'FancyDense': FancyDense\}.*register_keras_serial"):
        tk.models.load_model(tmp_path / "bad.keras")
    model = tk.models.load_model(tmp_path / "bad.keras",
                                 custom_objects={"FancyDense": tk.layers.Dense})
    assert model.get_layer("h").units == 5


def test_a_lambda_layer_is_refused_unless_safe_mode_is_false(tmp_path):
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input(shape=(4,)), tk.layers.Lambda(lambda x: x * 2.0),
                           tk.layers.Dense(1)])
    with pytest.warns(UserWarning, match="lambda"):
        model.save(tmp_path / "lam.keras")
    with pytest.raises(ValueError, match="Lambda layer whose function is a Python lambda.*"
                                         "safe_mode=False"):
        tk.models.load_model(tmp_path / "lam.keras")
    loaded = tk.models.load_model(tmp_path / "lam.keras", safe_mode=False)
    np.testing.assert_array_equal(loaded(X).numpy(), model(X).numpy())


def test_a_failed_save_leaves_the_old_file_as_it_was(tmp_path):
    model = sequential()
    model.save(tmp_path / "m.keras")
    before = (tmp_path / "m.keras").read_bytes()

    class Opaque(tk.layers.Layer):
        def get_config(self):
            return {**super().get_config(), "thing": object()}
    broken = tk.Sequential([tk.Input(shape=(4,)), Opaque()])
    with pytest.raises(TypeError, match="cannot serialize object|is not JSON"):
        broken.save(tmp_path / "m.keras")
    assert (tmp_path / "m.keras").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.keras"]


def test_compile_settings_tapekit_lacks_load_the_model_uncompiled_with_a_warning(tmp_path):
    config = json.loads(json.dumps(KERAS_FUNCTIONAL))
    config["compile_config"]["optimizer"]["config"]["use_ema"] = True   # (clipnorm is supported now)
    keras_file(tmp_path / "clip.keras", config=config)
    with pytest.warns(UserWarning, match="loaded without compiling it.*does not support use_ema"):
        model = tk.models.load_model(tmp_path / "clip.keras")
    assert not model.compiled
    assert model(X).shape == (6, 1)


@pytest.mark.parametrize("link", ["soft", "external"])
def test_links_out_of_the_weights_file_are_refused(tmp_path, link):
    secret = tmp_path / "secret.h5"
    with h5py.File(secret, "w") as f:
        f.create_dataset("kernel", data=np.full((4, 5), 7.0, "float32"))
    keras_file(tmp_path / "k.keras")
    with zipfile.ZipFile(tmp_path / "k.keras") as archive:
        (tmp_path / "w.h5").write_bytes(archive.read("model.weights.h5"))
        config = archive.read("config.json")
    with h5py.File(tmp_path / "w.h5", "a") as f:
        del f["layers/dense/vars/0"]
        f["layers/dense/vars/0"] = (h5py.SoftLink("/layers/dense_1/vars/0") if link == "soft"
                                    else h5py.ExternalLink(str(secret), "kernel"))
    with zipfile.ZipFile(tmp_path / "linked.keras", "w") as archive:
        archive.writestr("config.json", config)
        archive.writestr("model.weights.h5", (tmp_path / "w.h5").read_bytes())
    with pytest.raises(ValueError, match=f"layers/dense/vars/0: a {link.capitalize()}Link"):
        tk.models.load_model(tmp_path / "linked.keras")


def test_a_regularized_model_saves_keras_3s_regularizer_configs_and_loads_them(tmp_path):
    # Keras 3.15.1 writes {"module": "keras.regularizers", "class_name": ..., "config": ...,
    # "registered_name": None} for each (read off a model saved in the TF venv)
    tk.layers.clear_session()
    tk.random.set_seed(3)
    R = tk.regularizers
    model = tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(
        3, activation="tanh", kernel_regularizer=R.L2(0.25), bias_regularizer=R.L1(0.5),
        activity_regularizer=R.L1L2(l1=0.125, l2=0.5), name="reg")])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, np.repeat(Y, 3, axis=1), batch_size=6, epochs=1, verbose=0)
    expected = model(X).numpy()
    penalties = [float(v) for v in model.losses]
    model.save(tmp_path / "m.keras")
    layer = read_json(tmp_path / "m.keras", "config.json")["config"]["layers"][1]["config"]
    assert layer["kernel_regularizer"] == {"module": "keras.regularizers", "class_name": "L2",
                                           "config": {"l2": 0.25}, "registered_name": None}
    assert layer["bias_regularizer"] == {"module": "keras.regularizers", "class_name": "L1",
                                         "config": {"l1": 0.5}, "registered_name": None}
    assert layer["activity_regularizer"] == {
        "module": "keras.regularizers", "class_name": "L1L2", "config": {"l1": 0.125, "l2": 0.5},
        "registered_name": None}
    loaded = tk.models.load_model(tmp_path / "m.keras")
    assert loaded.get_config() == model.get_config()
    np.testing.assert_array_equal(loaded(X).numpy(), expected)
    assert [float(v) for v in loaded.losses] == penalties and len(penalties) == 3


def test_a_recurrent_model_with_nested_configs_loads_with_the_same_predictions(tmp_path):
    # before, the RNN layers wrote only name/trainable/dtype once an argument was an object
    tk.layers.clear_session()
    tk.random.set_seed(4)
    R = tk.regularizers
    model = tk.Sequential([
        tk.Input(shape=(3, 2)),
        tk.layers.LSTM(4, return_sequences=True, kernel_regularizer=R.L2(0.25),
                       kernel_initializer=tk.initializers.HeNormal(seed=1)),
        tk.layers.GRU(3, recurrent_regularizer=R.L1(0.5), activity_regularizer=R.L2(0.25))])
    x = np.linspace(-1, 1, 18, dtype="float32").reshape(3, 3, 2)
    expected = model(x).numpy()
    penalties = [float(v) for v in model.losses]
    model.save(tmp_path / "rnn.keras")
    layers = read_json(tmp_path / "rnn.keras", "config.json")["config"]["layers"]
    assert layers[1]["config"]["units"] == 4 and layers[2]["config"]["reset_after"] is True
    assert layers[1]["config"]["recurrent_initializer"]["class_name"] == "Orthogonal"
    assert layers[1]["config"]["recurrent_initializer"]["module"] == "keras.initializers"
    loaded = tk.models.load_model(tmp_path / "rnn.keras")
    assert loaded.get_config() == model.get_config()
    np.testing.assert_array_equal(loaded(x).numpy(), expected)
    assert [float(v) for v in loaded.losses] == penalties and len(penalties) == 3


# --- names in any language (issue 43) ----------------------------------------------------------
def test_a_model_named_in_any_language_saves_and_loads(tmp_path):
    """Layers, weights and the model named `密集层`, `wµ`, `a b`, with a newline or a NUL: the
    config is JSON (the names are data in it), and the model comes back with its names, paths
    and predictions. (Keras 3.15 loads tapekit's file and predicts the same:
    tools/keras_interop/roundtrip.py, its "named" model.)"""
    @tk.saving.register_keras_serializable(package="names")
    class Scale(tk.layers.Layer):
        def build(self, input_shape):
            self.s = self.add_weight(shape=input_shape[-1:], initializer="ones", name="尺度 s\x00")

        def call(self, x):
            return x * self.s
    tk.layers.clear_session()
    tk.random.set_seed(0)
    i = tk.Input((4,), name="in put")
    h = tk.layers.Dense(3, name="密集层")(i)
    h = tk.layers.Dense(2, name="w\u00b5\nnext")(h)
    model = tk.Model(i, Scale(name="a b")(h), name="模型 1")
    model.compile(optimizer=tk.optimizers.Adam(0.01, name="优化 器"), loss="mse")
    model.fit(X, np.repeat(Y, 2, axis=1), epochs=1, verbose=0)
    model.save(tmp_path / "named.keras")
    with zipfile.ZipFile(tmp_path / "named.keras") as archive:
        config = json.loads(archive.read("config.json"))
    assert [entry["name"] for entry in config["config"]["layers"]] == [
        "in put", "密集层", "w\u00b5\nnext", "a b"]
    again = tk.models.load_model(tmp_path / "named.keras")
    assert again.name == "模型 1" and again.optimizer.name == "优化 器"
    assert [w.path for w in again.weights] == ["密集层/kernel", "密集层/bias", "w\u00b5\nnext/kernel",
                                               "w\u00b5\nnext/bias", "a b/尺度 s\x00"]
    np.testing.assert_array_equal(again.predict(X, verbose=0), model.predict(X, verbose=0))


def test_a_keras_3_file_with_unicode_layer_names_loads(tmp_path):
    """KERAS_FUNCTIONAL with the layers named as a student might: Keras 3.15 writes such a
    file (json.dumps escapes the names as \\uXXXX), and its groups are named by class."""
    config = json.loads(json.dumps(KERAS_FUNCTIONAL).replace('"h"', '"密集层"')
                        .replace('"x"', '"in put"').replace('"o1"', '"a b"'))
    weights = keras_file(tmp_path / "u.keras", config=config)
    model = tk.models.load_model(tmp_path / "u.keras")
    assert [layer.name for layer in model.layers] == ["in put", "密集层", "a b"]
    (w1, b1), (w2, b2) = [[np.float32(a) for a in weights[g]] for g in
                          ("layers/dense/vars", "layers/dense_1/vars")]
    expected = np.tanh(X @ w1.astype("float32") + b1) @ w2.astype("float32") + b2
    np.testing.assert_allclose(model.predict(X, verbose=0), expected, rtol=1e-6, atol=1e-6)
