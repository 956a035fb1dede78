"""Sequential.pop, model.inputs/outputs and layer.input/output: a feature extractor made from
another model's layers (Keras 3's Sequential builds a functional graph once its input is known)."""
import numpy as np
import pytest

import tapekit as tk


@pytest.fixture(autouse=True)
def fresh_names():
    tk.layers.clear_session()


def test_pop_removes_and_returns_the_last_layer():
    model = tk.Sequential([tk.layers.Dense(2), tk.layers.Dense(3), tk.layers.Dense(4)])
    last = model.pop()
    assert last.units == 4 and [layer.units for layer in model.layers] == [2, 3]
    assert model(np.ones((1, 5), np.float32)).shape == (1, 3)
    model.pop()
    model.pop()
    with pytest.raises(TypeError, match="There are no layers in the model."):
        model.pop()


def test_inputs_outputs_of_a_sequential_with_known_input():
    model = tk.Sequential([tk.Input(shape=(6,)), tk.layers.Dense(4), tk.layers.Dense(2)])
    assert [t.shape for t in model.inputs] == [(None, 6)]
    assert [t.shape for t in model.outputs] == [(None, 2)]
    assert model.layers[0].output is model.layers[1].input
    model.pop()
    assert model.outputs[0] is model.layers[0].output
    with pytest.raises(AttributeError, match="has no inputs yet: its input shape is not known"):
        tk.Sequential([tk.layers.Dense(2)]).inputs


def test_feature_extractor_from_a_sequential():
    tk.random.set_seed(0)
    initial = tk.Sequential([tk.Input(shape=(9, 9, 2)), tk.layers.Conv2D(3, 3, activation="relu"),
                             tk.layers.Conv2D(4, 3, name="middle"), tk.layers.Flatten()])
    every = tk.Model(inputs=initial.inputs, outputs=[layer.output for layer in initial.layers])
    one = tk.Model(inputs=initial.inputs, outputs=initial.get_layer(name="middle").output)
    x = np.random.default_rng(0).normal(size=(2, 9, 9, 2)).astype(np.float32)
    features = every(x)
    assert [f.shape for f in features] == [(2, 7, 7, 3), (2, 5, 5, 4), (2, 100)]
    # the same layers and weights: the last feature is the model's own output
    np.testing.assert_allclose(features[-1].numpy(), initial(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(one(x).numpy(), features[1].numpy(), rtol=1e-6)


def test_sequential_built_by_its_first_call_gets_inputs_with_that_batch():
    model = tk.Sequential([tk.layers.Dense(2), tk.layers.Dense(1)])
    model(np.ones((3, 4), np.float32))
    assert model.inputs[0].shape == (3, 4) and model.outputs[0].shape == (3, 1)   # as Keras 3


def test_functional_model_inputs_outputs_are_lists_and_input_output_the_structures():
    a, b = tk.Input(shape=(2,), name="a"), tk.Input(shape=(3,), name="b")
    merged = tk.layers.Concatenate()([a, b])
    model = tk.Model({"a": a, "b": b}, tk.layers.Dense(1)(merged))
    assert model.inputs == [a, b] and len(model.outputs) == 1
    assert model.input == {"a": a, "b": b} and model.output is model.outputs[0]


def test_layer_repr_and_unset_output():
    dense = tk.layers.Dense(3)
    assert repr(dense) == "<Dense name=dense, built=False>"
    dense(np.ones((1, 2), np.float32))
    assert repr(dense) == "<Dense name=dense, built=True>"
    with pytest.raises(AttributeError, match="has never been called on symbolic inputs"):
        dense.output
    inputs = tk.Input(shape=(2,))
    assert repr(tk.Model(inputs, tk.layers.Dense(1)(inputs), name="f")) == \
        "<Functional name=f, built=True>"
