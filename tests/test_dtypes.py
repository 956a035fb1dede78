"""TensorFlow's numeric dtype names (tk.uint8, tk.int8, ...): NumPy dtypes under those names."""
import numpy as np
import pytest

import tapekit as tk


@pytest.mark.parametrize("name, np_name", [
    ("int8", "int8"), ("int16", "int16"), ("uint8", "uint8"), ("uint16", "uint16"),
    ("uint32", "uint32"), ("uint64", "uint64"), ("complex64", "complex64"),
    ("complex128", "complex128"), ("half", "float16"), ("double", "float64")])
def test_tensorflow_names(name, np_name):
    dtype = getattr(tk, name)
    assert dtype == np.dtype(np_name)
    assert tk.dtypes.as_dtype(name) == dtype          # the name as a string, as TF takes it
    assert tk.zeros((2,), dtype=dtype).dtype == dtype


def test_uint8_pixels_cast_and_range():
    pixels = tk.constant([0, 128, 255], dtype=tk.uint8)
    assert pixels.dtype == np.uint8
    np.testing.assert_allclose(tk.cast(pixels, tk.float32).numpy() / 255.0, [0, 128 / 255, 1])
    with pytest.raises(ValueError, match="does not fit in uint8"):
        tk.constant([256], dtype=tk.uint8)


def test_bfloat16_is_refused_clearly():
    with pytest.raises(TypeError, match="bfloat16 is not supported: NumPy has no bfloat16"):
        tk.dtypes.as_dtype("bfloat16")
    with pytest.raises(TypeError, match=r"tk.uint8, tk.int8"):
        tk.dtypes.as_dtype("not_a_dtype")
