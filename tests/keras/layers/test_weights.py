"""A layer's weights (layers/weights.py): add_weight's defaults and forms, get/set_weights, freezing."""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_add_weight_defaults_to_glorot_uniform_for_floats_and_zeros_for_ints():
    layer = layers.Layer(name="demo")
    tk.random.set_seed(7)
    w = layer.add_weight(shape=(40, 60), name="w").numpy()
    limit = math.sqrt(6 / (40 + 60))
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.95 * limit
    assert abs(w.mean()) < 0.02 and abs(w.var() - limit ** 2 / 3) < 0.1 * limit ** 2 / 3
    tk.random.set_seed(7)
    np.testing.assert_array_equal(layers.Layer().add_weight(shape=(40, 60)).numpy(), w)
    counts = layer.add_weight(shape=(3,), dtype=tk.int32, name="n")
    assert counts.dtype == tk.int32 and counts.numpy().tolist() == [0, 0, 0]
    # Keras 3: a weight's name is what add_weight was given, its path adds the layer's name
    assert [(v.name, v.path) for v in layer.weights] == [("w", "demo/w"), ("n", "demo/n")]


def test_add_weight_takes_names_objects_and_callables_and_rejects_the_old_order():
    layer = layers.Layer()
    assert layer.add_weight(shape=(2,), initializer="ones").numpy().tolist() == [1, 1]
    c = layer.add_weight(shape=(2,), initializer=tk.initializers.Constant(0.25))
    assert c.numpy().tolist() == [0.25, 0.25]
    f = layer.add_weight(shape=(2,), initializer=lambda shape, dtype: np.full(shape, 3.0, dtype))
    assert f.numpy().tolist() == [3.0, 3.0]
    frozen = layer.add_weight(shape=(1,), trainable=False)
    assert any(v is frozen for v in layer.non_trainable_weights)
    assert not any(v is frozen for v in layer.trainable_weights)
    with pytest.raises(TypeError, match="first argument is the shape.*name='kernel'"):
        layer.add_weight("kernel", (2, 2))


def test_add_weight_calls_the_initializer_as_keras_does_shape_then_dtype_by_keyword():
    # Keras 3.15 calls initializer(shape, dtype="float32"): the dtype by keyword, as a name
    calls = []

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return np.ones(args[0], kwargs["dtype"])

    layer = layers.Layer()
    layer.add_weight(shape=(3, 2), initializer=spy)
    layer.add_weight(shape=(2,), initializer=spy, dtype="float64")
    assert calls == [(((3, 2),), {"dtype": "float32"}), (((2,),), {"dtype": "float64"})]
    # so TF's random functions, whose second parameter is not the dtype, are initializers:
    # Keras 3.15 builds Dense(2, kernel_initializer=tf.random.normal) with a float32 normal
    # kernel (this call used to hand tk.random.normal the dtype as its mean and fail)
    tk.random.set_seed(3)
    dense = layers.Dense(2, kernel_initializer=tk.random.normal)
    dense.build((None, 3))
    tk.random.set_seed(3)
    np.testing.assert_array_equal(dense.kernel.numpy(), tk.random.normal((3, 2)).numpy())
    uniform = layers.Dense(2, kernel_initializer=tk.random.uniform)   # in [0, 1)
    uniform.build((None, 3))
    k = uniform.kernel.numpy()
    assert k.dtype == np.float32 and k.min() >= 0.0 and k.max() < 1.0 and k.std() > 0
    # Keras 3.15: an initializer without a dtype parameter fails with TypeError, as here
    with pytest.raises(TypeError, match="dtype"):
        layers.Layer().add_weight(shape=(2,), initializer=lambda shape: np.ones(shape))


def test_weights_get_set_and_freezing():
    dense = layers.Dense(2, input_shape=(3,))
    dense.set_weights([np.ones((3, 2)), np.array([1.0, -1.0])])
    assert dense(tk.ones((1, 3))).numpy().tolist() == [[4.0, 2.0]]
    with pytest.raises(ValueError, match=r"dense\w*/kernel has shape \(3, 2\), got an array of shape \(2, 2\)"):
        dense.set_weights([np.ones((2, 2)), np.ones(2)])
    dense.trainable = False
    assert dense.trainable_weights == [] and len(dense.non_trainable_weights) == 2
    with tk.GradientTape() as tape:
        tk.reduce_sum(dense(tk.ones((1, 3))))
    assert tape.watched_variables() == ()
