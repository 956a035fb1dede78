"""tk.regularizers: penalties by hand, their gradients (2*l2*w, l1*sign(w)), and fit adding them."""
import numpy as np
import pytest

import tapekit as tk


def test_penalties_by_hand():
    w = tk.constant([[1.0, -2.0], [0.5, 0.0]])
    assert float(tk.regularizers.L1(0.1)(w)) == pytest.approx(0.1 * 3.5)
    assert float(tk.regularizers.L2(0.1)(w)) == pytest.approx(0.1 * 5.25)
    assert float(tk.regularizers.L1L2(l1=0.2, l2=0.3)(w)) == pytest.approx(0.2 * 3.5 + 0.3 * 5.25)
    assert float(tk.regularizers.L1L2()(w)) == 0.0
    assert tk.regularizers.get("l1").l1 == 0.01 and tk.regularizers.get("l2").l2 == 0.01
    assert tk.regularizers.get({"class_name": "L2", "config": {"l2": 0.5}}).l2 == 0.5
    assert tk.regularizers.L2(0.1).get_config() == {"l2": 0.1}


def test_gradients_of_the_penalties():
    w = tk.Variable([[1.0, -2.0], [0.5, -0.25]])
    with tk.GradientTape(persistent=True) as tape:
        l1 = tk.regularizers.L1(0.1)(w)
        l2 = tk.regularizers.L2(0.1)(w)
    np.testing.assert_allclose(tape.gradient(l1, w).numpy(), 0.1 * np.sign(w.numpy()), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(l2, w).numpy(), 2 * 0.1 * w.numpy(), rtol=1e-6)


def test_layer_losses_and_fit_include_the_penalty():
    layer = tk.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones",
                            kernel_regularizer="l2", bias_regularizer=tk.regularizers.L1(0.5))
    layer(np.ones((1, 3), np.float32))
    assert [float(x) for x in layer.losses] == pytest.approx([0.01 * 6, 0.5 * 2])
    # fit's loss = mse + penalties: with zero error, the logged loss is the penalty alone
    tk.random.set_seed(0)
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(
        1, kernel_initializer="ones", use_bias=False, kernel_regularizer=tk.regularizers.L2(0.1))])
    x = np.eye(3, dtype=np.float32)
    model.compile(optimizer=tk.optimizers.SGD(0.0), loss="mse")
    hist = model.fit(x, np.ones((3, 1), np.float32), epochs=1, batch_size=3, verbose=0)
    assert hist.history["loss"][0] == pytest.approx(0.1 * 3)
    # and the gradient step shrinks the weights by lr * 2 * l2 * w
    model.compile(optimizer=tk.optimizers.SGD(0.5), loss="mse")
    model.fit(x, np.ones((3, 1), np.float32), epochs=1, batch_size=3, verbose=0)
    np.testing.assert_allclose(model.layers[0].kernel.numpy(), np.full((3, 1), 1 - 0.5 * 0.2), rtol=1e-6)


def test_regularizers_on_conv_and_recurrent_weights():
    conv = tk.layers.Conv1D(1, 2, kernel_initializer="ones", kernel_regularizer=tk.regularizers.L1(1.0))
    conv(np.zeros((1, 4, 3), np.float32))
    assert float(conv.losses[0]) == 6.0                       # 2 * 3 * 1 weights of |1|
    rnn = tk.layers.SimpleRNN(2, recurrent_initializer="ones",
                              recurrent_regularizer=tk.regularizers.L2(1.0))
    rnn(np.zeros((1, 3, 1), np.float32))
    assert float(rnn.losses[0]) == 4.0


def test_bad_factors_and_names():
    with pytest.raises(ValueError, match="L2: l2 must be a number >= 0"):
        tk.regularizers.L2(-1)
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: 'l3'. Known names: 'L1', "):
        tk.layers.Dense(2, kernel_regularizer="l3")


# What Keras 3.15.1 writes for regularizers: keras.saving.serialize_keras_object(
# keras.regularizers.L2(0.25)) and so on, run in the TensorFlow venv and copied here.
KERAS_L2 = {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.25},
            "registered_name": None}
KERAS_L1 = {"module": "keras.regularizers", "class_name": "L1", "config": {"l1": 0.5},
            "registered_name": None}
KERAS_L1L2 = {"module": "keras.regularizers", "class_name": "L1L2",
              "config": {"l1": 0.125, "l2": 0.5}, "registered_name": None}


@pytest.mark.parametrize("regularizer, config", [
    (tk.regularizers.L2(0.25), KERAS_L2), (tk.regularizers.L1(0.5), KERAS_L1),
    (tk.regularizers.L1L2(l1=0.125, l2=0.5), KERAS_L1L2)], ids=["L2", "L1", "L1L2"])
def test_written_as_keras_3_writes_them_and_read_back(regularizer, config):
    assert tk.saving.serialize_keras_object(regularizer) == config
    for read in (tk.saving.deserialize_keras_object, tk.regularizers.get):
        again = read(config)
        assert type(again) is type(regularizer) and again.get_config() == config["config"]


def test_what_tapekit_wrote_before_still_loads():
    # tapekit 0.3's form: its own module, the class name as registered name
    old = {"module": "tapekit.keras.regularizers", "class_name": "L2", "config": {"l2": 0.25},
           "registered_name": "L2"}
    for read in (tk.saving.deserialize_keras_object, tk.regularizers.get):
        again = read(old)
        assert type(again) is tk.regularizers.L2 and again.l2 == 0.25
    layer = tk.layers.Dense.from_config({"name": "d", "units": 2, "kernel_regularizer": old,
                                         "bias_regularizer": dict(old, class_name="L1",
                                                                  config={"l1": 0.5})})
    assert layer.kernel_regularizer.l2 == 0.25 and layer.bias_regularizer.l1 == 0.5


@tk.saving.register_keras_serializable(package="test_regularizers")
class Total(tk.regularizers.Regularizer):
    def __init__(self, factor=1.0):
        self.factor = factor

    def __call__(self, x):
        return self.factor * tk.reduce_sum(x)

    def get_config(self):
        return {"factor": self.factor}


def test_a_registered_regularizer_round_trips_through_a_layer_config():
    layer = tk.layers.Dense(2, kernel_regularizer=Total(0.5), name="d")
    config = layer.get_config()
    assert config["kernel_regularizer"] == {
        "module": __name__, "class_name": "Total", "config": {"factor": 0.5},
        "registered_name": "test_regularizers>Total"}
    again = tk.layers.Dense.from_config(config)
    assert type(again.kernel_regularizer) is Total and again.kernel_regularizer.factor == 0.5


def test_an_unknown_regularizer_class_is_named():
    config = {"module": "keras.regularizers", "class_name": "OrthogonalRegularizer",
              "config": {"factor": 0.01, "mode": "rows"}, "registered_name": None}
    with pytest.raises(TypeError, match="Could not locate class 'OrthogonalRegularizer'"):
        tk.regularizers.get(config)


def test_activity_regularizer_adds_the_penalty_of_the_outputs_over_the_batch():
    # Keras 3: l * sum(|y|) of the whole batch, divided by the batch size
    x = np.array([[1.0, 2.0], [-3.0, 0.5], [0.0, 1.0]], np.float32)
    layer = tk.layers.Dense(2, kernel_initializer="ones", use_bias=False,
                            activity_regularizer=tk.regularizers.L1L2(l1=0.5, l2=0.25))
    y = layer(x).numpy()
    want = (0.5 * np.abs(y).sum() + 0.25 * (y ** 2).sum()) / 3
    assert [float(v) for v in layer.losses] == pytest.approx([want])
    layer(x[:1])                     # a new call replaces the penalty, for its own batch
    y1 = x[:1].sum() * np.ones(2)
    assert [float(v) for v in layer.losses] == pytest.approx(
        [(0.5 * np.abs(y1).sum() + 0.25 * (y1 ** 2).sum()) / 1])


def test_activity_penalty_gradient_matches_the_hand_derived_one():
    # penalty = l2 * sum((x W)^2) / B, so d penalty / dW = 2 l2 / B * x^T (x W)
    x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.25, -2.0]], np.float32)
    layer = tk.layers.Dense(2, use_bias=False, activity_regularizer=tk.regularizers.L2(0.1),
                            kernel_initializer=tk.initializers.RandomNormal(seed=3))
    with tk.GradientTape() as tape:
        layer(x)
        (penalty,) = layer.losses
    w = layer.kernel.numpy()
    np.testing.assert_allclose(tape.gradient(penalty, layer.kernel).numpy(),
                               2 * 0.1 / 3 * x.T @ (x @ w), rtol=1e-6)


def test_fit_differentiates_the_activity_penalty():
    # zero error and lr 0: the logged loss is the penalty alone, 0.1 * sum(y^2) / 3
    tk.random.set_seed(0)
    x = np.eye(3, dtype=np.float32)
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(
        1, kernel_initializer="ones", use_bias=False,
        activity_regularizer=tk.regularizers.L2(0.1))])
    model.compile(optimizer=tk.optimizers.SGD(0.0), loss="mse")
    hist = model.fit(x, np.ones((3, 1), np.float32), epochs=1, batch_size=3, verbose=0)
    assert hist.history["loss"][0] == pytest.approx(0.1 * 3 / 3)


def test_activity_regularizer_in_the_config_only_when_set():
    assert "activity_regularizer" not in tk.layers.Dense(2).get_config()
    config = tk.layers.Dense(2, activity_regularizer="l2").get_config()
    assert config["activity_regularizer"] == {"module": "keras.regularizers", "class_name": "L2",
                                              "config": {"l2": 0.01}, "registered_name": None}
    again = tk.layers.Dense.from_config(config)
    assert type(again.activity_regularizer) is tk.regularizers.L2
    with pytest.raises(ValueError, match="regularizer identifier: 'l3'"):
        tk.layers.Dense(2, activity_regularizer="l3")
