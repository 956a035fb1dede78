"""tapekit/ops/svd.py: tk.linalg.svd's values against TensorFlow 2.21 (up to the vectors' signs),
its errors, and its gradients: TensorFlow's numbers, by hand, and finite differences to second
order in both modes."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads


A32 = np.array([[0.2739233672618866, -0.46042656898498535], [-0.9180529713630676, -0.9669447541236877],
                [0.62654048204422, 0.8255111575126648]], np.float32)


def _same_up_to_column_signs(a, b, **tol):
    signs = np.sign(np.sum(a * b, axis=-2, keepdims=True))
    np.testing.assert_allclose(a, b * signs, **tol)


def test_svd_matches_tensorflow_up_to_signs():
    s, u, v = tk.linalg.svd(tk.constant(A32))
    assert s.dtype == u.dtype == v.dtype == tk.float32
    np.testing.assert_allclose(s.numpy(), [1.6953448, 0.514448], rtol=1e-6)     # TF's s
    # TF's u and v; a pair (u_i, v_i) may come with the other sign (LAPACK's, not Eigen's)
    _same_up_to_column_signs(u.numpy(), np.array([[-0.10795398, 0.97875404], [-0.78432095, -0.19159262],
                                                  [0.61088979, -0.07302403]]), rtol=1e-5, atol=1e-6)
    _same_up_to_column_signs(v.numpy(), np.array([[0.6330418, 0.7741175], [0.7741175, -0.6330418]]),
                             rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose((u * s) @ tk.transpose(v), A32, atol=1e-6)      # A = U diag(s) V^T
    assert tk.linalg.svd(tk.constant(A32), compute_uv=False).shape == (2,)
    s3, u3, v3 = tk.linalg.svd(tk.constant(A32), full_matrices=True)           # TF: (2,) (3, 3) (2, 2)
    assert (s3.shape, u3.shape, v3.shape) == ((2,), (3, 3), (2, 2))
    sb, ub, vb = tk.linalg.svd(tk.ones((2, 3, 4), tk.float64))                 # TF: (2, 3) (2, 3, 3) (2, 4, 3)
    assert (sb.shape, ub.shape, vb.shape, sb.dtype) == ((2, 3), (2, 3, 3), (2, 4, 3), tk.float64)
    assert tk.linalg.svd(tk.constant([[3.0, 4.0]], tk.float16), compute_uv=False).dtype == tk.float16


def test_svd_refuses_what_tensorflow_refuses():
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"needs matrices.*\(2,\)"):
        tk.linalg.svd(tk.constant([1.0, 2.0]))
    with pytest.raises(tk.errors.InvalidArgumentError, match="floating matrices.*int32"):
        tk.linalg.svd(tk.constant([[1, 2], [3, 4]]))
    x = tk.Variable(A32)
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.linalg.svd(x, full_matrices=True)[1] ** 2)
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        tape.gradient(y, x)


def test_svd_gradients_match_tensorflow():
    x = tk.Variable(A32)
    w = tk.constant([[0.37689346, -0.22215715], [-0.72980702, 0.44297668], [0.05070864, -0.37951624]])
    w2 = tk.constant([[-0.02832928, 0.77897567], [0.86808705, -0.28440961]])
    with tk.GradientTape(persistent=True) as tape:
        s, u, v = tk.linalg.svd(x)
        ys = tk.reduce_sum(s * tk.constant([1.0, 2.0]))
        yuv = tk.reduce_sum(tk.abs(u) * w) + tk.reduce_sum(tk.abs(v) * w2)   # signs do not matter
    np.testing.assert_allclose(tape.gradient(ys, x).numpy(),
                               [[1.447002, -1.3227535], [-0.7931383, -0.3645843], [0.2736604, 0.565355]],
                               rtol=1e-5)   # TF's numbers; by hand: U diag([1, 2]) V^T
    np.testing.assert_allclose(tape.gradient(yuv, x).numpy(),
                               [[-0.4917756, -0.7807304], [0.8473459, -0.2688187], [-0.3354045, 0.6097552]],
                               rtol=1e-4)   # TF's numbers


def test_svd_values_gradient_by_hand():
    # diag(3, 2): s = (3, 2), u = v = I (up to signs); ds_i / dA = u_i v_i^T: the diagonal's
    # entries, so d(s1 + 10 s2)/dA = diag(1, 10)
    x = tk.Variable([[3.0, 0.0], [0.0, 2.0]])
    with tk.GradientTape() as tape:
        s = tk.linalg.svd(x, compute_uv=False)
        y = s[0] + 10.0 * s[1]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[1, 0], [0, 10]], atol=1e-6)


@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (3, 3), (2, 4, 3)])
def test_svd_gradients_match_finite_differences(shape):
    rng = np.random.default_rng(sum(shape))
    m = rng.uniform(-1, 1, shape)
    k = min(shape[-2:])
    wu = rng.uniform(-1, 1, shape[:-2] + (shape[-2], k))
    wv = rng.uniform(-1, 1, shape[:-2] + (shape[-1], k))
    check_grads(lambda a: tk.linalg.svd(a)[0], m, order=2)
    check_grads(lambda a: tk.linalg.svd(a)[1] ** 2 * wu, m, order=2)   # u_ij^2: no sign
    check_grads(lambda a: tk.linalg.svd(a)[2] ** 2 * wv, m, order=2)
