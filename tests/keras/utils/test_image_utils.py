"""img_to_array and array_to_img (utils/image_utils.py); Pillow is optional."""
import sys

import numpy as np
import pytest

import tapekit as tk

PIL = pytest.importorskip("PIL.Image")


def test_img_to_array_reads_images_and_arrays():
    rgb = PIL.fromarray(np.arange(12, dtype="uint8").reshape(2, 2, 3))
    x = tk.utils.img_to_array(rgb)
    assert x.dtype == np.float32 and x.shape == (2, 2, 3) and x.ravel().tolist() == list(range(12))
    gray = PIL.fromarray(np.arange(4, dtype="uint8").reshape(2, 2))
    assert tk.utils.img_to_array(gray).shape == (2, 2, 1)
    assert tk.utils.img_to_array(gray, data_format="channels_first").shape == (1, 2, 2)
    assert tk.utils.img_to_array(rgb, data_format="channels_first").shape == (3, 2, 2)
    assert tk.utils.img_to_array(rgb, dtype="uint8").dtype == np.uint8
    with pytest.raises(ValueError, match=r"Unsupported image shape: \(2,\)"):
        tk.utils.img_to_array(np.zeros(2))


def test_array_to_img_scales_and_picks_the_mode():
    image = tk.utils.array_to_img(np.array([[[0., .5, 1.]], [[1., .25, 0.]]]))
    assert image.mode == "RGB" and image.size == (1, 2)
    assert np.asarray(image).tolist() == [[[0, 127, 255]], [[255, 63, 0]]]
    assert tk.utils.array_to_img(np.zeros((2, 2, 4))).mode == "RGBA"
    unscaled = tk.utils.array_to_img(np.array([[[0.], [2.]]]), scale=False)
    assert unscaled.mode == "L" and np.asarray(unscaled).tolist() == [[0, 2]]
    assert tk.utils.array_to_img(np.array([[[0.], [300.]]]), scale=False).mode == "I"
    back = tk.utils.img_to_array(tk.utils.array_to_img(np.full((3, 2, 3), 7.0), scale=False))
    assert back.shape == (3, 2, 3) and (back == 7).all()


def test_array_to_img_refuses_bad_shapes():
    with pytest.raises(ValueError, match=r"to have rank 3 \(single image\). Got .* \(2, 2\)"):
        tk.utils.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Unsupported channel number: 2"):
        tk.utils.array_to_img(np.zeros((2, 2, 2)))


def test_without_pillow_array_to_img_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)       # import PIL now raises ImportError
    with pytest.raises(ImportError, match="array_to_img needs Pillow.*pip install pillow"):
        tk.utils.array_to_img(np.zeros((2, 2, 3)))
    assert tk.utils.img_to_array(np.zeros((2, 2))).shape == (2, 2, 1)   # needs no Pillow
