"""tapekit/ops/passthrough.py: saturate_cast (cast, identity and stop_gradient are tested in
tests/ops/test_conversion.py and the contracts). Values checked against TensorFlow 2.21."""
import numpy as np
import pytest

import tapekit as tk


def test_saturate_cast_clamps_as_tensorflow():
    got = tk.saturate_cast([-1.5, 300.0, 2.7, np.nan, np.inf], tk.uint8)
    assert got.dtype == tk.uint8 and got.numpy().tolist() == [0, 255, 2, 0, 255]   # TF: the same
    # float32 cannot hold 2**31 - 1: TF clamps to the largest float32 below it, 2147483520
    assert tk.saturate_cast([-1e12, 3e9, 2.7], tk.int32).numpy().tolist() == [-2147483648, 2147483520, 2]
    assert tk.saturate_cast(tk.constant([3e9, -3e9], tk.float64), tk.int32).numpy().tolist() == \
        [2147483647, -2147483648]
    assert tk.saturate_cast([1e6, -1e6, 1.0], tk.float16).numpy().tolist() == [65504, -65504, 1]
    assert tk.saturate_cast(tk.constant([-5, 300]), tk.uint8).numpy().tolist() == [0, 255]
    assert tk.saturate_cast(tk.constant([2**40, -2**40], tk.int64), tk.int32).numpy().tolist() == \
        [2147483647, -2147483648]
    big = tk.saturate_cast(tk.constant([1e300, -1e300], tk.float64), tk.float32)
    assert big.numpy().tolist() == [np.finfo(np.float32).max, -np.finfo(np.float32).max]
    assert tk.saturate_cast([1.7, -1.7], tk.int32).numpy().tolist() == [1, -1]     # truncates
    same = tk.saturate_cast(tk.constant([0.5, 2.0]), tk.float32)
    assert same.numpy().tolist() == [0.5, 2.0]


def test_saturate_cast_refuses_bool():
    with pytest.raises(TypeError, match="got float32 to bool"):
        tk.saturate_cast(tk.constant([1.0]), tk.bool)


def test_saturate_cast_gradient_is_zero_where_clamped():
    v = tk.Variable([1e6, -4.0, 70000.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.cast(tk.saturate_cast(v, tk.float16), tk.float32) * 3.0)
    # TF: [0. 1. 0.] for the cast alone: 0 where clamped (1e6, 70000 > 65504)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [0, 3, 0])
    w = tk.Variable(tk.constant([1.5, -2.0], tk.float64))
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.saturate_cast(w, tk.float32) ** 2)
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), [3.0, -4.0])
