"""Window geometry shared by conv and pooling: TensorFlow's argument forms, the SAME rule's
pads, output sizes, padded images and the strided view of each window tap."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import windows


# --- TensorFlow's arguments -> explicit numbers ------------------------------------------------

@pytest.mark.parametrize("value, pair", [
    (2, (2, 2)), ([3], (3, 3)), ([2, 3], (2, 3)), ((2, 3), (2, 3)), ([1, 2, 3, 1], (2, 3)),
    (np.array([4, 5]), (4, 5)), (tk.constant([1, 2, 2, 1]), (2, 2)), (np.int64(3), (3, 3)),
])
def test_spatial_pair_reads_every_tensorflow_form(value, pair):
    got = windows.spatial_pair("op", "strides", value)
    assert got == pair and all(type(v) is int for v in got)


@pytest.mark.parametrize("value, words", [
    ([1, 2, 3], ["op: strides", "1, 2 or 4 ints", "[1, 2, 3]"]),
    ([2, 2, 2, 1], ["op: strides=[2, 2, 2, 1]", "batch or channel axis", "[1, h, w, 1]"]),
    (0, ["op: strides must be positive", "0"]),
    ([2, -1], ["must be positive"]),
    ("two", ["op: strides", "'two'"]),
])
def test_spatial_pair_errors_name_the_op_the_argument_and_the_value(value, words):
    with pytest.raises(ValueError) as err:
        windows.spatial_pair("op", "strides", value)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_padding_mode_is_case_insensitive_and_refuses_explicit_lists():
    assert windows.padding_mode("op", "same") == "SAME" and windows.padding_mode("op", "Valid") == "VALID"
    with pytest.raises(ValueError, match=r"op: padding must be 'VALID' or 'SAME', got \[\[0, 0\]\].*pad with tk ops"):
        windows.padding_mode("op", [[0, 0]])


def test_check_data_format_accepts_nhwc_and_says_how_to_convert_nchw():
    windows.check_data_format("op", "NHWC")
    with pytest.raises(ValueError, match=r"op: data_format 'NCHW'.*tk\.transpose\(x, \[0, 2, 3, 1\]\)"):
        windows.check_data_format("op", "NCHW")


@pytest.mark.parametrize("size, window, stride, pads", [
    (5, 3, 1, (1, 1)),     # out 5: total 2, split evenly
    (4, 2, 1, (0, 1)),     # out 4: total 1, the extra pixel after (bottom / right)
    (5, 3, 2, (1, 1)),     # out 3: (3 - 1) * 2 + 3 - 5 = 2
    (6, 3, 2, (0, 1)),     # out 3: (3 - 1) * 2 + 3 - 6 = 1
    (7, 1, 3, (0, 0)),     # out 3: (3 - 1) * 3 + 1 - 7 < 0: no padding
    (28, 5, 3, (2, 2)),    # out 10: 9 * 3 + 5 - 28 = 4
])
def test_same_pads_follow_tensorflows_rule(size, window, stride, pads):
    # TensorFlow: out = ceil(size / stride), total = max((out - 1) * stride + window - size, 0),
    # before = total // 2, after = the rest.
    out = -(-size // stride)
    total = max((out - 1) * stride + window - size, 0)
    expected = (total // 2, total - total // 2)
    got = windows.resolve_pads("op", "SAME", (size, size), (window, window), (stride, stride), "")
    assert got[:2] == expected == pads == got[2:]
    assert windows.out_size(size, window, stride, *got[:2]) == out


def test_valid_pads_are_zero_and_a_window_larger_than_the_image_is_refused():
    assert windows.resolve_pads("op", "VALID", (5, 4), (3, 2), (1, 1), "") == (0, 0, 0, 0)
    with pytest.raises(ValueError, match=r"op: the window 6x2 is larger than the input's 5x4 image "
                                         r"with padding 'VALID' \(input shape \(1, 5, 4, 1\)\)"):
        windows.resolve_pads("op", "VALID", (5, 4), (6, 2), (1, 1), "input shape (1, 5, 4, 1)")
    assert windows.resolve_pads("op", "SAME", (5, 4), (6, 2), (1, 1), "") == (2, 3, 0, 1)


def test_shape_of_reads_tensors_arrays_and_lists():
    assert windows.shape_of(tk.ones([2, 3])) == (2, 3)
    assert windows.shape_of(np.zeros((4, 1))) == (4, 1)
    assert windows.shape_of([[1, 2, 3]]) == (1, 3)


# --- sizes, padded images, the view of each tap -------------------------------------------------

def test_out_size_and_output_hw_by_hand():
    assert windows.out_size(28, 3, 2, 0, 0) == 13           # floor((28 - 3) / 2) + 1
    assert windows.out_size(28, 3, 2, 0, 1) == 14           # SAME
    assert windows.output_hw((7, 6), (3, 2), (2, 1), (1, 1, 0, 1)) == (4, 6)


def test_padded_places_the_image_and_fills_the_border():
    x = np.arange(4.0).reshape(1, 2, 2, 1)
    assert windows.padded(x, (0, 0, 0, 0)) is x             # no copy without padding
    xp = windows.padded(x, (1, 0, 0, 2), fill=-np.inf)
    assert xp.shape == (1, 3, 4, 1)
    np.testing.assert_array_equal(xp[0, :, :, 0], [[-np.inf] * 4, [0, 1, -np.inf, -np.inf],
                                                   [2, 3, -np.inf, -np.inf]])


def test_as_images_folds_leading_axes_into_the_batch():
    x = np.zeros((3, 2, 5, 4, 1))
    assert windows.as_images(x).shape == (6, 5, 4, 1)


def test_window_views_are_the_pixels_each_tap_meets():
    rng = np.random.default_rng(0)
    xp = rng.standard_normal((2, 6, 5, 3))
    window, strides = (3, 2), (2, 2)
    ho, wo = windows.output_hw((6, 5), window, strides, (0, 0, 0, 0))
    views = list(windows.window_views(xp, window, strides, (ho, wo)))
    assert [(a, b) for a, b, _ in views] == [(a, b) for a in range(3) for b in range(2)]
    for a, b, view in views:
        assert view.shape == (2, ho, wo, 3) and np.shares_memory(view, xp)   # views, not copies
        for i in range(ho):
            for j in range(wo):
                np.testing.assert_array_equal(view[:, i, j], xp[:, i * 2 + a, j * 2 + b])


@pytest.mark.parametrize("channels", [1, 3, 8])
def test_copy_pixels_copies_the_same_numbers_contiguous_or_strided(channels):
    rng = np.random.default_rng(1)
    src = rng.standard_normal((2, 4, 5, 2 * channels)).astype(np.float32)
    for source in (src[..., :channels], src[..., ::2], np.ascontiguousarray(src[..., ::2])):
        dst = np.zeros((2, 4, 5, channels), np.float32)
        windows.copy_pixels(dst, source)
        np.testing.assert_array_equal(dst, source)
    strided_dst = np.zeros((2, 4, 5, 2 * channels), np.float32)
    windows.copy_pixels(strided_dst[..., ::2], src[..., ::2])
    np.testing.assert_array_equal(strided_dst[..., ::2], src[..., ::2])
    assert not strided_dst[..., 1::2].any()


@pytest.mark.parametrize("strides", [(1, 1), (2, 3)])
def test_patch_rows_are_the_window_rows_each_output_pixel_reads(strides):
    xp = np.arange(2 * 9 * 10 * 3, dtype=np.float32).reshape(2, 9, 10, 3)
    window = (3, 2)
    out_hw = windows.output_hw((9, 10), window, strides, (0, 0, 0, 0))
    rows = windows.patch_rows(xp, window, strides, out_hw)
    assert rows.shape == (2,) + out_hw + (3, 2 * 3) and not rows.flags.writeable
    for n, i, j, a in np.ndindex(*rows.shape[:4]):
        r, c = i * strides[0] + a, j * strides[1]
        np.testing.assert_array_equal(rows[n, i, j, a], xp[n, r, c:c + 2].ravel())
    # pixels whose channels are not side by side cannot be read as runs
    assert windows.patch_rows(np.zeros((2, 9, 10, 6), np.float32)[..., ::2], window, strides, out_hw) is None
    assert windows.patch_rows(np.asfortranarray(xp), window, strides, out_hw) is None
