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
