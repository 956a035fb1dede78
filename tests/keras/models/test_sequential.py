"""Sequential.pop, model.inputs/outputs and layer.input/output: a feature extractor made from
another model's layers (Keras 3's Sequential builds a functional graph once its input is known)."""
import re

import numpy as np
import pytest

import tapekit as tk
from tapekit import models
from tapekit import layers


def seed_model():
    return models.Sequential([
        layers.Dense(64, activation="relu", input_shape=(10,)),
        layers.Dense(32, activation="relu"),
        layers.Dense(1)])


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


def test_sequential_is_built_from_input_shape_with_variables_in_layer_order():
    model = seed_model()
    assert model.built and len(model.layers) == 3
    assert [v.path for v in model.trainable_variables] == [
        "dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias",
        "dense_2/kernel", "dense_2/bias"]
    assert model(tk.ones((5, 10)), training=True).shape == (5, 1)


def test_unbuilt_sequential_builds_on_first_call():
    model = models.Sequential([layers.Flatten(), layers.Dense(2)])
    lines = []
    model.summary(print_fn=lines.append)       # Keras 3 prints an unbuilt Sequential too
    assert re.search(r"│ dense \(Dense\) +│ \? +│ +0 \(unbuilt\) │", lines[0])
    assert model(tk.ones((3, 2, 2))).shape == (3, 2)
    assert model.layers[1].kernel.shape == (4, 2)


def test_sequential_passes_training_to_dropout():
    model = models.Sequential([layers.Dropout(0.5, input_shape=(100,))])
    x = tk.ones((2, 100))
    assert model(x) is x or np.array_equal(model(x).numpy(), x.numpy())
    assert (model(x, training=True).numpy() == 0).any()


def test_sequential_starting_with_input_is_built_and_hides_the_input_layer():
    model = tk.Sequential([tk.Input(shape=(4,)), layers.Dense(3), layers.Dense(1)])
    assert model.built and [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert model.count_params() == 4 * 3 + 3 + 3 + 1
    assert isinstance(model, tk.Model) and tk.keras.Sequential is tk.Sequential
    assert tk.keras.Model is tk.Model and tk.keras.Input is tk.Input and tk.layers.Input is tk.Input
    with pytest.raises(ValueError, match="Input can only be the first"):
        model.add(tk.Input(shape=(2,)))


def test_sequential_config():
    tk.layers.clear_session()
    model = tk.Sequential([tk.layers.Dense(2, input_shape=(3,)), tk.layers.ReLU()], name="seq")
    config = model.get_config()
    assert config["name"] == "seq" and config["build_input_shape"] == [None, 3]
    assert [c["class_name"] for c in config["layers"]] == ["Dense", "ReLU"]
    again = tk.Sequential.from_config(config)
    assert again.built and [w.shape for w in again.weights] == [(3, 2), (2,)]
    unbuilt = tk.Sequential([tk.layers.Dense(2)])
    assert "build_input_shape" not in unbuilt.get_config()
    assert not tk.Sequential.from_config(unbuilt.get_config()).built


@pytest.mark.filterwarnings("error")           # no "destroy the mask" warning from the Input
def test_a_sequential_passes_the_mask_from_its_input_layer_on():
    """Issue 43: Input -> Masking -> SimpleRNN(return_sequences): the InputLayer hands the
    data (and a mask given with mask=) to the next layer; the output carries the mask."""
    layers.clear_session()
    model = models.Sequential([tk.Input((3, 1)), layers.Masking(), layers.SimpleRNN(2, return_sequences=True)])
    x = np.array([[[1.0], [0.0], [2.0]]], np.float32)
    np.testing.assert_array_equal(model(x)._keras_mask.numpy(), [[True, False, True]])
    plain = models.Sequential([tk.Input((3, 1)), layers.SimpleRNN(2, return_sequences=True)])
    given = plain(x, mask=np.array([[True, True, False]]))
    np.testing.assert_array_equal(given._keras_mask.numpy(), [[True, True, False]])
    np.testing.assert_array_equal(given.numpy()[:, 2], given.numpy()[:, 1])   # step 2 repeats 1


# model.input_shape / output_shape: the values and errors Keras 3.15 gives (checked on it)
def test_sequential_shapes():
    assert tk.Sequential([tk.Input((3,)), tk.layers.Dense(2)]).output_shape == (None, 2)
    later = tk.Sequential([tk.layers.Dense(2)], name="later")
    with pytest.raises(AttributeError, match="Sequential model 'later' has no defined input shape yet."):
        later.input_shape       # noqa: B018
    with pytest.raises(AttributeError, match="Sequential model 'later' has no defined output shape yet."):
        later.output_shape      # noqa: B018
    assert not hasattr(tk.Sequential(), "output_shape")
    later.build((None, 3))
    assert later.input_shape == (None, 3) and later.output_shape == (None, 2)
    called = tk.Sequential([tk.layers.Dense(2), tk.layers.Dense(5)])
    called(np.ones((4, 3), "float32"))
    # Keras 3.15 shows the first call's batch size, (4, 3) and (4, 5); tapekit keeps None
    assert called.input_shape == (None, 3) and called.output_shape == (None, 5)
    assert tk.Sequential([tk.layers.Dense(2, input_shape=(3,))]).output_shape == (None, 2)
