"""tapekit/ops/clipping.py: clip_by_value keeps TensorFlow's dtype rules."""
import numpy as np
import pytest

import tapekit as tk


def test_clip_by_value_of_integers_by_integers_stays_integer():
    out = tk.clip_by_value(tk.constant([1, 5]), 2, 3)           # TF 2.21 gives int32 [2, 3]
    assert out.dtype == np.int32 and out.numpy().tolist() == [2, 3]
    out = tk.clip_by_value(tk.constant([1.0, 5.0]), 2, 3)       # weak ints take float32
    assert out.dtype == np.float32 and out.numpy().tolist() == [2.0, 3.0]


def test_clip_by_value_refuses_float_bounds_on_an_integer_tensor():
    # TF 2.21 raises "Cannot convert 1.5 to EagerTensor of dtype int32"; tapekit returned
    # float64 [1.5, 3.5]
    with pytest.raises(TypeError, match="clip_by_value: cannot combine a tensor of dtype int32"):
        tk.clip_by_value(tk.constant([1, 5]), 1.5, 3.5)
    # TF 2.21 raises for an int32 tensor with a float32 bound; tapekit gave float64 [2.0, 3.0]
    with pytest.raises(TypeError, match="clip_by_value: inputs have different dtypes int32 and float32"):
        tk.clip_by_value(tk.constant([1, 5]), tk.constant(2.0), 3)
