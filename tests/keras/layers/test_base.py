"""Layer (layers/base.py): the training flag, input casting, add_loss, build and its arguments,
and how a mask travels through a call (issue 43)."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers


class Double(layers.Layer):
    def call(self, inputs):
        return inputs * 2.0


class Recorder(layers.Layer):
    def call(self, inputs, training=None):
        self.seen = training
        return inputs


class RecorderDefaultTrue(layers.Layer):
    def call(self, inputs, training=True):
        self.seen = training
        return inputs


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_float64_input_is_cast_to_the_layer_dtype():
    y = layers.Dense(2)(np.ones((1, 3)))
    assert y.dtype == tk.float32


def test_training_is_passed_only_to_a_call_that_takes_it():
    x = tk.ones((1, 2))
    assert Double()(x, training=True).numpy().tolist() == [[2.0, 2.0]]
    rec = Recorder()
    rec(x, training=True)
    assert rec.seen is True
    rec(x)
    assert rec.seen is None


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


def test_unknown_keyword_arguments_are_refused():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        layers.Dense(2, colour="red")


def test_build_called_directly_marks_the_layer_built_and_the_first_call_keeps_its_weights():
    # keras.io's guides call layer.build(shape) and then set or read the weights; the first call
    # once built a second set of weights (4 instead of 2) and computed with fresh random ones.
    dense = tk.layers.Dense(2)
    dense.build((None, 3))
    assert dense.built and len(dense.weights) == 2
    dense.set_weights([np.ones((3, 2), "float32"), np.array([0.5, -0.5], "float32")])
    np.testing.assert_array_equal(dense(tk.ones((1, 3))).numpy(), [[3.5, 2.5]])
    assert len(dense.weights) == 2
    assert dense.get_build_config() == {"input_shape": [None, 3]}

    class Scale(tk.layers.Layer):          # a subclass's own build, without super().build()
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, x):
            return x * self.w

    scale = Scale()
    scale.build((None, 4))
    scale.w.assign([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(scale(tk.ones((1, 4))).numpy(), [[1.0, 2.0, 3.0, 4.0]])
    assert scale.built and len(scale.weights) == 1

    model = tk.Sequential([tk.layers.Dense(3), tk.layers.Dense(1)])
    model.build((None, 5))
    before = [w.numpy().copy() for w in model.weights]
    model(tk.ones((2, 5)))
    assert len(model.weights) == 4
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, model.weights))


# --- masks (issue 43): Keras 3's rules in Layer.__call__ --------------------------------------
class SeesMask(layers.Layer):
    """A custom layer whose call takes mask=: it receives the mask its input carries."""

    def call(self, inputs, mask=None):
        self.seen = mask
        return inputs * 1.0


class MakesMask(layers.Layer):
    """Writes compute_mask: supports masking (Keras 3's default rule)."""

    def call(self, inputs):
        return inputs + 0.0

    def compute_mask(self, inputs, previous_mask):
        return inputs[..., 0] > 0


def masked_input():
    return tk.layers.Masking()(np.array([[[0.0, 0.0], [1.0, 2.0], [3.0, 0.0]]], np.float32))


DROPS = "ignore:Layer .* does not support masking:UserWarning"


@pytest.mark.filterwarnings(DROPS)
def test_a_call_that_takes_mask_receives_the_inputs_mask_or_the_one_given():
    x = masked_input()
    layer = SeesMask()
    with pytest.warns(UserWarning, match="'sees_mask' .* does not support masking"):
        out = layer(x)        # Keras 3 warns too: it uses the mask but does not pass it on
    np.testing.assert_array_equal(layer.seen.numpy(), [[False, True, True]])
    assert not layer.supports_masking and not hasattr(out, "_keras_mask")   # Keras 3: False
    given = np.array([[True, True, False]])
    layer(x, mask=given)                               # an array becomes a tensor
    assert isinstance(layer.seen, tk.Tensor)
    np.testing.assert_array_equal(layer.seen.numpy(), given)
    layer(x, mask=[[True, False, False]])              # nested lists too
    np.testing.assert_array_equal(layer.seen.numpy(), [[True, False, False]])
    layer(tk.ones((1, 3, 2)))
    assert layer.seen is None


def test_supports_masking_follows_compute_mask_and_can_be_set():
    assert not tk.layers.Layer().supports_masking and not SeesMask().supports_masking
    assert MakesMask().supports_masking
    out = MakesMask()(np.array([[[1.0], [-1.0]]], np.float32))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False]])
    passes = SeesMask()
    passes.supports_masking = True                      # as a Keras layer's __init__ does
    x = masked_input()
    np.testing.assert_array_equal(passes(x)._keras_mask.numpy(), x._keras_mask.numpy())
    assert tk.layers.Layer().compute_mask(None, "previous") == "previous"


def test_mask_given_to_a_call_without_mask_is_keras_3s_type_error():
    """Keras 3.15: Dense()(x, mask=m) raises TypeError "got an unexpected keyword argument
    'mask'"; tapekit dropped the mask silently."""
    with pytest.raises(TypeError, match=r"Dense.call\(\) got an unexpected keyword argument "
                                        r"'mask': layer 'dense' takes no mask"):
        tk.layers.Dense(2)(np.ones((2, 4, 3), np.float32), mask=np.ones((2, 4), bool))
    with pytest.raises(TypeError, match="unexpected keyword argument 'mask'"):
        Double()(np.ones((1, 2), np.float32), mask=None)


@pytest.mark.filterwarnings(DROPS)
def test_the_mask_survives_the_cast_to_the_layers_dtype():
    x = tk.layers.Masking(dtype="float64")(np.array([[[0.0], [1.0]]]))
    assert x.dtype == np.float64
    layer = SeesMask()                                   # float32: the input is cast
    layer(x)
    np.testing.assert_array_equal(layer.seen.numpy(), [[False, True]])


def test_an_unmasked_tensor_has_no_keras_mask_attribute_as_in_tensorflow():
    # TF 2.21: an EagerTensor without a mask raises AttributeError for `_keras_mask`
    with pytest.raises(AttributeError):
        tk.constant([1.0])._keras_mask
    assert getattr(tk.constant([1.0]), "_keras_mask", None) is None
