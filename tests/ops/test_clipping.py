"""tapekit/ops/clipping.py: clip_by_value keeps TensorFlow's dtype rules; clip_by_global_norm
with a norm that is not finite."""
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
