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


# --- flips, crops, pads, dtypes, colour, measures: TensorFlow 2.21's numbers ---------------------
IMG = np.arange(2 * 3 * 4 * 3, dtype=np.float32).reshape(2, 3, 4, 3) / 72.0
U8 = (np.arange(24).reshape(2, 4, 3) * 10).astype(np.uint8)


def test_flips_rotations_and_transpose_move_pixels_as_tf_does():
    six = np.arange(6.0, dtype=np.float32).reshape(3, 2, 1)
    assert tk.image.flip_left_right(six)[..., 0].numpy().tolist() == [[1, 0], [3, 2], [5, 4]]
    assert tk.image.flip_up_down(six)[..., 0].numpy().tolist() == [[4, 5], [2, 3], [0, 1]]
    batch = np.stack([six, six + 6])
    assert tk.image.flip_up_down(batch)[1, :, :, 0].numpy().tolist() == [[10, 11], [8, 9], [6, 7]]
    # TF 2.21: tf.image.rot90(IMG[0], k=1)[:, :, 0]
    np.testing.assert_allclose(tk.image.rot90(IMG[0], k=1)[:, :, 0].numpy(),
                               [[0.125, 0.29166666, 0.45833334], [0.08333334, 0.25, 0.41666666],
                                [0.04166667, 0.20833333, 0.375], [0.0, 0.16666667, 0.33333334]],
                               rtol=1e-6)
    for k in range(5):   # k quarter turns, as NumPy turns the (height, width) plane
        np.testing.assert_array_equal(tk.image.rot90(IMG, k=k).numpy(), np.rot90(IMG, k, axes=(1, 2)))
    np.testing.assert_array_equal(tk.image.transpose(IMG).numpy(), IMG.transpose(0, 2, 1, 3))
    with pytest.raises(ValueError, match=r"flip_left_right: 'image' \(shape \(2, 2\)\) must be"):
        tk.image.flip_left_right(np.zeros((2, 2)))


def test_crop_pad_and_central_crop_take_tfs_boxes():
    crop = tk.image.crop_to_bounding_box(IMG, 1, 1, 2, 2)
    np.testing.assert_array_equal(crop.numpy(), IMG[:, 1:3, 1:3])
    padded = tk.image.pad_to_bounding_box(np.ones((1, 1, 1), np.float32), 1, 2, 3, 4)
    assert padded[..., 0].numpy().tolist() == [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
    assert tk.image.pad_to_bounding_box(IMG, 1, 2, 5, 7).shape == (2, 5, 7, 3)
    # TF 2.21's shapes; and (5, 7) at 0.3 keeps rows 1..3, columns 2..4
    shapes = [tk.image.central_crop(IMG[0], 0.5).shape, tk.image.central_crop(IMG, 0.5).shape,
              tk.image.central_crop(np.zeros((5, 7, 1)), 0.3).shape,
              tk.image.central_crop(np.zeros((6, 9, 1)), 0.5).shape]
    assert shapes == [(3, 2, 3), (2, 3, 2, 3), (3, 3, 1), (4, 5, 1)]
    grid = np.arange(35.0).reshape(5, 7, 1)
    assert tk.image.central_crop(grid, 0.3)[..., 0].numpy().tolist() == [[9, 10, 11], [16, 17, 18],
                                                                          [23, 24, 25]]
    with pytest.raises(ValueError, match=r"does not fit in an image of height 3 and width 4"):
        tk.image.crop_to_bounding_box(IMG, 2, 2, 2, 3)
    with pytest.raises(ValueError, match=r"does not fit in 3 x 5"):
        tk.image.pad_to_bounding_box(IMG, 1, 2, 3, 5)
    with pytest.raises(ValueError, match=r"target_width must be > 0, got 0"):
        tk.image.crop_to_bounding_box(IMG, 0, 0, 1, 0)
    with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\], got 0.0"):
        tk.image.central_crop(IMG, 0.0)


def test_a_crop_sends_the_gradient_to_the_pixels_it_kept():
    x = tk.Variable(IMG)
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.image.crop_to_bounding_box(tk.image.flip_left_right(x), 1, 1, 2, 2))
    g = tape.gradient(y, x).numpy()
    expected = np.zeros_like(IMG)
    expected[:, 1:3, 1:3] = 1.0            # columns 1, 2 of the flipped image are 2, 1 of x
    np.testing.assert_array_equal(g, expected)


@pytest.mark.parametrize("image, dtype, saturate, expected", [
    # TF 2.21's tf.image.convert_image_dtype
    (U8.ravel()[:4], "float32", False, [0.0, 0.03921569, 0.07843138, 0.11764707]),
    (np.array([0.0, 0.5, 0.999, 1.0], np.float32), "uint8", False, [0, 127, 255, 255]),
    (np.array([0.0, 0.5, 0.999, 1.0, 1.2, -0.1], np.float32), "uint8", True, [0, 127, 255, 255, 255, 0]),
    (U8.ravel()[:3], "int32", False, [0, 83886080, 167772160]),
    (np.array([0, 2**30, 2**31 - 1], np.int32), "uint8", False, [0, 128, 255]),
    (np.array([0.5, 2.0], np.float32), "float64", False, [0.5, 2.0]),
    (np.array([255, 1], np.uint8), "float16", False, [1.0, 0.00392]),
])
def test_convert_image_dtype_gives_tfs_pixels(image, dtype, saturate, expected):
    out = tk.image.convert_image_dtype(image, dtype, saturate=saturate)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-3 if dtype == "float16" else 1e-6)


def test_convert_image_dtype_refuses_what_tf_wraps_around():
    # TF 2.21 gives 50 and 231 for 1.2 and -0.1 into uint8, and -2147483648 for 1.0 into int32
    with pytest.raises(ValueError, match=r"uint8 .*outside 0..255; TensorFlow wraps .* saturate=True"):
        tk.image.convert_image_dtype(np.array([1.2, -0.1], np.float32), tk.uint8)
    with pytest.raises(ValueError, match=r"outside -2147483648..2147483647"):
        tk.image.convert_image_dtype(np.array([1.0], np.float32), tk.int32)
    assert tk.image.convert_image_dtype(np.array([1.0], np.float32), tk.int32,
                                        saturate=True).numpy().tolist() == [2147483520]   # TF 2.21
    with pytest.raises(TypeError, match="floating or integer pixels, got dtype bool"):
        tk.image.convert_image_dtype(np.array([True]), tk.float32)


def test_grayscale_brightness_and_standardization_give_tfs_numbers():
    # TF 2.21: tf.image.rgb_to_grayscale, adjust_brightness, per_image_standardization
    np.testing.assert_allclose(tk.image.rgb_to_grayscale(IMG[0]).numpy().ravel()[:5],
                               [0.01131945, 0.05298195, 0.09464445, 0.13630696, 0.17796946], rtol=1e-6)
    gray = tk.image.rgb_to_grayscale(U8)
    assert gray.dtype == np.uint8 and gray.numpy().ravel()[:6].tolist() == [8, 38, 68, 98, 128, 158]
    np.testing.assert_allclose(tk.image.rgb_to_grayscale(np.array([[[0.2, 0.4, 0.6]]])).numpy(),
                               [[[0.36298001]]], rtol=1e-7)
    assert tk.image.grayscale_to_rgb(np.full((1, 1, 1), 0.5, np.float32)).numpy().tolist() == [[[0.5] * 3]]
    bright = tk.image.adjust_brightness(U8, 0.1)
    assert bright.dtype == np.uint8 and bright.numpy().ravel()[:4].tolist() == [25, 35, 45, 55]
    np.testing.assert_allclose(tk.image.adjust_brightness(IMG, 0.1).numpy().ravel()[:2],
                               [0.1, 0.11388889], rtol=1e-6)
    std = tk.image.per_image_standardization(IMG[0])
    np.testing.assert_allclose(std.numpy().ravel()[:4], [-1.4583333, -1.3749999, -1.2916666, -1.2083333],
                               rtol=1e-6)
    assert tk.image.per_image_standardization(U8).dtype == np.float32
    assert tk.image.per_image_standardization(np.ones((2, 2, 1), np.float32)).numpy().ravel().tolist() == [0] * 4
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"must have size 3, got shape \(2, 2, 4\)"):
        tk.image.rgb_to_grayscale(np.zeros((2, 2, 4), np.float32))


def test_total_variation_and_psnr_give_tfs_numbers_and_gradients():
    np.testing.assert_allclose(tk.image.total_variation(IMG).numpy(), [5.125, 5.125], rtol=1e-6)
    assert float(tk.image.total_variation(np.array([[[1.0], [3.0]], [[0.0], [5.0]]], np.float32))) == 10.0
    np.testing.assert_allclose(tk.image.psnr(IMG, IMG * 0.9, max_val=1.0).numpy(), [30.974895, 22.418839],
                               rtol=1e-6)
    u8 = tk.image.psnr(np.array([[[10]]], np.uint8), np.array([[[12]]], np.uint8), 255)
    assert u8.dtype == np.float32 and abs(float(u8) - 42.1102) < 1e-3     # max_val 255 is 1.0
    assert np.isinf(tk.image.psnr(IMG, IMG, 1.0).numpy()).all()
    x = tk.Variable(IMG)
    weights = np.arange(72, dtype=np.float32).reshape(2, 3, 4, 3)
    with tk.GradientTape(persistent=True) as tape:
        tv = tk.reduce_sum(tk.image.total_variation(x))
        ratio = tk.reduce_sum(tk.image.psnr(x, IMG * 0.9, 1.0))
        standard = tk.reduce_sum(tk.image.per_image_standardization(x) * weights)
    # TF 2.21's gradients, first values
    np.testing.assert_allclose(tape.gradient(tv, x).numpy().ravel()[:6], [-2, -2, -2, -1, -1, -1])
    np.testing.assert_allclose(tape.gradient(ratio, x).numpy().ravel()[:3], [0.0, -0.41943908, -0.83887815],
                               rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(standard, x).numpy().ravel()[:3], [-105.0, -99.0, -93.0],
                               rtol=1e-5)


def test_standardization_and_grayscale_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    x0 = rng.uniform(0.1, 0.9, (1, 3, 2, 3)).astype(np.float64)
    for f in (lambda x: tk.image.per_image_standardization(x) * np.arange(18.0).reshape(1, 3, 2, 3),
              lambda x: tk.image.central_crop(tk.image.rot90(x, 3), 0.6)):
        x = tk.Variable(x0)
        with tk.GradientTape() as tape:
            y = tk.reduce_sum(f(x))
        g = tape.gradient(y, x).numpy()
        eps, numeric = 1e-6, np.zeros_like(x0)
        for i in np.ndindex(x0.shape):
            up, down = x0.copy(), x0.copy()
            up[i] += eps
            down[i] -= eps
            numeric[i] = (float(tk.reduce_sum(f(tk.constant(up)))) - float(tk.reduce_sum(f(tk.constant(down))))) / (2 * eps)
        np.testing.assert_allclose(g, numeric, rtol=1e-4, atol=1e-5)

    # rgb_to_grayscale computes in float32 as TF does (too coarse for differences): by hand,
    # d(3 * gray)/d(pixel) is 3 times the channel's weight
    x = tk.Variable(x0)
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.image.rgb_to_grayscale(x) * 3.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.broadcast_to(
        3 * np.array([0.2989, 0.5870, 0.1140]), x0.shape), rtol=1e-6)


def test_resize_method_names_are_tfs_and_resize_takes_the_two_it_has():
    assert (tk.image.ResizeMethod.BILINEAR, tk.image.ResizeMethod.NEAREST_NEIGHBOR) == ("bilinear", "nearest")
    out = tk.image.resize(X, (3, 7), method=tk.image.ResizeMethod.NEAREST_NEIGHBOR)
    np.testing.assert_array_equal(out.numpy(), tk.image.resize(X, (3, 7), method="nearest").numpy())
    with pytest.raises(ValueError, match="method must be one of .* got 'bicubic'"):
        tk.image.resize(X, (3, 7), method=tk.image.ResizeMethod.BICUBIC)


def test_convert_image_dtype_refuses_the_overflow_at_every_replay_of_a_tk_function():
    # The check is the op's own: read in Python it ran at the trace only, and a replay of
    # f([1.2, 0.2]) gave TF's wrapped [50, 51]
    f = tk.function(lambda x: tk.image.convert_image_dtype(x, tk.uint8))
    assert f(tk.constant([0.5, 0.2])).numpy().tolist() == [127, 51]
    with pytest.raises(ValueError, match=r"reach 51.1..306.6, outside 0..255"):
        f(tk.constant([1.2, 0.2]))
    assert f.trace_count == 1
