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


# --- TensorFlow's spellings of a dtype (issue 45) ------------------------------------------
# tf.dtypes.as_dtype in TF 2.21 reads each of these as shown; NumPy reads "float" and Python's
# float as float64, which gave a silent float64 where TensorFlow computes in float32.
@pytest.mark.parametrize("spelling, expected", [
    ("float", "float32"), (float, "float32"), (bool, "bool"), ("half", "float16"),
    ("double", "float64"), (1, "float32"), (2, "float64"), (3, "int32"), (4, "uint8"),
    (5, "int16"), (6, "int8"), (8, "complex64"), (9, "int64"), (10, "bool"), (17, "uint16"),
    (18, "complex128"), (19, "float16"), (22, "uint32"), (23, "uint64"),
    (np.int64(9), "int64"), (np.float32, "float32"), (np.dtype("int16"), "int16")])
def test_tensorflows_spellings_of_a_dtype(spelling, expected):
    assert tk.dtypes.as_dtype(spelling) == np.dtype(expected)
    assert tk.zeros(2, dtype=spelling).dtype == np.dtype(expected)
    assert tk.cast([1.0], spelling).dtype == np.dtype(expected)


@pytest.mark.parametrize("spelling, message", [
    ("int", r"'int' is not a TensorFlow dtype .*tk\.int32"),
    (int, r"is not a TensorFlow dtype .*tk\.int32"),
    (complex, r"tk\.complex64 or tk\.complex128"),
    (7, r"DataType number for string, which tapekit does not have"),
    (14, r"DataType number for bfloat16"),
    (0, r"not a dtype nor a DataType number"), (99, r"not a dtype nor a DataType number"),
    (True, r"True is not a dtype"), ([1], r"\[1\] is not a dtype"),
    ("string", r"tapekit has no string tensors"), ("bfloat16", r"NumPy has no bfloat16")])
def test_spellings_tensorflow_refuses_are_refused_with_what_to_write(spelling, message):
    # TF 2.21 raises TypeError for every one of these ("Cannot convert the argument ...")
    with pytest.raises(TypeError, match=message):
        tk.dtypes.as_dtype(spelling)
