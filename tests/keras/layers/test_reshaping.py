"""UpSampling2D: nearest-neighbour repetition (np.repeat), shapes, and a gradient that sums blocks."""
import numpy as np
import pytest

import tapekit as tk


def test_upsampling_repeats_rows_and_columns():
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 2)).astype(np.float32)
    layer = tk.layers.UpSampling2D((2, 3))
    want = np.repeat(np.repeat(x, 2, axis=1), 3, axis=2)
    np.testing.assert_array_equal(layer(x).numpy(), want)
    assert layer.compute_output_shape((None, 3, 4, 2)) == (None, 6, 12, 2)
    assert tk.layers.UpSampling2D()(tk.Input(shape=(7, 7, 16))).shape == (None, 14, 14, 16)


def test_upsampling_gradient_sums_each_block():
    x = tk.constant(np.arange(4.0).reshape(1, 2, 2, 1))
    w = np.arange(16.0).reshape(1, 4, 4, 1)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.reduce_sum(tk.layers.UpSampling2D(2)(x) * w)
    want = w.reshape(1, 2, 2, 2, 2, 1).sum(axis=(2, 4))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), want)


def test_upsampling_bad_arguments():
    with pytest.raises(NotImplementedError, match="interpolation='bilinear'"):
        tk.layers.UpSampling2D(interpolation="bilinear")
    with pytest.raises(ValueError, match="UpSampling2D: size must be a positive integer"):
        tk.layers.UpSampling2D(0)
