"""tk.constraints: the projections by hand, applied by the optimizer after each step (Keras 3's
order), inside fit and a tk.function, with Keras 3.15's numbers; configs Keras reads."""
import pickle

import numpy as np
import pytest

import tapekit as tk

K0 = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
Y = np.array([[1, -2], [0.5, 3], [-1, 2], [2, 0]], np.float32)

# Keras 3.15 (TensorFlow backend): Sequential([Input((3,)), Dense(2, kernel_constraint=C,
# bias_constraint=NonNeg())]) from K0, B0, compiled with Adam(0.3) and "mse", fit(X, Y,
# epochs=3, batch_size=2, shuffle=False); the kernel (flattened) and the bias after it.
KERAS = {
    "MaxNorm(1.0)": ([-0.1716526, -0.0583083, 0.7683152, 0.4744493, -0.1835174, 0.730538],
                     [0.4472453, 0.147232]),
    "UnitNorm(axis=1)": ([-0.1793214, -0.9837904, 0.5693685, 0.8220822, -0.1454987, 0.9893583],
                         [0.3430187, 0.3922549]),
    "MinMaxNorm(0.5, 1.2, rate=0.7)": ([-0.3441514, -0.3290257, 0.9189903, 0.5118642,
                                        -0.4230084, 0.922531], [0.2014688, 0.0004947]),
    "NonNeg()": ([0.0, 0.0, 0.8760741, 0.3266756, 0.0, 0.9103416], [0.0, 0.0]),
}


@pytest.mark.parametrize("run_eagerly", [True, False], ids=["eager", "compiled"])
@pytest.mark.parametrize("made", sorted(KERAS))
def test_fit_applies_constraints_after_each_step_as_keras(made, run_eagerly):
    constraint = eval("tk.constraints." + made)
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(
        2, kernel_constraint=constraint, bias_constraint=tk.constraints.NonNeg())])
    model.layers[0].set_weights([K0, B0])
    model.compile(optimizer=tk.optimizers.Adam(0.3), loss="mse", run_eagerly=run_eagerly)
    model.fit(X, Y, epochs=3, batch_size=2, shuffle=False, verbose=0)
    kernel, bias = model.layers[0].get_weights()
    np.testing.assert_allclose(kernel.ravel(), KERAS[made][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bias, KERAS[made][1], rtol=1e-5, atol=1e-6)


def test_projections_by_hand():
    w = tk.constant([[3.0, 0.0], [4.0, 0.5]])      # column norms 5 and 0.5
    eps = 1e-7
    np.testing.assert_allclose(tk.constraints.MaxNorm(2.0)(w).numpy(),
                               [[3 * 2 / (5 + eps), 0.0], [4 * 2 / (5 + eps), 0.5 * 0.5 / (0.5 + eps)]],
                               rtol=1e-6)
    np.testing.assert_allclose(tk.constraints.UnitNorm()(w).numpy(), [[0.6, 0.0], [0.8, 1.0]], rtol=1e-6)
    # rate 0.5: halfway from the norm to the interval [1, 2]: 5 -> 3.5, 0.5 -> 0.75
    np.testing.assert_allclose(tk.constraints.MinMaxNorm(1.0, 2.0, rate=0.5)(w).numpy(),
                               [[3 * 3.5 / 5, 0.0], [4 * 3.5 / 5, 0.75]], rtol=1e-6)
    np.testing.assert_array_equal(tk.constraints.NonNeg()(tk.constant([-1.0, 0.0, 2.0])).numpy(),
                                  [0.0, 0.0, 2.0])
    # a Conv2D kernel's filter: the norm over its (height, width, in) axes
    kernel = tk.ones((2, 2, 1, 3))
    out = tk.constraints.MaxNorm(1.0, axis=[0, 1, 2])(kernel).numpy()
    np.testing.assert_allclose(np.sqrt((out ** 2).sum(axis=(0, 1, 2))), [1.0] * 3, rtol=1e-6)


def test_a_variable_constraint_is_applied_by_apply_gradients_only_to_updated_variables():
    w = tk.Variable([-1.0, 2.0], constraint=tk.constraints.NonNeg(), name="w")
    v = tk.Variable([-3.0], constraint=lambda t: t * 0.0, name="v")
    assert w.constraint is not None
    opt = tk.optimizers.SGD(0.5)
    opt.apply_gradients([(tk.constant([1.0, -2.0]), w)])   # w - 0.5 g = [-1.5, 3] -> [0, 3]
    np.testing.assert_array_equal(w.numpy(), [0.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [-3.0])         # not updated: not projected
    assert tk.Variable(1.0).constraint is None


def test_a_constraint_in_a_compiled_step_runs_at_every_replay():
    w = tk.Variable([1.0, 1.0], constraint=tk.constraints.NonNeg())
    opt = tk.optimizers.SGD(1.0)

    @tk.function
    def step(g):
        opt.apply_gradients([(g, w)])

    for g in ([0.5, 2.0], [3.0, -1.0], [-4.0, 0.0]):
        before = w.numpy()
        step(tk.constant(g))
        np.testing.assert_array_equal(w.numpy(), np.maximum(before - np.array(g, np.float32), 0))


def test_get_names_configs_and_errors():
    assert isinstance(tk.constraints.get("non_neg"), tk.constraints.NonNeg)
    assert isinstance(tk.constraints.get("MaxNorm"), tk.constraints.MaxNorm)
    assert tk.constraints.get(None) is None
    made = tk.constraints.get({"module": "keras.constraints", "class_name": "MinMaxNorm",
                               "config": {"min_value": 0.1, "max_value": 3, "rate": 1.0, "axis": 0},
                               "registered_name": None})
    assert made.get_config() == {"min_value": 0.1, "max_value": 3, "rate": 1.0, "axis": 0}
    assert tk.constraints.serialize(tk.constraints.MaxNorm(3)) == {
        "module": "keras.constraints", "class_name": "MaxNorm",
        "config": {"max_value": 3, "axis": 0}, "registered_name": None}
    with pytest.raises(ValueError, match="Could not interpret constraint identifier: 'nonneg'"):
        tk.constraints.get("nonneg")
    with pytest.raises(ValueError, match="MaxNorm: max_value must be a number >= 0"):
        tk.constraints.MaxNorm(-1)
    with pytest.raises(ValueError, match="min_value=2 is above max_value=1"):
        tk.constraints.MinMaxNorm(2, 1)
    with pytest.raises(ValueError, match=r"axis=3 is out of range for a weight of shape \(2, 2\)"):
        tk.constraints.UnitNorm(axis=3)(tk.ones((2, 2)))
    with pytest.raises(ValueError, match="Variable: constraint must be a callable"):
        tk.Variable(1.0, constraint="non_neg")
    with pytest.raises(ValueError, match="Could not interpret constraint identifier"):
        tk.layers.Dense(2, kernel_constraint=3)


@pytest.mark.parametrize("layer, attr, key", [
    (lambda: tk.layers.Dense(2, kernel_constraint="non_neg"), "kernel", "kernel_constraint"),
    (lambda: tk.layers.Conv2D(2, 2, bias_constraint="non_neg"), "bias", "bias_constraint"),
    (lambda: tk.layers.Conv1D(2, 2, kernel_constraint="non_neg"), "kernel", "kernel_constraint"),
    (lambda: tk.layers.Embedding(5, 2, embeddings_constraint="non_neg"), "embeddings",
     "embeddings_constraint"),
    (lambda: tk.layers.LSTM(2, recurrent_constraint="non_neg"), "recurrent_kernel",
     "recurrent_constraint"),
    (lambda: tk.layers.BatchNormalization(beta_constraint="non_neg"), "beta", "beta_constraint"),
])
def test_each_layer_hands_its_constraint_to_its_weight_and_config(layer, attr, key):
    made = layer()
    inputs = {"Conv2D": np.zeros((1, 3, 3, 1)), "Conv1D": np.zeros((1, 3, 1)),
              "Embedding": np.zeros((1, 2), np.int32), "LSTM": np.zeros((1, 2, 1))}
    made(inputs.get(type(made).__name__, np.zeros((2, 3))).astype(
        np.int32 if type(made).__name__ == "Embedding" else np.float32))
    assert isinstance(getattr(made, attr).constraint, tk.constraints.NonNeg)
    config = made.get_config()
    assert config[key]["class_name"] == "NonNeg"
    again = type(made).from_config(config)
    again(np.zeros((1, 2), np.int32) if type(made).__name__ == "Embedding" else
          inputs.get(type(made).__name__, np.zeros((2, 3))).astype(np.float32))
    assert isinstance(getattr(again, attr).constraint, tk.constraints.NonNeg)


def test_save_load_and_pickle_keep_the_constraints(tmp_path):
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(
        2, kernel_constraint=tk.constraints.MaxNorm(0.5), bias_constraint="non_neg")])
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = tk.saving.load_model(path)
    assert loaded.layers[0].kernel.constraint.get_config() == {"max_value": 0.5, "axis": 0}
    assert isinstance(loaded.layers[0].bias.constraint, tk.constraints.NonNeg)
    copied = pickle.loads(pickle.dumps(model))
    assert copied.layers[0].kernel.constraint.max_value == 0.5
