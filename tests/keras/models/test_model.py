"""Models pickle and deep-copy, as Keras 3's do (issue 32): a compiled, trained model comes
back with the same weights, optimizer state and compile settings, predicts the same, trains
on as the original does, and shares nothing with it. Also model.save's arguments.
"""
import base64
import copy
import pickle
import zlib

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
    assert twin.gamma.constraint is abs and twin.gamma is not layer.gamma


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


# --- pickles made before issue 44 -------------------------------------------------------------
def test_a_model_pickled_before_issue_44_loads_evaluates_and_trains_on():
    """A compiled, trained model pickled by tapekit 0.2.0 before issue 44 (which moved the
    losses, the trainer and the schedules into packages, and compile's losses and metrics into
    CompileLoss and CompileMetrics): its pickle names the old module paths
    (tapekit.keras.loss_and_metrics._FunctionLoss, tapekit.keras.schedules.ExponentialDecay,
    tapekit.keras.layers.conv.MaxPooling2D) and keeps compile's state as lists. It loads and
    gives what the old code gave (the numbers below, printed by that code)."""
    if not hasattr(np, "_core"):
        pytest.skip("the pickle was written with NumPy 2 (numpy._core)")
    model = pickle.loads(zlib.decompress(base64.b64decode("".join(OLD_PICKLE))))
    assert [m.name for m in model.metrics] == ['loss', 'a_mae', 'b_categorical_accuracy', 'a_loss', 'b_loss']
    rng = np.random.default_rng(0)                    # the data the old code trained on
    x = rng.normal(size=(8, 6, 6, 1)).astype("float32")
    ya = rng.normal(size=(8, 1)).astype("float32")
    yb = np.eye(2, dtype="float32")[rng.integers(0, 2, 8)]
    a, b = model.predict(x[:2], verbose=0)
    np.testing.assert_allclose(a, [[-0.14567503333091736], [-0.39568549394607544]], rtol=1e-6)
    np.testing.assert_allclose(b, [[0.49026328325271606, 0.5097367167472839], [0.44073569774627686, 0.5592643022537231]], rtol=1e-6)
    logs = model.evaluate(x, {"a": ya, "b": yb}, verbose=0, return_dict=True)
    assert logs == pytest.approx({'a_loss': 0.8162313103675842, 'a_mae': 0.8759785890579224, 'b_categorical_accuracy': 0.5, 'b_loss': 0.6872992515563965, 'loss': 1.1598808765411377}, rel=1e-6)
    history = model.fit(x, {"a": ya, "b": yb}, batch_size=4, epochs=2, shuffle=False,
                        verbose=0).history
    assert history == {k: pytest.approx(v, rel=1e-6) for k, v in {'a_loss': [0.866551399230957, 0.8161369562149048], 'a_mae': [0.9017410278320312, 0.8767247200012207], 'b_categorical_accuracy': [0.5, 0.5], 'b_loss': [0.6871771812438965, 0.6870400905609131], 'loss': [1.2101399898529053, 1.1596570014953613]}.items()}
    assert int(model.optimizer.iterations) == 6


# The pickle: tapekit 0.2.0 at commit 5338122, `pickle.dumps(model)` of a functional model
# image (6, 6, 1) -> Conv2D(2, 3, relu) -> MaxPooling2D(2) -> AveragePooling2D(2) -> Flatten ->
# Dense(1, name="a") and Dense(2, softmax, name="b"), compiled with
# SGD(ExponentialDecay(0.1, 2, 0.5)), loss={"a": "mse", "b": KLDivergence()},
# loss_weights={"a": 1.0, "b": 0.5}, metrics={"a": ["mae"], "b": [CategoricalAccuracy()]},
# after clear_session(), set_seed(0) and one epoch of fit(x, y, batch_size=4, shuffle=False)
# on the data above; zlib-compressed, base64.
OLD_PICKLE = (
    "eNqdWHtsHEcZvzvfyz6fa+dVGpU0LUVcmtYhIUit2lybOI3bXHy0Bcor6Wh2b3yz673d6z6SmEcbpMSxy/wBeKKSqqJB"
    "CFEFFFSQUBNSR6ISQqGKCqoaiSDxiEAKoKqg/pvCNzO7ew+f47p3ur3b2W++x29+38z33ZH0ibNrE/LF1vu4SaYMf3SK"
    "uNgbbTg1YoVfnGUm5Pc83/RN/g1eYoMIHgQWQTZuEM4GJgNb9w3HxkK25k83YTBjB43mdHw/z1lqcjufmz3On+ClSh9L"
    "PsCr1ere/8FLXioJn2tsAPkuNmysWYTPsowWGJYPP/I48B0de+L3Ggy2Dhr+NHJJPbCwa3yVuLzK8ugQMerU9/gBznLI"
    "cjyPyN/FdkE5MoQMW3MCu4ZsCEwOFQy7GfjIowADL1UrWXgnfc6yqO7iJuXstp4AdUQ+LiVjlLJSpce7sZVX5BPbc1ww"
    "XBG3n1N38dyMcoR+lOZokaUVzhmjgetEuK9UUMPzHRcw3thpwMLTEOioikjewBo9Ku72yZvICs3Qu4V+OjxLR2bpqlm6"
    "ukrXHOB0HXw+Ap/18Pk4S1ch1jbXlEa6ld4pgHYCX0ZJIeCpQ9iteyDFisq4ClIAHGiY3tqGa0HDvk5DvOmuQKP3VRLH"
    "QYzuOACefSL08K5qJTnDpZOb2VA7cmg7p/ewW3pGrjuugGs3CLY7HtgGOFpJslUgbROri0DDmgHaO8cGJNmwWGK+hDEN"
    "gxE2gnbGkrumq2K9QsPgeNYybIJd7mksH3gECUPA5MgNA/wysCVNsqG65biOj8DZScdt8NCtDpkMXB2APMOSmPdawRIb"
    "inyNeJZ/EoKSedUiKDqIrQCcXydzdRQJ3EYbgQWWXBcDsQYBDt2xPd8NdB8m0jzL2TX1cJ5XEsf4WFLjKqWTlZRcq+Lc"
    "WP7UnisLr7LfvsZFTqeRb9R4Jc0y4X6RVXFz8BrGmtiH9MrjLeEoUEALV59QSk1hhVqRjeQxaSG9xsyUhXbqVjLUY2kJ"
    "qYAhYFm8Rd4FGulg8r2h1vvpBL2znWGpJRj2KWAY3ctyeyzsw1Bb3rDcZDi2bP60rLJ2q5AKSQGZ39v0NkHuW3vyrek4"
    "QKc6EGPnQRivk8fUwLbdrZXtF0LIA7ZwWBWIj+VgDQ2x19GXWK6JazWpIgMEgLWBgEawUoZC9dtqKwntxa7QUuK9RGhb"
    "b5S39kEg3QQ+vDgm+n0VCT1Ff0F/0OZ5sYEPfzivX+nyOg3vlteDHfs0MOEMy46Bg+0+PValj1eBDHBKiaOlkmKFMKcV"
    "9n2VPuGxWGr4bnn9BP18tDekXWIFsDPQL83SL9Ov0P30AASVFVAsEU3pBvlREiZDXkGaPHL7W2vLmb9NLhQary/8Z+eV"
    "hakffaf83s2/Kf/ye+/t+PcP95bv+dP+Hf8d/X35WxeeKxvWOwvXLxnlkeG3F16468nyrmdOLlw8car8rrZxR5hqSepR"
    "X2VZUXn4wbI2pbI2f+Yd+7Xk6YvnQ3UpUPesUlcI1S2Tub+GJSvRHfQ8LcMpk0HyvNnk0YdAqoS7D5lBJAqIGooPU59e"
    "AoOXWQGp8wkfJuK4UgVI0oMgrkanED0tTNB/hMrPx8ojllyjCyB3LpY/0SF/OpaPcuEa/SnIvRzLz3TIn4jlo23hGn0e"
    "5OZj+T0d8jNKXm1e1+gshKZDaIfoP6NwUiKco+H0D7DbfVpwfF8o9xlYG0nudqrmPGfSh2xbxFY4A1ZK1DCZgRTDbzzK"
    "L1x+w7zw1HNvlf8wcC7a1nMtruW1ldHsyvUrv3r7+pX7Q035Fs2y2jIMM1PJRAJINgOIv78M4ma/kH3WXCW+OnA3N8CQ"
    "gp6wgjgrUFgMSp6yQTkUlU4CqT30fQI1c1iOluh99Co9R1+m8/SoVEagiJCbpHy6FRLhFdh1GZ2QDpNAEyWvEjDvliFI"
    "S6qaksr7naZvNFQB0XWyxE+8Ua9e46zvs+Nth8mgqqtRjehw7EOhrVtG0xa1SZX1i9+qiqiym6B00bCFWs/pZnMbOMP6"
    "kadTIloGzm7utB09gDp5+OHDTccmtih0dktjsQ9rw/oHWVBH2bDTIxf7hI8/ePakeL3ACtI75PmkKffhAXUfSv0l7HL6"
    "PR8bri4qtjnw7QHwDZAb6tJ6A4ptksXH629+O9oR+6H4GAG4tnSpGJ6jQRV0DxhwMsiq0GvXO8myno6hzhRF1QBLGfe2"
    "WiM6tLgxGsunVAgJPgNSYHgADBeF4dhAy2gWeZajGqF8w2kAokGDj4cKEixvE8DJdQ7yOTaMKLRnbhO7UJrJQ8zcD6iY"
    "B+ACZUNBapJ1G+yzIC07MqgbVS2p2HiJXobN55BMB5kMgo5p0YDJaJ9ifQ0A3MwJJtzRufpNFxijGRZ0MoYe9WxssLJv"
    "twH1SJ3Yelu92u8CU3RVi6/2ggZyQAaFjYQ4b2GPKk5ZqNaaCw3lpI3iviTQAjYorMS9onRw/MF3FTTSx5guAcSrO42m"
    "YZFaq58slSoJiGlDVwUjlGLoKAFF19A90XbuCZvDfQKJKApzSqBkiRTdzFY1CLaR93SAITREXBcqDdOGZ3C49YHnnK1Z"
    "bAa8MKdBZh7CiT1f1MArN8LuJD0BdlplC3QkWAYkt23AqHM9Y5qajws3i2Ppvx7L7oyItwGIN6imb/EdH1sx73pMBM/i"
    "ibe1TdSh+/bjibDzKU3mjOBIRj01mUxPX+SdXBjTaF8d8wjctQLSWgGZR+FJ70D+ePZnD0X+bBT+aB8ikNvbJnYFYn5X"
    "+HlSXObF5aUwBAJ0UEuCvCbRQ95BfvY1MOFYhgd3G3ovItb1wMU6NGSrx2B3qTswiq2d0Wjbuq7TkN6SQPHEZWBJJI7E"
    "sBQguvW9lKwMpMEl1fSE7OcxZK+Ky9fE5SeCDGt6xjMfpQmcyQFbF6YzqXWCXG0lcJyXAID5jFA8InJiQo5+wcXNZvsf"
    "I5tZBiOxMsvg9uLvrsa43QEB3yLzGWueYwU+UQm9Mtg+tpSWnqhdjFF7M0bt6yK41T1UtINWScwd5+YZUaUk4Zegp9zB"
    "fEAXuMc7ksvUhaM3RuKL/rY4hiLEMLDytBqKp/WM9c9xrH9Xx3bBDWxEoGd1rWk4yYbkP4co+kcOFr/owznXPjDchG3W"
    "0DvG8tEOL/6QidkC50Ugzk2ZqOYnhdXt4iKQMGvi0hSXpwXWuYha5o/F7XAXF4GG5r/gwRycWaI6QcA0RA4TPZAeVJKs"
    "YBp+ZBn2avFfJ2c3iS8kigSidrZZ6Lk832mqf0hF+z4XaKP/B3TbNfM="
)


# model.input_shape / output_shape: the values and errors Keras 3.15 gives (checked on it)
def test_functional_and_subclassed_shapes():
    x, x2 = tk.Input((3,)), tk.Input((5,))
    y = tk.layers.Dense(2)(x)
    z = tk.layers.Dense(1)(y)
    assert tk.Model(x, z).output_shape == (None, 1)
    assert tk.Model(x, [y, z]).output_shape == [(None, 2), (None, 1)]
    assert tk.Model([x, x2], z).input_shape == [(None, 3), (None, 5)]

    class Sub(tk.Model):
        def call(self, x):
            return x
    with pytest.raises(AttributeError, match="'Sub' object has no attribute 'output_shape'"):
        Sub().output_shape      # noqa: B018
