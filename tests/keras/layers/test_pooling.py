"""The pooling layers (layers/pooling.py): MaxPooling2D and AveragePooling2D, global pooling over
height and width and over steps: values, keepdims, shapes, gradients, masks."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.testing import check_grads


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_global_pooling_1d_values_and_shapes():
    x = np.arange(24.0).reshape(2, 4, 3) % 5
    avg, mx = tk.layers.GlobalAveragePooling1D(), tk.layers.GlobalMaxPooling1D(keepdims=True)
    np.testing.assert_allclose(avg(x).numpy(), x.mean(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(mx(x).numpy(), x.max(axis=1, keepdims=True))
    assert avg.compute_output_shape((None, 4, 3)) == (None, 3)
    assert mx.compute_output_shape((None, 4, 3)) == (None, 1, 3)
    inputs = tk.Input(shape=(None, 3))
    assert tk.layers.GlobalMaxPooling1D()(inputs).shape == (None, 3)


def test_global_pooling_1d_gradients():
    x = tk.constant([[[1.0, 5.0], [3.0, 2.0], [0.0, 4.0]]])
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = tk.reduce_sum(tk.layers.GlobalAveragePooling1D()(x))
        m = tk.reduce_sum(tk.layers.GlobalMaxPooling1D()(x))
    np.testing.assert_allclose(tape.gradient(a, x).numpy(), np.full((1, 3, 2), 1 / 3), rtol=1e-6)
    # the max of each feature gets the whole gradient: step 1 for feature 0, step 0 for feature 1
    np.testing.assert_array_equal(tape.gradient(m, x).numpy(), [[[0, 1], [1, 0], [0, 0]]])


def test_max_pooling_values_shapes_and_gradient():
    x = np.random.default_rng(5).permutation(2 * 5 * 4 * 3).reshape(2, 5, 4, 3) / 7.0
    pool = layers.MaxPooling2D()
    y = pool(x).numpy()
    assert y.shape == (2, 2, 2, 3) == pool.compute_output_shape(x.shape)
    expected = x[:, :4].reshape(2, 2, 2, 2, 2, 3).max(axis=(2, 4))
    np.testing.assert_allclose(y, expected.astype(np.float32), rtol=1e-6)
    same = layers.MaxPooling2D(pool_size=3, strides=2, padding="same", dtype=tk.float64)
    assert same(x).shape == (2, 3, 2, 3)
    check_grads(same, x)
    check_grads(layers.MaxPooling2D(dtype=tk.float64), x)


@pytest.mark.parametrize("cls", [layers.MaxPooling2D, layers.AveragePooling2D])
def test_max_and_average_pooling_share_arguments_shapes_and_config(cls):
    pool = cls(pool_size=3, strides=2, padding="SAME")
    assert pool.compute_output_shape((None, 7, 6, 4)) == (None, 4, 3, 4)
    assert pool(np.zeros((1, 7, 6, 4), np.float32)).shape == (1, 4, 3, 4)
    config = pool.get_config()
    assert (config["pool_size"], config["strides"], config["padding"], config["data_format"]) \
        == ([3, 3], [2, 2], "same", "channels_last")
    assert type(cls.from_config(config)) is cls and cls.from_config(config).strides == (2, 2)
    assert cls(4).strides == (4, 4)                       # strides default to pool_size
    with pytest.raises(ValueError, match=f"^{cls.__name__}: strides must be a positive integer"):
        cls(strides=0)
    with pytest.raises(ValueError, match="padding must be 'valid' or 'same', got 'full'"):
        cls(padding="full")


def test_global_pooling():
    x = np.random.default_rng(1).normal(size=(2, 3, 4, 5))
    np.testing.assert_allclose(layers.GlobalMaxPooling2D(dtype=tk.float64)(x).numpy(), x.max((1, 2)))
    avg = layers.GlobalAveragePooling2D(keepdims=True, dtype=tk.float64)
    np.testing.assert_allclose(avg(x).numpy(), x.mean((1, 2), keepdims=True))
    check_grads(layers.GlobalAveragePooling2D(dtype=tk.float64), x)


@pytest.mark.skipif(not hasattr(tk.nn, "avg_pool2d"), reason="tk.nn.avg_pool2d not merged yet")
def test_average_pooling():
    x = np.arange(16.0).reshape(1, 4, 4, 1)
    y = layers.AveragePooling2D(2)(x).numpy()[0, :, :, 0]
    np.testing.assert_allclose(y, [[2.5, 4.5], [10.5, 12.5]])   # (0+1+4+5)/4, ...


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")
def test_global_average_pooling_1d_averages_the_steps_the_mask_keeps():
    """Issue 43, Keras 3.15's numbers: the mean over the unmasked steps; a row with none is
    0 / 0 = NaN; float masks count their nonzero entries; the output carries no mask."""
    x = (np.arange(24, dtype=np.float32).reshape(2, 4, 3) - 5) / 4
    mask = np.array([[1, 1, 0, 1], [0, 0, 0, 0]], bool)
    gap = tk.layers.GlobalAveragePooling1D()
    np.testing.assert_allclose(gap(x, mask=mask).numpy(), [[-0.25, 0.0, 0.25], [np.nan] * 3])
    np.testing.assert_allclose(gap(x, mask=mask * 2.0).numpy(), gap(x, mask=mask).numpy())
    kept = tk.layers.GlobalAveragePooling1D(keepdims=True)(x, mask=mask)
    assert kept.shape == (2, 1, 3)
    assert gap.supports_masking and not hasattr(gap(tk.layers.Masking()(x)), "_keras_mask")
    steps = x.copy()
    steps[0, 2] = 7.0                                    # Masking(7) pads step 2 of row 0
    np.testing.assert_allclose(gap(tk.layers.Masking(mask_value=7.0)(steps)).numpy(),
                               gap(x, mask=[[1, 1, 0, 1], [1, 1, 1, 1]]).numpy())
    # Keras 3.15's gradient of sum(gap(x, mask) * [1, 2, 3]): the weights over the kept count
    mask2 = np.array([[1, 1, 0, 1], [0, 1, 0, 0]], bool)
    with tk.GradientTape() as tape:
        xt = tk.constant(x)
        tape.watch(xt)
        y = tk.reduce_sum(gap(xt, mask=mask2) * np.array([1.0, 2.0, 3.0], np.float32))
    third = [1 / 3, 2 / 3, 1.0]
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), [
        [third, third, [0.0, 0.0, 0.0], third],
        [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], rtol=1e-6)
    check_grads(lambda v: tk.layers.GlobalAveragePooling1D(dtype="float64")(v, mask=mask2),
                x.astype(np.float64))
    with pytest.raises(ValueError, match=r"GlobalAveragePooling1D 'global_average_pooling1d': "
                                         r"the mask must have shape \(batch, steps\) = \(2, 4\) "
                                         r"for inputs of shape \(2, 4, 3\), got a mask of shape \(2, 5\)"):
        gap(x, mask=np.ones((2, 5), bool))
