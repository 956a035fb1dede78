"""Conv1D against a NumPy loop over windows (valid, same, causal; strides), and its gradients."""
import numpy as np
import pytest

import tapekit as tk


def np_conv1d(x, kernel, bias, stride, padding):
    k = kernel.shape[0]
    n = x.shape[1]
    if padding == "causal":
        x = np.pad(x, [(0, 0), (k - 1, 0), (0, 0)])
    elif padding == "same":
        out = -(-n // stride)
        total = max((out - 1) * stride + k - n, 0)
        x = np.pad(x, [(0, 0), (total // 2, total - total // 2), (0, 0)])   # extra on the right
    steps = (x.shape[1] - k) // stride + 1
    return np.stack([np.einsum("bkc,kcf->bf", x[:, t * stride:t * stride + k], kernel)
                     for t in range(steps)], 1) + bias


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
@pytest.mark.parametrize("stride", [1, 2])
def test_conv1d_matches_numpy(padding, stride):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 7, 3))
    layer = tk.layers.Conv1D(4, 3, strides=stride, padding=padding, dtype="float64")
    layer(x)
    kernel, bias = rng.normal(size=(3, 3, 4)), rng.normal(size=4)
    layer.set_weights([kernel, bias])
    want = np_conv1d(x, kernel, bias, stride, padding)
    got = layer(x)
    assert got.shape == want.shape == (2,) + layer.compute_output_shape((None, 7, 3))[1:]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_causal_output_does_not_see_the_future():
    x = np.zeros((1, 6, 1))
    x[0, 4, 0] = 1.0
    y = tk.layers.Conv1D(1, 3, padding="causal", kernel_initializer="ones")(x).numpy()[0, :, 0]
    np.testing.assert_array_equal(y, [0, 0, 0, 0, 1, 1])


def test_conv1d_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    layer = tk.layers.Conv1D(2, 2, padding="same", dtype="float64")
    x = tk.constant(rng.normal(size=(1, 5, 2)))
    w = rng.normal(size=(1, 5, 2))
    theoretical, numerical = tk.test.compute_gradient(lambda v: tk.reduce_sum(layer(v) * w), [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=1e-6)
    with tk.GradientTape() as tape:
        loss = tk.reduce_sum(layer(x) * w)
    g_kernel = tape.gradient(loss, layer.kernel).numpy()
    # d loss / d kernel[j, c, f] = sum_t xpad[t + j, c] * w[t, f], with 'same' padding 0 left, 1 right
    xpad = np.pad(x.numpy()[0], [(0, 1), (0, 0)])
    want = np.einsum("tjc,tf->jcf", np.stack([xpad[t:t + 2] for t in range(5)]), w[0])
    np.testing.assert_allclose(g_kernel, want, rtol=1e-12)


def test_conv1d_bad_arguments():
    with pytest.raises(ValueError, match="Conv1D: padding must be 'valid', 'same' or 'causal'"):
        tk.layers.Conv1D(2, 3, padding="full")
    with pytest.raises(ValueError, match=r"Conv1D: kernel_size must be a positive integer.*\(3, 3\)"):
        tk.layers.Conv1D(2, (3, 3))
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=4"):
        tk.layers.Conv1D(2, 3)(np.zeros((1, 4, 4, 1), np.float32))
