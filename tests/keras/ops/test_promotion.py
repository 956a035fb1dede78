"""Keras 3's dtype promotion (tapekit/keras/ops/promotion.py); the ops' answers are compared
with Keras's in the other files here, this checks the table itself."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import tapekit as tk
from tapekit.keras.ops.promotion import result_type, to_tensor

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "float16",
          "float32", "float64"]


@pytest.mark.parametrize("a, b, want", [
    # each pair as Keras 3.15 promotes it (keras.backend.result_type)
    ("int32", "float32", "float32"), ("int64", "float32", "float32"), ("int8", "uint8", "int16"),
    ("float16", "int32", "float16"), ("float32", "float64", "float64"), ("bool", "int8", "int8"),
    ("uint8", "int32", "int32"), ("int32", "int64", "int64"), ("bool", "float16", "float16"),
])
def test_two_arrays_promote_as_in_keras(a, b, want):
    assert result_type(np.ones(1, a), np.ones(1, b)) == np.dtype(want)


def test_a_python_number_is_weak():
    assert result_type(np.ones(1, "float16"), 2.5) == np.float16     # takes the float's width
    assert result_type(np.ones(1, "int8"), 3) == np.int8              # and the integer's
    assert result_type(np.ones(1, "int64"), 2.5) == np.float32        # an integer meets a float
    assert result_type(np.ones(1, "bool"), 1) == np.int32
    assert result_type(1, 2) == np.int32 and result_type(1, 2.0) == np.float32
    assert result_type(True) == np.bool_
    assert result_type(np.ones(1, "int32"), float) == np.float32      # `float`: a float result


@given(st.sampled_from(DTYPES), st.sampled_from(DTYPES))
def test_promotion_is_symmetric_and_keeps_a_dtype_with_itself(a, b):
    x, y = np.ones(1, a), np.ones(1, b)
    assert result_type(x, y) == result_type(y, x)
    assert result_type(x, x) == np.dtype(a)


def test_to_tensor_keeps_a_tensor_and_casts_only_when_asked():
    t = tk.constant([1.0, 2.0])
    assert to_tensor(t) is t and to_tensor(t, "float32") is t
    assert to_tensor(t, "float64").dtype == np.float64
    assert to_tensor(np.array([1.0])).dtype == np.float64      # a NumPy array keeps its dtype
    assert to_tensor([1, 2]).dtype == np.int32 and to_tensor(2.5).dtype == np.float32
