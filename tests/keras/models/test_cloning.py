"""keras.models.clone_model: what Keras 3.15 gives for the same models (checked on Keras 3.15)."""
import numpy as np
import pytest

import tapekit as tk


def _functional():
    x = tk.Input((3,), name="inp")
    h = tk.layers.Dense(2, name="h")(x)
    return tk.Model(x, tk.layers.Dense(1, name="o")(h), name="fun")


def test_sequential_clone_has_the_names_and_fresh_weights():
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input((3,)), tk.layers.Dense(2, name="d"), tk.layers.Dense(1)],
                          name="seq")
    clone = tk.models.clone_model(model)
    assert type(clone) is tk.Sequential and clone.name == "seq"
    assert [layer.name for layer in clone.layers] == ["d", "dense"]      # as Keras 3.15
    assert clone.built and clone.input_shape == (None, 3)
    assert all(a is not b for a, b in zip(clone.layers, model.layers))
    assert not np.allclose(clone.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())
    clone.set_weights(model.get_weights())
    x = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy())
    unbuilt = tk.models.clone_model(tk.Sequential([tk.layers.Dense(2)]))
    assert not unbuilt.built
    given = tk.models.clone_model(model, input_tensors=tk.Input((3,), batch_size=4))
    assert given.inputs[0].shape == (4, 3)


def test_functional_clone_and_clone_function():
    model = _functional()
    clone = tk.models.clone_model(model)
    assert clone.name == "fun" and [layer.name for layer in clone.layers] == ["inp", "h", "o"]
    assert clone.inputs[0].name == "inp" and clone.output_shape == (None, 1)

    def wider(layer):
        config = layer.get_config()
        if layer.name == "h":
            config["units"] = 4
        return type(layer).from_config(config)
    wide = tk.models.clone_model(model, clone_function=wider)
    assert [tuple(layer.output.shape) for layer in wide.layers] == [(None, 3), (None, 4), (None, 1)]
    calls = []

    def call(layer, *args, **kwargs):
        calls.append(layer.name)
        return layer(*args, **kwargs)
    tk.models.clone_model(model, call_function=call)
    assert calls == ["h", "o"]
    same = tk.models.clone_model(model, clone_function=lambda layer: layer)   # shares layers
    assert same.layers[1] is model.layers[1]


def test_a_shared_layer_is_cloned_once_and_nested_models_with_recursive():
    inner = tk.Sequential([tk.Input((3,)), tk.layers.Dense(3, name="inner_d")], name="inner")
    x = tk.Input((3,))
    shared = tk.layers.Dense(3, name="shared")
    y = shared(inner(shared(x)))
    model = tk.Model(x, y)
    clone = tk.models.clone_model(model)
    assert len(clone.layers) == len(model.layers) == 3          # Input, shared, inner
    deep = tk.models.clone_model(model, recursive=True)
    nested = [layer for layer in deep.layers if layer.name == "inner"][0]
    assert nested is not inner and nested.layers[0] is not inner.layers[0]


def test_compiled_model_clone_is_compiled():
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    clone = tk.models.clone_model(model)
    assert clone.compiled and type(clone.optimizer).__name__ == "Adam"
    assert clone.optimizer is not model.optimizer


def test_refusals_are_kerass():
    model = tk.Sequential([tk.Input((3,)), tk.layers.Dense(2)])
    with pytest.raises(ValueError, match="`call_function` argument is not supported with Sequential"):
        tk.models.clone_model(model, call_function=lambda layer, *a, **k: layer(*a, **k))
    with pytest.raises(ValueError, match=r"Unexpected keyword argument\(s\): \('foo',\)"):
        tk.models.clone_model(model, foo=1)

    class Sub(tk.Model):
        def __init__(self):
            super().__init__()
            self.d = tk.layers.Dense(1)

        def call(self, x):
            return self.d(x)
    with pytest.raises(TypeError, match="Sub could not be made again from its config"):
        tk.models.clone_model(Sub())
    with pytest.raises(ValueError, match="only supported for Sequential models or Functional"):
        tk.models.clone_model(Sub(), clone_function=lambda layer: layer)
    with pytest.raises(ValueError, match="must be KerasTensors made by tk.Input"):
        tk.models.clone_model(model, input_tensors=np.ones((1, 3)))
