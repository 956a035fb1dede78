"""tk.Model (functional and subclassed), tk.Input and Sequential as a Model."""
import re

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_functional_model_equals_its_layers_applied_by_hand_values_and_gradients():
    tk.random.set_seed(0)
    inputs = tk.Input(shape=(5,), name="digits")
    d1, d2, d3 = layers.Dense(4, activation="relu"), layers.Dense(4, activation="tanh"), layers.Dense(2)
    outputs = d3(d2(d1(inputs)))
    model = tk.Model(inputs=inputs, outputs=outputs)
    x = tk.constant(np.random.default_rng(0).normal(size=(3, 5)).astype(np.float32))
    with tk.GradientTape(persistent=True) as tape:
        by_model = tk.reduce_sum(model(x) ** 2)
        by_hand = tk.reduce_sum(d3(d2(d1(x))) ** 2)
    assert float(by_model) == float(by_hand)
    assert len(model.trainable_weights) == 6
    for gm, gh in zip(tape.gradient(by_model, model.trainable_weights),
                      tape.gradient(by_hand, model.trainable_weights)):
        np.testing.assert_array_equal(gm.numpy(), gh.numpy())
    assert [layer.name for layer in model.layers] == ["digits", "dense", "dense_1", "dense_2"]
    assert model.name == "functional"


def test_functional_model_with_two_inputs_two_outputs_and_a_nested_sequential():
    a, b = tk.Input(shape=(3,), name="a"), tk.Input(shape=(2,), name="b")
    joined = layers.concatenate([a, b])
    tower = tk.Sequential([layers.Dense(4, activation="relu"), layers.Dense(1)], name="tower")
    score = tower(joined)
    extra = layers.Dense(2, name="extra")(b)
    model = tk.Model(inputs=[a, b], outputs={"score": score, "extra": extra})
    xa, xb = np.ones((2, 3), np.float32), np.full((2, 2), 2.0, np.float32)
    out = model([xa, xb])
    np.testing.assert_allclose(out["score"].numpy(), tower(np.concatenate([xa, xb], 1)).numpy())
    np.testing.assert_allclose(out["extra"].numpy(), model.get_layer("extra")(xb).numpy())
    by_name = model({"a": xa, "b": xb})
    np.testing.assert_array_equal(by_name["score"].numpy(), out["score"].numpy())
    assert score.shape == (None, 1) and tower.built


def test_functional_inputs_are_converted_to_the_input_dtype():
    inputs = tk.Input(shape=(4,))
    model = tk.Model(inputs, layers.Dense(1, kernel_initializer="ones")(inputs))
    assert model(np.full((1, 4), 2, np.uint8)).numpy().tolist() == [[8.0]]


def test_graph_disconnected_is_a_clear_error():
    a, b = tk.Input(shape=(2,), name="a"), tk.Input(shape=(2,), name="b")
    out = layers.Add()([a, b])
    with pytest.raises(ValueError, match=r"Graph disconnected.*\['a'\]"):
        tk.Model(inputs=a, outputs=out)
    with pytest.raises(TypeError, match="KerasTensor"):
        tk.Model(inputs=tk.ones((1, 2)), outputs=out)
    with pytest.raises(TypeError, match="placeholder without values"):
        a * 2.0


def test_add_loss_inside_a_functional_model_reaches_model_losses():
    class ActivityRegularization(layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * tk.reduce_sum(inputs))
            return inputs
    inputs = tk.Input(shape=(3,))
    x = layers.Dense(2, kernel_initializer="ones")(inputs)
    model = tk.Model(inputs, layers.Dense(1)(ActivityRegularization()(x)))
    assert model.losses == []                          # the symbolic call leaves none
    model(tk.ones((2, 3)))
    model(tk.ones((2, 3)))
    assert len(model.losses) == 1 and float(model.losses[0]) == pytest.approx(0.12)   # 0.01 * 12


def test_subclassed_model_tracks_layers_in_attributes_and_lists():
    class Net(tk.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.blocks = [layers.Dense(4, activation="relu"), layers.Dense(4, activation="relu")]
            self.dropout = layers.Dropout(0.5)
            self.head = layers.Dense(1)

        def call(self, inputs, training=None):
            for block in self.blocks:
                inputs = block(inputs)
            return self.head(self.dropout(inputs, training=training))
    net = Net(name="net")
    x = tk.ones((2, 3))
    assert net(x).shape == (2, 1)
    assert [layer.name for layer in net.layers] == ["dense", "dense_1", "dropout", "dense_2"]
    assert [v.shape for v in net.trainable_weights] == [(3, 4), (4,), (4, 4), (4,), (4, 1), (1,)]
    lines = []
    net.summary(print_fn=lines.append)
    text = lines[0]
    # the shape each layer was built for, batch size included, as Keras 3 shows it
    assert 'Model: "net"' in text and "dense (Dense)" in text and "(2, 4)" in text
    assert "Total params: 41" in text                   # 3*4+4 + 4*4+4 + 4*1+1
    with pytest.raises(ValueError, match="not yet been built"):
        Net().summary()


def test_summary_of_a_functional_model_lists_the_input_layer():
    inputs = tk.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu")(inputs)
    x = layers.BatchNormalization()(x)
    model = tk.Model(inputs, layers.Dense(10, name="predictions")(x))
    lines = []
    model.summary(print_fn=lines.append)
    text = lines[0]
    assert re.search(r"│ digits \(InputLayer\) +│ \(None, 784\) +│ +0 │", text)
    assert re.search(r"│ dense \(Dense\) +│ \(None, 64\) +│ +50,240 │", text)       # 784*64+64
    assert "│ batch_normalization" in text and re.search(r"│ +256 │", text)     # 4 * 64
    assert "predictions (Dense)" in text and "650" in text
    assert (" Total params: 51,146 (199.79 KB)\n Trainable params: 51,018 (199.29 KB)\n"
            " Non-trainable params: 128 (512.00 B)") in text


def test_sequential_starting_with_input_is_built_and_hides_the_input_layer():
    model = tk.Sequential([tk.Input(shape=(4,)), layers.Dense(3), layers.Dense(1)])
    assert model.built and [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert model.count_params() == 4 * 3 + 3 + 3 + 1
    assert isinstance(model, tk.Model) and tk.keras.Sequential is tk.Sequential
    assert tk.keras.Model is tk.Model and tk.keras.Input is tk.Input and tk.layers.Input is tk.Input
    with pytest.raises(ValueError, match="Input can only be the first"):
        model.add(tk.Input(shape=(2,)))


# --- keras.saving's registry (intro_to_modules cell 66; files stay out of scope) -------------

def test_register_keras_serializable_returns_the_object_and_names_it():
    import tapekit as keras

    @keras.saving.register_keras_serializable(package="course", name="Doubler")
    class Doubler(keras.layers.Layer):
        def call(self, x):
            return 2.0 * x

    @tk.saving.register_keras_serializable(package="course")
    def halve(x):
        return x / 2.0

    assert keras.saving is tk.saving is tk.keras.saving
    assert Doubler()(tk.constant([1.5])).numpy().tolist() == [3.0]   # unchanged class
    assert tk.saving.get_registered_name(Doubler) == "course>Doubler"
    assert tk.saving.get_registered_name(halve) == "course>halve"
    assert tk.saving.get_registered_object("course>Doubler") is Doubler
    assert tk.saving.get_registered_object("course>halve") is halve
    # not registered: its plain name, and None for an unknown key
    assert tk.saving.get_registered_name(tk.layers.Dense) == "Dense"
    assert tk.saving.get_registered_object("course>nothing") is None
    # custom_objects comes first, module_objects last
    assert tk.saving.get_registered_object("course>halve", custom_objects={"course>halve": abs}) is abs
    assert tk.saving.get_registered_object("x", module_objects={"x": min}) is min


def test_registering_a_name_again_replaces_it():
    @tk.saving.register_keras_serializable(package="course", name="Same")
    class First:
        pass

    @tk.saving.register_keras_serializable(package="course", name="Same")
    class Second:
        pass

    assert tk.saving.get_registered_object("course>Same") is Second
    assert tk.saving.get_registered_name(First) == "First"


def test_register_keras_serializable_without_parentheses_says_so():
    with pytest.raises(TypeError, match=r"parentheses"):
        @tk.saving.register_keras_serializable
        class Forgot:
            pass
    with pytest.raises(TypeError, match="package must be a non-empty string"):
        tk.saving.register_keras_serializable(package=3)
