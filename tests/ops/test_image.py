"""tk.image.resize (ops/image.py): TensorFlow 2.21's numbers, and its gradient."""
import numpy as np
import pytest

import tapekit as tk

X = np.arange(2 * 4 * 5 * 2, dtype="float32").reshape(2, 4, 5, 2) / 7.0


@pytest.mark.parametrize("size, method, first, total", [
    # TensorFlow 2.21's tf.image.resize(X, size, method) (antialias=False): its first 12
    # values and its sum
    ((3, 7), "bilinear", [0.2380952686071396, 0.3809524178504944, 0.40136057138442993,
                          0.5442177057266235, 0.6054422855377197, 0.7482994198799133,
                          0.80952388048172, 0.9523810148239136, 1.0136054754257202,
                          1.1564626693725586, 1.2176871299743652, 1.360544204711914],
     473.9999694824219),
    ((6, 8), "bilinear", [0.0, 0.1428571492433548, 0.125, 0.2678571343421936,
                          0.3035714328289032, 0.4464285671710968, 0.4821428656578064, 0.625,
                          0.660714328289032, 0.8035714626312256, 0.8392857313156128,
                          0.9821428656578064], 1083.4285888671875),
    ((3, 7), "nearest", [0.0, 0.1428571492433548, 0.2857142984867096, 0.4285714328289032,
                         0.2857142984867096, 0.4285714328289032, 0.5714285969734192,
                         0.7142857313156128, 0.8571428656578064, 1.0, 0.8571428656578064, 1.0],
     494.0),
])
def test_resize_gives_tensorflows_numbers(size, method, first, total):
    y = tk.image.resize(X, size, method=method).numpy()
    assert y.shape == (2, *size, 2) and y.dtype == np.float32
    np.testing.assert_allclose(y.ravel()[:12], first, rtol=1e-6, atol=1e-7)
    assert float(y.sum()) == pytest.approx(total, rel=1e-6)


def test_resize_a_small_image_as_tensorflow():
    image = np.array([0.0, 1.0, 2.0, 3.0], "float32").reshape(1, 2, 2, 1)
    # TensorFlow 2.21 gives [[0, .5, 1], [1, 1.5, 2], [2, 2.5, 3]] and [1, 1.25, 1.75, 2]
    np.testing.assert_allclose(tk.image.resize(image, [3, 3]).numpy().reshape(3, 3),
                               [[0, .5, 1], [1, 1.5, 2], [2, 2.5, 3]], atol=1e-7)
    np.testing.assert_allclose(tk.image.resize(image[0], [1, 4]).numpy().ravel(),
                               [1, 1.25, 1.75, 2], atol=1e-7)


def test_resize_dtypes_as_tensorflow():
    pixels = np.zeros((2, 2, 1), "uint8")
    # TensorFlow 2.21: bilinear gives float32 (for float64 inputs too), nearest keeps uint8
    assert tk.image.resize(pixels, [3, 3]).dtype == tk.float32
    assert tk.image.resize(pixels.astype("float64"), [3, 3]).dtype == tk.float32
    assert tk.image.resize(pixels, [3, 3], method="nearest").dtype == tk.uint8


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_resize_gradient_matches_finite_differences(method):
    x = tk.constant(np.random.default_rng(0).normal(size=(1, 3, 4, 2)).astype("float32"))
    w = np.cos(np.arange(1 * 5 * 3 * 2)).reshape(1, 5, 3, 2)
    theoretical, numerical = tk.test.compute_gradient(
        lambda v: tk.reduce_sum(tk.image.resize(v, [5, 3], method=method) * w), [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-3, atol=1e-3)
    # the bilinear map is linear: every input pixel's weights over the outputs sum to
    # out_size / in_size per axis when upsampling without clamping; here, check the total
    with tk.GradientTape() as tape:
        tape.watch(x)
        total = tk.reduce_sum(tk.image.resize(x, [8, 8], method=method))
    g = tape.gradient(total, x).numpy()
    assert g.sum() == pytest.approx(64 * 2, rel=1e-5)    # each output reads weights summing to 1


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(method="bicubic"), ValueError, "method must be one of"),
    (dict(antialias=True), NotImplementedError, "antialias"),
])
def test_resize_refuses_what_it_lacks(kwargs, error, message):
    with pytest.raises(error, match=message):
        tk.image.resize(X, [2, 2], **kwargs)


def test_resize_refuses_bad_shapes_and_sizes():
    with pytest.raises(ValueError, match=r"resize: images must have shape .* got shape \(4, 5\)"):
        tk.image.resize(np.zeros((4, 5)), [2, 2])
    with pytest.raises(ValueError, match="size must be two positive numbers"):
        tk.image.resize(X, [0, 2])
