"""Keras 3's layer contract and the layers the guides build: values derived by hand or with
NumPy, gradients against finite differences."""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.testing import check_grads


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def weight_grads_match(layer, x, training=None, eps=1e-6):
    """The tape's gradient of sum(layer(x) * w) for every trainable weight matches central
    differences (the weight perturbed in place)."""
    out_shape = layer(x, training=training).shape
    w = np.cos(np.arange(math.prod(out_shape)) + 0.3).reshape(out_shape)

    def loss():
        return tk.reduce_sum(layer(x, training=training) * w)
    with tk.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, layer.trainable_weights)
    for var, g in zip(layer.trainable_weights, grads):
        base = var.numpy().copy()
        num = np.zeros(base.shape)
        for idx in np.ndindex(*base.shape):
            for sign in (1, -1):
                v = base.copy()
                v[idx] += sign * eps
                var.assign(v)
                num[idx] += sign * float(loss()) / (2 * eps)
        var.assign(base)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-7)


# --- add_weight and initializers -------------------------------------------------------------
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


def test_seeded_initializers_repeat_and_match_their_distributions():
    g = tk.initializers.GlorotUniform(seed=3)
    np.testing.assert_array_equal(g((5, 4)), g((5, 4)))
    normal = tk.initializers.RandomNormal(mean=2.0, stddev=0.5, seed=1)((200, 100))
    assert abs(normal.mean() - 2.0) < 0.01 and abs(normal.std() - 0.5) < 0.01
    he = tk.initializers.HeNormal(seed=0)((400, 300))
    stddev = math.sqrt(2 / 400) / 0.87962566103423978
    assert np.abs(he).max() <= 2 * stddev + 1e-7
    assert abs(he.std() - math.sqrt(2 / 400)) < 0.02 * math.sqrt(2 / 400)
    u = tk.initializers.HeUniform(seed=0)((50, 10))
    assert np.abs(u).max() <= math.sqrt(6 / 50)
    with pytest.raises(ValueError, match="Could not interpret initializer identifier: 'gloro'. Known names: 'constant', "):
        tk.initializers.get("gloro")


# --- call contract ---------------------------------------------------------------------------
class Double(layers.Layer):
    def call(self, inputs):
        return inputs * 2.0


class Recorder(layers.Layer):
    def call(self, inputs, training=None):
        self.seen = training
        return inputs


def test_training_is_passed_only_to_a_call_that_takes_it():
    x = tk.ones((1, 2))
    assert Double()(x, training=True).numpy().tolist() == [[2.0, 2.0]]
    rec = Recorder()
    rec(x, training=True)
    assert rec.seen is True
    rec(x)
    assert rec.seen is None


class RecorderDefaultTrue(layers.Layer):
    def call(self, inputs, training=True):
        self.seen = training
        return inputs


def test_the_outer_training_value_reaches_inner_layers_through_sequential_and_model():
    inner, plain = Recorder(), Double()
    model = tk.Sequential([plain, inner])
    model(tk.ones((1, 2)), training=True)
    assert inner.seen is True
    model(tk.ones((1, 2)), training=False)
    assert inner.seen is False

    class Sub(tk.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.rec = Recorder()

        def call(self, inputs):                       # no training parameter itself
            return self.rec(inputs)
    sub = Sub()
    sub(tk.ones((1, 2)), training=True)
    assert sub.rec.seen is True
    default = RecorderDefaultTrue()
    default(tk.ones((1, 1)))
    assert default.seen is True                        # call's own default is kept


def test_uint8_and_int_inputs_reach_dense_as_floats():
    tk.random.set_seed(0)
    dense = layers.Dense(3)
    pixels = np.arange(8, dtype=np.uint8).reshape(2, 4)
    y = dense(pixels)
    assert y.dtype == tk.float32
    expected = pixels.astype(np.float32) @ dense.kernel.numpy() + dense.bias.numpy()
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(dense(tk.constant(pixels.astype(np.int32))).numpy(), expected, rtol=1e-6)
    assert layers.Flatten()(tk.constant([[[1, 2]]])).dtype == tk.int32     # shape-only: kept


def test_dense_fed_another_last_dimension_says_what_it_was_built_for():
    dense = layers.Dense(2)
    dense(tk.ones((2, 3)))
    with pytest.raises(ValueError, match=r'Input 0 of layer "dense" is incompatible with the layer: '
                                         r'expected axis -1 of input shape to have value 3, but '
                                         r'received input with shape \(2, 4\)'):
        dense(tk.ones((2, 4)))
    model = tk.Sequential([layers.Dense(2, input_shape=(3,))])
    with pytest.raises(ValueError, match=r"expected axis -1 of input shape to have value 3.*\(5, 7\)"):
        model(tk.ones((5, 7)))


def test_add_loss_is_collected_and_cleared_per_outer_call():
    class Penalty(layers.Layer):
        def call(self, inputs):
            self.add_loss(0.5 * tk.reduce_sum(inputs))
            return inputs
    model = tk.Sequential([Penalty(), layers.Dense(1, kernel_initializer="ones")])
    model(tk.ones((2, 3)))
    model(tk.ones((2, 3)))
    assert [float(v) for v in model.losses] == [3.0]        # 0.5 * 6, once: cleared in between
    reg = layers.Layer()
    w = reg.add_weight(shape=(2,), initializer="ones", regularizer=lambda v: 0.1 * tk.reduce_sum(v * v))
    assert w is reg.weights[0]
    assert float(reg.losses[0]) == pytest.approx(0.2)


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
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        layers.Dense(2, colour="red")


# --- BatchNormalization --------------------------------------------------------------------------
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


# --- activation layers ---------------------------------------------------------------------------
def test_relu_and_leaky_relu_values_and_gradients():
    x = np.array([-2.0, -0.3, 0.7, 3.0])
    assert layers.LeakyReLU().negative_slope == 0.3
    np.testing.assert_allclose(layers.LeakyReLU(dtype=tk.float64)(x).numpy(), [-0.6, -0.09, 0.7, 3.0])
    relu = layers.ReLU(max_value=2.0, negative_slope=0.1, threshold=0.5, dtype=tk.float64)
    np.testing.assert_allclose(relu(x).numpy(), [-0.25, -0.08, 0.7, 2.0])   # 0.1 (x - 0.5), x, cap 2
    check_grads(layers.LeakyReLU(0.2, dtype=tk.float64), x)
    check_grads(relu, x)
    np.testing.assert_allclose(layers.Activation("elu", dtype=tk.float64)(x).numpy(),
                               np.where(x > 0, x, np.expm1(x)))
    with pytest.raises(ValueError, match="negative_slope"):
        layers.LeakyReLU(alpha=0.2)


# --- shapes, lambda, embedding -----------------------------------------------------------------
def test_reshape_lambda_and_embedding():
    x = np.arange(24.0).reshape(2, 12)
    np.testing.assert_array_equal(layers.Reshape((3, -1))(x).numpy(), x.reshape(2, 3, 4))
    assert layers.Reshape((3, -1)).compute_output_shape((None, 12)) == (None, 3, 4)
    np.testing.assert_array_equal(layers.Lambda(lambda t: t + 1.0)(x).numpy(), x + 1)
    emb = layers.Embedding(5, 2, dtype=tk.float64)
    ids = np.array([[0, 3], [3, 4]])
    out = emb(ids)
    table = emb.embeddings.numpy()
    assert np.abs(table).max() <= 0.05
    np.testing.assert_array_equal(out.numpy(), table[ids])
    with tk.GradientTape() as tape:
        loss = tk.reduce_sum(emb(ids))
    grad = tape.gradient(loss, emb.embeddings)
    np.testing.assert_array_equal(tk.convert_to_tensor(grad).numpy(), [[1, 1], [0, 0], [0, 0], [2, 2], [1, 1]])


# --- pooling and merging ------------------------------------------------------------------------
def test_global_pooling():
    x = np.random.default_rng(1).normal(size=(2, 3, 4, 5))
    np.testing.assert_allclose(layers.GlobalMaxPooling2D(dtype=tk.float64)(x).numpy(), x.max((1, 2)))
    avg = layers.GlobalAveragePooling2D(keepdims=True, dtype=tk.float64)
    np.testing.assert_allclose(avg(x).numpy(), x.mean((1, 2), keepdims=True))
    check_grads(layers.GlobalAveragePooling2D(dtype=tk.float64), x)


def test_merge_layers_and_their_functional_forms():
    a, b, c = (np.random.default_rng(i).normal(size=(2, 3)) for i in range(3))
    f64 = {"dtype": tk.float64}
    np.testing.assert_allclose(layers.Add(**f64)([a, b, c]).numpy(), a + b + c)
    np.testing.assert_allclose(layers.Subtract(**f64)([a, b]).numpy(), a - b)
    np.testing.assert_allclose(layers.Multiply(**f64)([a, b]).numpy(), a * b)
    np.testing.assert_allclose(layers.Average(**f64)([a, b, c]).numpy(), (a + b + c) / 3)
    np.testing.assert_allclose(layers.Maximum(**f64)([a, b]).numpy(), np.maximum(a, b))
    np.testing.assert_allclose(layers.Minimum(**f64)([a, b]).numpy(), np.minimum(a, b))
    np.testing.assert_allclose(layers.concatenate([a, b], **f64).numpy(), np.concatenate([a, b], -1))
    np.testing.assert_allclose(layers.dot([a, b], axes=1, **f64).numpy(), (a * b).sum(1, keepdims=True))
    cos = layers.Dot(axes=1, normalize=True, **f64)([a, b]).numpy()
    np.testing.assert_allclose(cos[:, 0], (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1))
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        layers.Subtract()([a, b, c])
    check_grads(lambda x, y: layers.Multiply(**f64)([x, y]), a, b)


# --- layers over ops another change adds ----------------------------------------------------
@pytest.mark.skipif(not hasattr(tk.nn, "conv2d_transpose"), reason="tk.nn.conv2d_transpose not merged yet")
def test_conv2d_transpose_spreads_each_input_over_a_kernel_window():
    up = layers.Conv2DTranspose(1, 2, strides=2, kernel_initializer="ones", bias_initializer="ones")
    x = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(1, 2, 2, 1)
    y = up(x).numpy()[0, :, :, 0]
    # stride 2, 2x2 window of ones: each input value fills its own 2x2 block, plus bias 1
    np.testing.assert_array_equal(y, np.kron([[1, 2], [3, 4]], np.ones((2, 2))) + 1)
    assert up.kernel.shape == (2, 2, 1, 1)
    assert layers.Conv2DTranspose(3, 3, strides=2)(tk.zeros((1, 4, 4, 2))).shape == (1, 9, 9, 3)


@pytest.mark.skipif(not hasattr(tk.nn, "avg_pool2d"), reason="tk.nn.avg_pool2d not merged yet")
def test_average_pooling():
    x = np.arange(16.0).reshape(1, 4, 4, 1)
    y = layers.AveragePooling2D(2)(x).numpy()[0, :, :, 0]
    np.testing.assert_allclose(y, [[2.5, 4.5], [10.5, 12.5]])   # (0+1+4+5)/4, ...


@pytest.mark.parametrize("name", ["a\u00b5", "a\u03bc", "w b", "x\nprint(1)", "1st", "a/b", "", "\ufb01"])
def test_layer_and_weight_names_follow_the_ascii_rule(name):
    """Issue 29: names are checked with an ASCII rule (letters, digits, _ . -), as TensorFlow
    checks op and scope names: `aµ` and `aμ` are one identifier to Python (NFKC)."""
    if name:
        with pytest.raises(ValueError, match=r"Dense\(name=...\).*not a valid module name.*"
                                             r"ASCII letters, digits, _ \. and -.*Use e\.g\."):
            tk.layers.Dense(1, name=name)
    layer = tk.layers.Layer(name="ok")
    with pytest.raises(ValueError, match=r"add_weight\(name=...\).*ASCII"):
        layer.add_weight(shape=(1,), name=name or "a b")
    for good in ("dense_1", "Block.2-a", "_private"):
        assert tk.layers.Dense(1, name=good).name == good
        assert layer.add_weight(shape=(1,), name=good).path == f"ok/{good}"
