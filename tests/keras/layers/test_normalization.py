"""BatchNormalization (layers/normalization.py): batch statistics in training, moving ones at
inference, gradients. LayerNormalization: each example over its own axes, by hand with NumPy,
gradients against central differences, configs as Keras 3.15 writes them."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.testing import check_grads

from .weight_grads import weight_grads_match


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_batch_normalization_training_uses_and_updates_batch_statistics():
    x = np.array([[1.0, 10.0], [3.0, 10.0], [5.0, 16.0]])
    bn = layers.BatchNormalization(momentum=0.9, epsilon=0.01, dtype=tk.float64)
    y = bn(x, training=True).numpy()
    mean, var = x.mean(0), x.var(0)                     # (3, 12), (8/3, 8)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 0.01), rtol=1e-12)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-12)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-12)
    bn.gamma.assign([2.0, 1.0])
    bn.beta.assign([0.5, 0.0])
    for training in (False, None):                      # inference: the moving statistics
        y = bn(x, training=training).numpy()
        mm, mv = 0.1 * mean, 0.9 + 0.1 * var
        np.testing.assert_allclose(y, (x - mm) / np.sqrt(mv + 0.01) * [2, 1] + [0.5, 0], rtol=1e-12)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-12)   # not updated
    assert [v.path for v in bn.weights] == [
        "batch_normalization/gamma", "batch_normalization/beta",
        "batch_normalization/moving_mean", "batch_normalization/moving_variance"]
    assert len(bn.trainable_weights) == 2


def test_batch_normalization_gradients_and_other_axis():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3))
    bn = layers.BatchNormalization(dtype=tk.float64)
    bn(x)
    bn.gamma.assign(rng.normal(size=3))
    check_grads(lambda t: bn(t, training=True) * tk.constant(np.arange(12.0).reshape(4, 3)), x,
                modes=("rev",))
    weight_grads_match(bn, tk.constant(x), training=True)
    images = rng.normal(size=(2, 3, 2, 2))
    channels_first = layers.BatchNormalization(axis=1, epsilon=0.0, dtype=tk.float64)
    y = channels_first(images, training=True).numpy()
    m, v = images.mean((0, 2, 3), keepdims=True), images.var((0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y, (images - m) / np.sqrt(v), rtol=1e-10)


def test_inference_and_a_frozen_layer_use_the_moving_statistics():
    bn = layers.BatchNormalization(epsilon=0.0, moving_mean_initializer=tk.initializers.Constant(2.0),
                                   moving_variance_initializer=tk.initializers.Constant(4.0),
                                   center=False, scale=False)
    x = np.array([[0.0, 6.0], [2.0, 10.0]], np.float32)
    np.testing.assert_allclose(bn(x).numpy(), (x - 2.0) / 2.0)          # training=None: moving
    assert bn.trainable_weights == [] and len(bn.non_trainable_weights) == 2
    bn.trainable = False                                                # frozen: moving, even
    np.testing.assert_allclose(bn(x, training=True).numpy(), (x - 2.0) / 2.0)   # in training
    np.testing.assert_array_equal(bn.moving_mean.numpy(), [2.0, 2.0])   # and no update


def test_bad_axes_are_named():
    with pytest.raises(TypeError, match=r"BatchNormalization: axis must be an int, got \[1\]"):
        layers.BatchNormalization(axis=[1])
    with pytest.raises(ValueError, match=r"'batch_normalization': axis=2 is out of range for "
                                         r"inputs of shape \(3, 2\)"):
        layers.BatchNormalization(axis=2)(np.ones((3, 2), np.float32))


def test_config_round_trip_keeps_the_arguments():
    bn = layers.BatchNormalization(axis=1, momentum=0.5, epsilon=0.1, center=False)
    again = layers.BatchNormalization.from_config(bn.get_config())
    assert (again.axis, again.momentum, again.epsilon, again.center, again.scale) == (1, 0.5, 0.1,
                                                                                       False, True)


def test_regularizers_from_a_keras_config_add_their_penalties():
    # Keras 3.15.1 writes gamma_regularizer=keras.regularizers.L2(0.25) as this dict (TF venv);
    # the layer read from it must penalise gamma (ones: 0.25 * 3), not keep the dict
    l2 = {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.25},
          "registered_name": None}
    bn = tk.layers.BatchNormalization.from_config({"name": "b", "gamma_regularizer": l2,
                                                   "beta_regularizer": "l1"})
    bn(tk.ones((2, 3)))
    assert [float(v) for v in bn.losses] == pytest.approx([0.25 * 3, 0.0])
    assert bn.get_config()["gamma_regularizer"] == l2
    assert bn.get_config()["beta_regularizer"]["class_name"] == "L1"


def test_a_constraint_config_is_read_as_keras_reads_it():
    non_neg = {"module": "keras.constraints", "class_name": "NonNeg", "config": {},
               "registered_name": None}
    bn = tk.layers.BatchNormalization(gamma_constraint=non_neg)
    bn(np.ones((2, 3), np.float32))
    assert isinstance(bn.gamma.constraint, tk.constraints.NonNeg) and bn.beta.constraint is None
    with pytest.raises(ValueError, match="Could not interpret constraint identifier: 'nonneg'"):
        tk.layers.BatchNormalization(gamma_constraint="nonneg")


def _layer_norm(x, axes, epsilon, gamma=None, beta=None, centre=True):
    """LayerNormalization by hand: NumPy's mean and variance over `axes` of each example."""
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    y = (x - mean if centre else x) / np.sqrt(var + epsilon)
    return y * (1 if gamma is None else gamma) + (0 if beta is None else beta)


def test_layer_normalization_normalizes_each_example_over_the_last_axis():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 4)) * 5 + 2
    ln = layers.LayerNormalization(epsilon=0.01, dtype=tk.float64)
    y = ln(x).numpy()                                   # gamma ones, beta zeros at first
    np.testing.assert_allclose(y, _layer_norm(x, -1, 0.01), rtol=1e-12)
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    gamma, beta = rng.normal(size=4), rng.normal(size=4)
    ln.gamma.assign(gamma)
    ln.beta.assign(beta)
    np.testing.assert_allclose(ln(x).numpy(), _layer_norm(x, -1, 0.01, gamma, beta), rtol=1e-12)
    assert [v.path for v in ln.weights] == ["layer_normalization/gamma", "layer_normalization/beta"]
    assert [v.shape for v in ln.trainable_weights] == [(4,), (4,)]
    assert ln.non_trainable_weights == [] and ln.axis == [-1]


def test_layer_normalization_over_two_axes_of_a_3d_input():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 4)) * 3 - 1
    ln = layers.LayerNormalization(axis=[2, 1], epsilon=1e-5, dtype=tk.float64)
    ln(x)
    assert ln.axis == [1, 2] and ln.gamma.shape == (3, 4) and ln.beta.shape == (3, 4)
    gamma, beta = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    ln.gamma.assign(gamma)
    ln.beta.assign(beta)
    np.testing.assert_allclose(ln(x).numpy(), _layer_norm(x, (1, 2), 1e-5, gamma, beta),
                               rtol=1e-12)
    other = layers.LayerNormalization(axis=1, epsilon=0.0, dtype=tk.float64)   # the middle axis
    np.testing.assert_allclose(other(x).numpy(), _layer_norm(x, 1, 0.0), rtol=1e-12)
    assert other.gamma.shape == (3,)


def test_layer_normalization_without_centre_and_scale_has_no_weights():
    x = np.array([[1.0, 2.0, 6.0], [-4.0, 0.0, 1.0]])
    ln = layers.LayerNormalization(center=False, scale=False, epsilon=0.5, dtype=tk.float64)
    np.testing.assert_allclose(ln(x).numpy(), _layer_norm(x, -1, 0.5), rtol=1e-12)
    assert ln.weights == [] and ln.gamma is None and ln.beta is None
    only_scale = layers.LayerNormalization(center=False, dtype=tk.float64)
    only_scale(x)
    assert [v.path for v in only_scale.weights] == ["layer_normalization_1/gamma"]


def test_rms_scaling_divides_without_centring_and_has_only_gamma():
    x = np.array([[1.0, 2.0, 6.0], [-4.0, 0.0, 1.0]])
    with pytest.warns(UserWarning, match="rms_scaling=True.*deprecated"):
        ln = layers.LayerNormalization(rms_scaling=True, epsilon=0.1, dtype=tk.float64)
    ln(x)
    assert [v.path for v in ln.weights] == ["layer_normalization/gamma"] and ln.beta is None
    ln.gamma.assign([2.0, -1.0, 0.5])
    expected = _layer_norm(x, -1, 0.1, gamma=np.array([2.0, -1.0, 0.5]), centre=False)
    np.testing.assert_allclose(ln(x).numpy(), expected, rtol=1e-12)


def test_layer_normalization_gradients_match_central_differences():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 4))
    weights = tk.constant(np.cos(np.arange(24.0)).reshape(2, 3, 4))
    for axis in (-1, [1, 2]):
        ln = layers.LayerNormalization(axis=axis, epsilon=0.01, dtype=tk.float64)
        ln(x)
        ln.gamma.assign(rng.normal(size=ln.gamma.shape))
        ln.beta.assign(rng.normal(size=ln.beta.shape))
        check_grads(lambda t: ln(t) * weights, x)         # reverse and forward mode
        weight_grads_match(ln, tk.constant(x))
    with pytest.warns(UserWarning):
        rms = layers.LayerNormalization(rms_scaling=True, dtype=tk.float64)
    check_grads(lambda t: rms(t) * weights, x)


def test_training_changes_nothing():
    x = np.random.default_rng(4).normal(size=(5, 3)).astype(np.float32)
    ln = layers.LayerNormalization()
    y = ln(x).numpy()
    for training in (True, False):
        np.testing.assert_array_equal(ln(x, training=training).numpy(), y)
    np.testing.assert_allclose(ln(x[:1]).numpy(), y[:1], rtol=1e-6)   # no batch statistics


def test_layer_normalization_bad_arguments_are_named():
    with pytest.raises(TypeError, match=r"axis must be an int or a non-empty list of ints, "
                                        r"got 'a'"):
        layers.LayerNormalization(axis="a")
    with pytest.raises(ValueError, match=r"'layer_normalization': axis=\[1, 3\] is out of range "
                                         r"for inputs of shape \(2, 3, 4\)"):
        layers.LayerNormalization(axis=[1, 3])(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r"axis=\[1, -1\] names an axis twice or mixes .* "
                                         r"write axis=\[1, 2\]"):
        layers.LayerNormalization(axis=[1, -1])(np.ones((2, 3, 4), np.float32))
    for epsilon in (-1e-3, "0.1", float("nan")):
        with pytest.raises(ValueError, match="epsilon must be a number >= 0"):
            layers.LayerNormalization(epsilon=epsilon)


# Keras 3.15.1's config of keras.layers.LayerNormalization(name="ln") once built, printed in
# the TF venv (before building, "axis" is -1: Keras turns it into a sorted list in build).
POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
          "registered_name": None}
KERAS_LN_DEFAULT = {
    "name": "ln", "trainable": True, "dtype": POLICY, "axis": [-1], "epsilon": 0.001,
    "center": True, "scale": True, "rms_scaling": False,
    "beta_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {},
                         "registered_name": None},
    "gamma_initializer": {"module": "keras.initializers", "class_name": "Ones", "config": {},
                          "registered_name": None},
    "beta_regularizer": None, "gamma_regularizer": None, "beta_constraint": None,
    "gamma_constraint": None}

# keras.saving.serialize_keras_object(keras.layers.LayerNormalization(axis=[1, 2],
# epsilon=1e-5, gamma_regularizer=keras.regularizers.L2(0.25), beta_initializer="he_normal",
# name="norm")) after calling it on ones((2, 3, 4)), printed by Keras 3.15.1 (its losses: [3.0]).
KERAS_LN_WRITTEN = {
    "module": "keras.layers", "class_name": "LayerNormalization", "config": {
        "name": "norm", "trainable": True, "dtype": POLICY, "axis": [1, 2], "epsilon": 1e-05,
        "center": True, "scale": True, "rms_scaling": False,
        "beta_initializer": {"module": "keras.initializers", "class_name": "HeNormal",
                             "config": {"seed": None, "input_axes": None, "output_axes": None},
                             "registered_name": None},
        "gamma_initializer": {"module": "keras.initializers", "class_name": "Ones", "config": {},
                              "registered_name": None},
        "beta_regularizer": None,
        "gamma_regularizer": {"module": "keras.regularizers", "class_name": "L2",
                              "config": {"l2": 0.25}, "registered_name": None},
        "beta_constraint": None, "gamma_constraint": None},
    "registered_name": None, "build_config": {"input_shape": [2, 3, 4]}}


def test_layer_normalization_config_is_keras_and_round_trips():
    ln = layers.LayerNormalization(name="ln")
    assert ln.get_config() == {**KERAS_LN_DEFAULT, "axis": -1}
    ln(np.ones((2, 3), np.float32))
    assert ln.get_config() == KERAS_LN_DEFAULT
    tuned = layers.LayerNormalization(axis=(1, 2), epsilon=0.1, center=False,
                                      gamma_regularizer="l2", name="t")
    again = layers.LayerNormalization.from_config(tuned.get_config())
    assert again.get_config() == tuned.get_config()
    assert (again.axis, again.epsilon, again.center, again.scale) == ([1, 2], 0.1, False, True)
    again(np.ones((2, 3, 4), np.float32))
    assert [v.shape for v in again.weights] == [(3, 4)]


def test_a_keras_written_config_loads():
    ln = tk.saving.deserialize_keras_object(KERAS_LN_WRITTEN)
    assert isinstance(ln, layers.LayerNormalization)
    assert ln.get_config() == KERAS_LN_WRITTEN["config"]
    ln.build_from_config(KERAS_LN_WRITTEN["build_config"])
    assert [v.shape for v in ln.weights] == [(3, 4), (3, 4)]
    assert [float(v) for v in ln.losses] == pytest.approx([0.25 * 12])   # L2 of gamma's ones
    x = np.random.default_rng(5).normal(size=(2, 3, 4)).astype(np.float32)
    ln.beta.assign(np.zeros((3, 4)))
    np.testing.assert_allclose(ln(x).numpy(), _layer_norm(x, (1, 2), 1e-5), rtol=1e-5, atol=1e-6)
    from_dict = layers.LayerNormalization.from_config(KERAS_LN_DEFAULT)
    assert from_dict.get_config() == KERAS_LN_DEFAULT


def test_batch_normalization_leaves_masked_steps_out_of_the_batch_statistics():
    """Issue 43, Keras 3.15: BatchNormalization(momentum=0.5)(x, training=True, mask=m) with
    x = 0.5 sin(0.37 n + 1), (2, 3, 2); each sum over the kept count + 1e-7."""
    x = (np.sin(np.arange(12) * 0.37 + 1.0) * 0.5).astype(np.float32).reshape(2, 3, 2)
    mask = np.array([[1, 1, 0], [0, 1, 1]], bool)
    bn = tk.layers.BatchNormalization(momentum=0.5)
    out = bn(x, training=True, mask=mask)
    np.testing.assert_allclose(out.numpy(), [
        [[0.9099073, 1.062159], [1.0705259, 0.931032], [0.657038, 0.3166457]],
        [[-0.1142763, -0.4596372], [-0.8399709, -0.991772], [-1.1404622, -1.0014188]]], atol=2e-6)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.0060755, -0.0016554], atol=2e-7)
    np.testing.assert_allclose(bn.moving_variance.numpy(), [0.6003183, 0.6073329], atol=2e-7)
    np.testing.assert_array_equal(out._keras_mask.numpy(), mask)       # passed on
    inference = bn(x, mask=mask)                     # the moving statistics: the mask is unused
    np.testing.assert_array_equal(inference.numpy(), bn(x).numpy())
    with pytest.raises(ValueError, match=r"BatchNormalization 'batch_normalization': the mask "
                                         r"must have shape \(batch, steps\) = \(2, 3\)"):
        bn(x, training=True, mask=np.ones((2, 3, 2), bool))
    check_grads(lambda v: tk.layers.BatchNormalization(dtype="float64")(v, training=True, mask=mask),
                x.astype(np.float64), modes=("rev",))


GN_X = np.sin(np.arange(2 * 3 * 4, dtype="float32")).reshape(2, 3, 4) * 2 + 1


@pytest.mark.parametrize("kwargs, first, squares", [
    # Keras 3.15 gives these first outputs and sums of squares
    (dict(groups=2), [-0.1184086799621582, 1.0155086517333984, 1.396894097328186,
                      0.24136686325073242], 23.987533569335938),
    (dict(groups=-1, epsilon=0.1, center=False),
     [-0.10586404800415039, 0.9481401443481445, 1.3517475128173828, 0.29347938299179077],
     22.7921085357666),
])
def test_group_normalization_as_keras(kwargs, first, squares):
    tk.layers.clear_session()
    layer = tk.layers.GroupNormalization(**kwargs)
    y = layer(GN_X).numpy()
    np.testing.assert_allclose(y.ravel()[:4], first, rtol=1e-6)
    assert float((y ** 2).sum()) == pytest.approx(squares, rel=1e-6)
    assert [w.path for w in layer.weights] == (
        ["group_normalization/gamma", "group_normalization/beta"] if kwargs.get("center", True)
        else ["group_normalization/gamma"])


def test_group_normalization_gradients_and_saving(tmp_path):
    tk.layers.clear_session()
    layer = tk.layers.GroupNormalization(groups=2, dtype="float64")
    x = tk.constant(GN_X.astype("float64"))
    w = np.cos(np.arange(24)).reshape(2, 3, 4)
    theoretical, numerical = tk.test.compute_gradient(lambda v: tk.reduce_sum(layer(v) * w), [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-5, atol=1e-6)
    model = tk.Sequential([tk.Input((3, 4)), tk.layers.GroupNormalization(groups=4)])
    model.layers[0].gamma.assign([1.0, 2.0, 3.0, 4.0])
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(GN_X, verbose=0), model.predict(GN_X, verbose=0))
    config = loaded.layers[0].get_config()
    assert (config["groups"], config["axis"], config["epsilon"]) == (4, -1, 0.001)


@pytest.mark.parametrize("groups, message", [
    # Keras 3.15's message
    (3, r"Number of groups \(3\) must be a multiple of the number of channels \(4\)"),
    (8, r"Number of groups \(8\) cannot be more than the number of channels \(4\)"),
])
def test_group_normalization_refuses_groups_that_do_not_divide(groups, message):
    with pytest.raises(ValueError, match=message):
        tk.layers.GroupNormalization(groups=groups)(GN_X)
