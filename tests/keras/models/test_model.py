"""Models pickle and deep-copy, as Keras 3's do (issue 32): a compiled, trained model comes
back with the same weights, optimizer state and compile settings, predicts the same, trains
on as the original does, and shares nothing with it. Also model.save's arguments.
"""
import copy
import pickle

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


X = np.linspace(-1, 1, 24, dtype="float32").reshape(6, 4)
Y = np.tanh(X[:, :1] * 2.0 - X[:, 2:3])


def trained(optimizer="adam"):
    tk.layers.clear_session()
    tk.random.set_seed(0)
    model = tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(5, activation="relu"),
                           tk.layers.BatchNormalization(), tk.layers.Dense(1)])
    model.compile(optimizer=optimizer, loss="mse", metrics=["mae"])
    model.fit(X, Y, batch_size=3, epochs=2, shuffle=False, verbose=0)
    return model


@pytest.mark.parametrize("clone", [lambda m: pickle.loads(pickle.dumps(m)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
@pytest.mark.parametrize("optimizer", ["adam", "rmsprop", "sgd"])
def test_a_trained_model_copies_predicts_the_same_and_trains_on(clone, optimizer):
    model = trained(optimizer)
    twin = clone(model)
    np.testing.assert_array_equal(twin.predict(X, verbose=0), model.predict(X, verbose=0))
    assert int(twin.optimizer.iterations) == int(model.optimizer.iterations) == 4
    assert twin.compiled and twin.loss == "mse"
    h_model = model.fit(X, Y, batch_size=3, epochs=2, shuffle=False, verbose=0).history
    h_twin = twin.fit(X, Y, batch_size=3, epochs=2, shuffle=False, verbose=0).history
    assert h_model == h_twin                    # the same slots, the same steps
    np.testing.assert_array_equal(twin.predict(X, verbose=0), model.predict(X, verbose=0))


def test_a_copy_shares_no_state_with_the_original():
    model = trained()
    twin = copy.deepcopy(model)
    assert all(a is not b for a, b in zip(model.weights, twin.weights))
    before = model.get_weights()
    twin.fit(X, Y, batch_size=6, epochs=3, verbose=0)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    # the copy's optimizer updates the copy's variables, not the original's
    ids = {id(v) for v in twin.trainable_variables}
    assert set(twin.optimizer._slots) == ids


def test_a_copied_variable_is_not_the_original_on_a_tape():
    model = trained()
    twin = copy.deepcopy(model)
    with tk.GradientTape() as tape:
        loss = tk.reduce_sum(model(X))
    grads = tape.gradient(loss, twin.trainable_variables)
    assert list(grads) == [None] * len(grads)


def test_a_subclassed_model_with_regularized_and_constrained_weights_pickles():
    class Net(tk.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = tk.layers.Dense(3)

        def build(self, input_shape):
            self.scale = self.add_weight(shape=(3,), initializer="ones", name="scale",
                                         regularizer=lambda w: 0.5 * tk.reduce_sum(w * w),
                                         constraint=None)
            self.built = True

        def call(self, x):
            return self.dense(x) * self.scale

    tk.random.set_seed(1)
    model = Net()
    model(X)
    assert len(model.losses) == 1                    # 0.5 * 3 ones
    twin = copy.deepcopy(model)                      # a lambda regularizer: deepcopy only
    assert [float(loss) for loss in twin.losses] == [1.5]
    np.testing.assert_array_equal(twin(X).numpy(), model(X).numpy())


def test_constraints_follow_their_weights_through_a_copy():
    layer = tk.layers.BatchNormalization(gamma_constraint=abs)
    layer.build((None, 2))
    twin = copy.deepcopy(layer)
    constraints = twin.__dict__["_constraints"]
    assert constraints == {id(twin.gamma): abs}


def test_a_pickled_optimizer_keeps_its_state():
    w = tk.Variable([1.0, 2.0])
    opt = tk.optimizers.Adam(0.1)
    opt.apply_gradients([(tk.constant([0.5, -0.5]), w)])
    opt2, w2 = pickle.loads(pickle.dumps((opt, w)))
    opt.apply_gradients([(tk.constant([0.5, -0.5]), w)])
    opt2.apply_gradients([(tk.constant([0.5, -0.5]), w2)])
    np.testing.assert_array_equal(w.numpy(), w2.numpy())
    assert int(opt2.iterations) == 2


def test_save_refuses_other_formats():
    model = trained()
    with pytest.raises(TypeError, match="unexpected arguments \\['save_format'\\]"):
        model.save("m.keras", save_format="tf")
    unbuilt = tk.Sequential([tk.layers.Dense(1)])
    with pytest.raises(ValueError, match="has no weights yet"):
        unbuilt.save("m.keras")


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


@pytest.mark.filterwarnings("error")
def test_a_model_inside_a_model_passes_the_mask_to_its_layers_without_a_warning():
    """Issue 43: Keras 3.15 warns "Layer 'sequential' ... does not support masking and will
    therefore destroy the mask information" for a model given a masked input, though its layers
    see the mask. tapekit's models hand the mask to their layers, so it says nothing."""
    tk.layers.clear_session()
    inner = tk.Sequential([tk.layers.Dense(2), tk.layers.LSTM(2, return_sequences=True)])
    i = tk.Input((3,), dtype="int32")
    outer = tk.Model(i, inner(tk.layers.Embedding(4, 2, mask_zero=True)(i)))
    out = outer(np.array([[1, 0, 2]]))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False, True]])
    np.testing.assert_array_equal(out.numpy()[:, 1], np.zeros((1, 2)) + out.numpy()[:, 0])
