"""tapekit/ops/clipping.py: clip_by_value keeps TensorFlow's dtype rules; clip_by_global_norm
with a norm that is not finite; saturate_cast (a cast that clamps) against TensorFlow 2.21."""
import numpy as np
import pytest

import tapekit as tk


def test_clip_by_global_norm_of_an_infinite_norm_makes_every_entry_nan():
    # TF 2.21 gives [nan, nan], [nan] and norm inf: its scale is
    # clip_norm * min(1 / norm, 1 / clip_norm) + (norm - norm), and inf - inf is NaN.
    # tapekit gave [nan, 0.], [0.]: 1 / inf = 0 scaled the finite entries to 0, silently.
    clipped, norm = tk.clip_by_global_norm([tk.constant([np.inf, 1.0]), None, tk.constant([2.0])], 1.0)
    assert np.isinf(norm.numpy())
    assert np.isnan(clipped[0].numpy()).all() and np.isnan(clipped[2].numpy()).all()
    assert clipped[1] is None
    clipped, _ = tk.clip_by_global_norm([tk.constant([1.0]), tk.constant([2.0])], 1.0,
                                        use_norm=tk.constant(np.nan))
    assert np.isnan(clipped[0].numpy()).all() and np.isnan(clipped[1].numpy()).all()


def test_clip_by_global_norm_of_a_finite_norm_and_its_gradient_are_unchanged():
    # norm 5 > 1: c_i = x_i / |x|; the added (norm - norm) is 0 and passes no gradient.
    # y = sum(c): dy/dx_j = 1/|x| - x_j * sum(x) / |x|^3, at x = (3, 4):
    # 1/5 - 3 * 7/125 = 0.032 and 1/5 - 4 * 7/125 = -0.024.
    x = tk.Variable([3.0, 4.0])
    with tk.GradientTape() as tape:
        clipped, norm = tk.clip_by_global_norm([x], 1.0)
        y = tk.reduce_sum(clipped[0])
    np.testing.assert_allclose(clipped[0].numpy(), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.032, -0.024], rtol=1e-5)
    clipped, norm = tk.clip_by_global_norm([tk.constant([0.3]), tk.constant([0.4])], 1.0)   # below: kept
    assert clipped[0].numpy().tolist() == [np.float32(0.3)]
    np.testing.assert_allclose(float(norm), 0.5, rtol=1e-6)


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


# --- saturate_cast (values checked against TensorFlow 2.21) ------------------------------------------
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
