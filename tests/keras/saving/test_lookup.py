"""tapekit/keras/saving/lookup.py: the class or function a config names is found in
custom_objects=, the registry or tapekit's tables of Keras's names, and nowhere else: an
unknown name says how to provide it, and a config naming other code never imports it.
"""
import pytest

import tapekit as tk

de = tk.saving.deserialize_keras_object


def test_an_unknown_class_names_itself_and_the_two_fixes():
    config = {"module": "mypackage.layers", "class_name": "Mystery", "config": {},
              "registered_name": "mypackage>Mystery"}
    with pytest.raises(TypeError) as err:
        de(config)
    text = str(err.value)
    assert "Could not locate class 'Mystery'" in text and "custom_objects=" in text
    assert "register_keras_serializable" in text

    class Mystery(tk.layers.Layer):
        pass
    assert type(de(config, custom_objects={"mypackage>Mystery": Mystery})) is Mystery
    assert type(de(config, custom_objects={"Mystery": Mystery})) is Mystery


@pytest.mark.parametrize("config", [
    {"module": "os", "class_name": "system", "config": {}, "registered_name": None},
    {"module": "os", "class_name": "function", "config": "system", "registered_name": "system"},
    {"module": "builtins", "class_name": "function", "config": "eval", "registered_name": None},
    {"module": "subprocess", "class_name": "Popen", "config": {"args": "true"},
     "registered_name": None},
    {"module": "tapekit.keras.losses", "class_name": "function", "config": "convert_to_tensor",
     "registered_name": None},
])
def test_a_config_naming_other_code_is_refused_without_importing_it(config, monkeypatch):
    import importlib
    imported = []
    monkeypatch.setattr(importlib, "import_module", lambda name, *a: imported.append(name))
    with pytest.raises(TypeError, match="Could not locate"):
        de(config)
    assert imported == []


def function(name, module="builtins", registered_name="function"):
    """A function config as Keras 3.15.1 writes one: serialize_keras_object(keras.losses.huber)
    and serialize_keras_object(keras.metrics.binary_accuracy) gave this form in the TF venv."""
    return {"module": module, "class_name": "function", "config": name,
            "registered_name": registered_name}


@pytest.mark.parametrize("name, found", [
    ("mean_squared_error", tk.losses.mean_squared_error), ("mse", tk.losses.mean_squared_error),
    ("huber", tk.losses.huber), ("binary_accuracy", tk.metrics.binary_accuracy),
    ("sparse_categorical_accuracy", tk.metrics.sparse_categorical_accuracy),
    ("mean_absolute_percentage_error", tk.metrics.mean_absolute_percentage_error),
    ("tanh", tk.keras.activations.get("tanh"))])
def test_keras_functions_by_name_are_tapekits(name, found):
    assert de(function(name)) is found


@pytest.mark.parametrize("name", ["get", "deserialize", "sigmoid_cross_entropy_with_logits",
                                  "squeeze_or_expand", "convert_to_tensor", "_reduce"])
def test_only_real_losses_and_metrics_resolve_by_name(name):
    # each of these is a function of keras/losses/ (or imported there), none a loss
    with pytest.raises(TypeError) as err:
        de(function(name))
    text = str(err.value)
    assert f"Could not locate function {name!r}" in text
    assert "losses: binary_crossentropy, categorical_crossentropy, categorical_hinge" in text
    assert "metrics: accuracy, binary_accuracy" in text and "custom_objects=" in text


def test_a_compile_config_naming_no_loss_is_an_error():
    model = tk.Sequential([tk.Input(shape=(2,)), tk.layers.Dense(1)])
    with pytest.raises(TypeError, match="Could not locate function 'get'"):
        model.compile_from_config({"optimizer": "sgd", "loss": function("get")})


def test_a_metric_function_tapekit_wrote_before_still_loads():
    # earlier tapekit wrote metric functions by their module, as custom functions
    old = function("binary_accuracy", module="tapekit.keras.metrics.accuracy",
                   registered_name="binary_accuracy")
    assert de(old) is tk.metrics.binary_accuracy


def test_regularizers_are_in_the_tables_under_keras_name():
    config = {"module": "keras.regularizers", "class_name": "L1L2",
              "config": {"l1": 0.125, "l2": 0.5}, "registered_name": None}
    reg = de(config)
    assert type(reg) is tk.regularizers.L1L2 and (reg.l1, reg.l2) == (0.125, 0.5)
