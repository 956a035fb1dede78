"""BatchNormalization (layers/normalization.py): batch statistics in training, moving ones at inference, gradients."""
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


def test_a_constraint_config_is_refused_by_name():
    non_neg = {"module": "keras.constraints", "class_name": "NonNeg", "config": {},
               "registered_name": None}
    with pytest.raises(ValueError, match="gamma_constraint must be a callable .*NonNeg"):
        tk.layers.BatchNormalization(gamma_constraint=non_neg)
