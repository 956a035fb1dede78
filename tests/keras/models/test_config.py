"""Models' configs as Keras 3 writes them (issue 32): Sequential, functional (layers with
inbound nodes, input_layers, output_layers) and subclassed models with a custom get_config.

The expected dicts follow what Keras 3.15's get_config returns for the same models (a shared
layer's second call is its node 1; a dict of inputs keeps its keys). No TensorFlow here.
"""
import json

import numpy as np
import pytest

import tapekit as tk


X = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)


def kt(shape, source, node=0, index=0):
    return {"class_name": "__keras_tensor__",
            "config": {"shape": shape, "dtype": "float32", "keras_history": [source, node, index]}}


def test_a_shared_layer_and_dict_inputs():
    tk.layers.clear_session()
    a, b = tk.Input(shape=(4,), name="a"), tk.Input(shape=(4,), name="b")
    shared = tk.layers.Dense(3, name="shared")
    total = tk.layers.Add(name="add")([shared(a), shared(b)])
    model = tk.Model({"a": a, "b": b}, {"s": total})
    config = model.get_config()
    assert (config["name"], config["trainable"]) == ("functional", True)
    assert config["input_layers"] == {"a": ["a", 0, 0], "b": ["b", 0, 0]}
    assert config["output_layers"] == {"s": ["add", 0, 0]}
    entries = {e["name"]: e for e in config["layers"]}
    assert [e["name"] for e in config["layers"]] == ["a", "b", "shared", "add"]
    assert entries["a"]["inbound_nodes"] == [] and entries["a"]["class_name"] == "InputLayer"
    assert entries["shared"]["inbound_nodes"] == [
        {"args": [kt([None, 4], "a")], "kwargs": {}},
        {"args": [kt([None, 4], "b")], "kwargs": {}}]
    assert entries["add"]["inbound_nodes"] == [
        {"args": [[kt([None, 3], "shared", 0), kt([None, 3], "shared", 1)]], "kwargs": {}}]
    assert entries["shared"]["build_config"] == {"input_shape": [None, 4]}

    again = tk.Model.from_config(config)
    assert again.get_config() == config
    again.set_weights(model.get_weights())
    feed = {"a": X, "b": X[::-1]}
    np.testing.assert_array_equal(again(feed)["s"].numpy(), model(feed)["s"].numpy())
    # the shared layer is one layer in the rebuilt model too
    assert len(again.get_layer("shared").weights) == 2 and len(again.weights) == 2


def test_a_layer_used_by_another_model_is_numbered_within_this_one():
    tk.layers.clear_session()
    dense = tk.layers.Dense(2, name="d")
    other_input = tk.Input(shape=(4,), name="other")
    dense(other_input)                                  # node 0 of dense, in another graph
    x = tk.Input(shape=(4,), name="x")
    model = tk.Model(x, dense(x))
    config = model.get_config()
    assert config["output_layers"] == ["d", 0, 0]
    assert [e["name"] for e in config["layers"]] == ["x", "d"]
    assert config["layers"][1]["inbound_nodes"] == [{"args": [kt([None, 4], "x")], "kwargs": {}}]


def test_multiple_outputs_and_call_keywords():
    tk.layers.clear_session()
    x = tk.Input(shape=(4,), name="x")
    h = tk.layers.Dropout(0.5, name="drop")(x, training=False)
    model = tk.Model([x], [tk.layers.Dense(1, name="o1")(h), tk.layers.Dense(2, name="o2")(h)])
    config = model.get_config()
    assert config["input_layers"] == [["x", 0, 0]]
    assert config["output_layers"] == [["o1", 0, 0], ["o2", 0, 0]]
    drop = [e for e in config["layers"] if e["name"] == "drop"][0]
    assert drop["inbound_nodes"] == [{"args": [kt([None, 4], "x")], "kwargs": {"training": False}}]
    again = tk.Model.from_config(config)
    assert [t.shape for t in again.outputs] == [(None, 1), (None, 2)]


def test_the_nodes_may_come_in_any_order():
    tk.layers.clear_session()
    x = tk.Input(shape=(4,), name="x")
    model = tk.Model(x, tk.layers.Dense(1, name="o")(tk.layers.Dense(3, name="h")(x)))
    config = model.get_config()
    config["layers"] = config["layers"][::-1]            # o before h before x
    again = tk.Model.from_config(config)
    assert [layer.name for layer in again.layers] == ["x", "h", "o"]


def test_a_damaged_functional_config_is_refused_by_name():
    tk.layers.clear_session()
    x = tk.Input(shape=(4,), name="x")
    config = tk.Model(x, tk.layers.Dense(1, name="o")(x)).get_config()
    config["layers"][1]["inbound_nodes"][0]["args"][0]["config"]["keras_history"] = ["ghost", 0, 0]
    with pytest.raises(ValueError, match=r"inbound nodes of layers \['o'\] refer to tensors"):
        tk.Model.from_config(config)
    del config["output_layers"]
    with pytest.raises(ValueError, match="needs 'output_layers'"):
        tk.Model.from_config(config)


def test_duplicate_layer_names_cannot_be_written():
    tk.layers.clear_session()
    x = tk.Input(shape=(4,), name="x")
    model = tk.Model(x, tk.layers.Dense(1, name="d")(tk.layers.Dense(3, name="d")(x)))
    with pytest.raises(ValueError, match=r"several layers named \['d'\]"):
        model.get_config()


def test_a_subclassed_model_config():
    class Plain(tk.Model):
        def call(self, x):
            return x
    assert Plain(name="p").get_config() == {
        "name": "p", "trainable": True,
        "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
                  "registered_name": None}}

    class Wide(tk.Model):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.dense = tk.layers.Dense(units)

        def call(self, x):
            return self.dense(x)

        def get_config(self):
            return {**super().get_config(), "units": self.units}
    model = Wide(5, name="w")
    model(X)
    again = Wide.from_config(model.get_config())
    assert (again.units, again.name) == (5, "w")
    again.build_from_config(model.get_build_config())
    assert [w.shape for w in again.weights] == [(4, 5), (5,)]


def test_a_subclass_without_get_config_keeps_plain_arguments():
    class Auto(tk.Model):
        def __init__(self, units, activation="relu", **kwargs):
            super().__init__(**kwargs)
            self.units, self.activation = units, activation
    config = Auto(3, name="auto").get_config()
    assert config == {"name": "auto", "trainable": True, "dtype": config["dtype"], "units": 3,
                      "activation": "relu"}
    again = tk.saving.deserialize_keras_object(tk.saving.serialize_keras_object(Auto(4)),
                                               custom_objects={"Auto": Auto})
    assert (again.units, again.activation) == (4, "relu")


def test_a_subclass_without_get_config_says_what_to_write():
    class NeedsArgs(tk.Model):
        def __init__(self, layer, **kwargs):
            super().__init__(**kwargs)
            self.inner = layer
    config = tk.saving.serialize_keras_object(NeedsArgs(tk.layers.Dense(2)))
    assert "layer" not in config["config"]            # a layer is not a plain value
    with pytest.raises(TypeError, match="could not be rebuilt from its config.*from_config"):
        tk.saving.deserialize_keras_object(config, custom_objects={"NeedsArgs": NeedsArgs})


def test_to_json_and_model_from_json():
    tk.layers.clear_session()
    x = tk.Input(shape=(4,), name="x")
    model = tk.Model(x, tk.layers.Dense(2, name="o")(tk.layers.Dense(3, name="h")(x)))
    text = model.to_json()
    assert json.loads(text)["class_name"] == "Functional"
    again = tk.models.model_from_json(text)
    assert again.get_config() == model.get_config()
    with pytest.raises(ValueError, match="model_from_json: not a JSON model config"):
        tk.models.model_from_json("{oops")


# --- Keras 3's masks in a functional config (issue 43) ------------------------------------------
def bool_kt(shape, source):
    return {"class_name": "__keras_tensor__",
            "config": {"shape": shape, "dtype": "bool", "keras_history": [source, 0, 0]}}


def keras_masked_config():
    """The config Keras 3.15 writes for Input(int) -> Embedding(5, 3, mask_zero=True) ->
    LSTM(2, return_sequences=True) -> GlobalAveragePooling1D -> Dense(1): the mask it made on
    symbolic tensors is a keras.ops node (NotEqual of the input and 0, module
    keras.src.ops.numpy) feeding mask= of the LSTM and the pooling; the LSTM's node also
    records training=False (read off `keras.Model(...).get_config()` in the TF venv)."""
    tk.layers.clear_session()
    i = tk.Input((4,), dtype="int32", name="input_layer")
    h = tk.layers.LSTM(2, return_sequences=True, name="lstm")(
        tk.layers.Embedding(5, 3, mask_zero=True, name="embedding")(i))
    model = tk.Model(i, tk.layers.Dense(1, name="dense")(
        tk.layers.GlobalAveragePooling1D(name="gap")(h)))
    config = json.loads(json.dumps(model.get_config()))
    ids = {"class_name": "__keras_tensor__",
           "config": {"shape": [None, 4], "dtype": "int32", "keras_history": ["input_layer", 0, 0]}}
    config["layers"].insert(2, {"module": "keras.src.ops.numpy", "class_name": "NotEqual",
                                "config": {"name": "not_equal"}, "registered_name": "NotEqual",
                                "name": "not_equal",
                                "inbound_nodes": [{"args": [ids, 0], "kwargs": {}}]})
    by_name = {entry["name"]: entry for entry in config["layers"]}
    by_name["lstm"]["inbound_nodes"][0]["kwargs"] = {"training": False,
                                                     "mask": bool_kt([None, 4], "not_equal")}
    by_name["gap"]["inbound_nodes"][0]["kwargs"] = {"mask": bool_kt([None, 4], "not_equal")}
    return model, config


def test_keras_3s_mask_ops_in_a_functional_config_are_left_to_the_layers():
    """tapekit's layers make those masks again at run time: the nodes and their mask= are
    left out, and the model predicts as the one that wrote the config."""
    model, config = keras_masked_config()
    again = tk.Model.from_config(config)
    assert [layer.name for layer in again.layers] == ["input_layer", "embedding", "lstm", "gap", "dense"]
    again.set_weights(model.get_weights())
    x = np.array([[1, 2, 0, 0], [3, 1, 4, 0], [0, 2, 2, 1]], np.int32)
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())
    assert "not_equal" not in json.dumps(again.get_config())


def test_a_keras_op_whose_output_a_layer_reads_as_data_is_refused_by_name():
    _, config = keras_masked_config()
    by_name = {entry["name"]: entry for entry in config["layers"]}
    by_name["gap"]["inbound_nodes"][0]["args"] = [bool_kt([None, 4], "not_equal")]
    with pytest.raises(ValueError, match=r"layer 'gap' reads the output of the keras\.ops call\(s\) "
                                         r"\['not_equal'\] as data"):
        tk.Model.from_config(config)
