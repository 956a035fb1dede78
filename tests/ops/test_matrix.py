"""tapekit/ops/matrix.py: solve, inv, det, slogdet, norms, trace, diag, eye, matvec, tensordot,
l2_normalize: values and gradients by hand, and errors.
"""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads


A = [[2.0, 1.0], [1.0, 3.0]]   # det 5, inverse [[3, -1], [-1, 2]] / 5


def test_inv_solve_det_by_hand():
    a = tk.constant(A, tk.float64)
    np.testing.assert_allclose(tk.linalg.inv(a).numpy(), np.array([[3, -1], [-1, 2]]) / 5)
    assert float(tk.linalg.det(a)) == pytest.approx(5.0)
    x = tk.linalg.solve(a, tk.constant([[3.0, 1.0], [4.0, 1.0]], tk.float64))
    np.testing.assert_allclose(x.numpy(), [[1.0, 0.4], [1.0, 0.2]])
    at = tk.constant([[2.0, 0.0], [1.0, 1.0]], tk.float64)           # solve A^T x = rhs
    np.testing.assert_allclose(tk.linalg.solve(at, tk.constant([[2.0], [3.0]], tk.float64), adjoint=True).numpy(),
                               [[-0.5], [3.0]])
    sign, logdet = tk.linalg.slogdet(tk.constant([[0.0, 2.0], [3.0, 0.0]], tk.float64))
    assert float(sign) == -1.0 and float(logdet) == pytest.approx(math.log(6))
    with pytest.raises(ValueError, match="solve: rhs must have shape"):
        tk.linalg.solve(a, tk.constant([1.0, 2.0], tk.float64))
    with pytest.raises(ValueError, match="det: needs square matrices"):
        tk.linalg.det(tk.ones([2, 3]))


def test_inverse_gradient_rule_by_hand():
    # d/dA sum(inv(A)) = -inv(A)^T ones inv(A)^T
    w = tk.Variable(np.array(A))
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.linalg.inv(w))
    inv = np.array([[3, -1], [-1, 2]]) / 5
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), -inv.T @ np.ones((2, 2)) @ inv.T)


def test_det_gradient_is_det_times_the_inverse_transposed():
    w = tk.Variable(np.array(A))
    with tk.GradientTape() as tape:
        d = tk.linalg.det(w)
    inv = np.array([[3, -1], [-1, 2]]) / 5
    np.testing.assert_allclose(tape.gradient(d, w).numpy(), 5.0 * inv.T)


def test_a_singular_matrix_is_refused_with_the_fix():
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"inv: .*singular.*a \+ eps \* tk\.eye\(n\)"):
        tk.linalg.inv(tk.constant([[1.0, 2.0], [2.0, 4.0]]))


@pytest.mark.parametrize("f", [tk.linalg.inv, tk.linalg.det, lambda a: tk.linalg.slogdet(a)[1],
                               lambda a: tk.linalg.solve(a, tk.constant([[1.0], [2.0]], tk.float64)),
                               tk.linalg.trace, tk.norm, lambda a: tk.nn.l2_normalize(a, axis=0)])
def test_gradients_match_finite_differences_to_second_order(f):
    check_grads(f, np.array([[2.0, 0.5], [-0.3, 1.5]]), order=2)


def test_trace_diag_eye_matvec_tensordot():
    m = tk.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert float(tk.linalg.trace(m)) == 6.0
    np.testing.assert_array_equal(tk.linalg.diag_part(m).numpy(), [1.0, 5.0])
    np.testing.assert_array_equal(tk.linalg.diag(tk.constant([1.0, 2.0])).numpy(), [[1, 0], [0, 2]])
    np.testing.assert_array_equal(tk.eye(2, batch_shape=[3]).numpy(), np.broadcast_to(np.eye(2), (3, 2, 2)))
    assert tk.eye(3).dtype == tk.float32 and tk.linalg.eye is tk.eye
    np.testing.assert_array_equal(tk.linalg.matvec(m, tk.constant([1.0, 0.0, -1.0])).numpy(), [-2.0, -2.0])
    np.testing.assert_array_equal(tk.linalg.matvec(m, tk.constant([1.0, 1.0]), transpose_a=True).numpy(),
                                  [5.0, 7.0, 9.0])
    a, b = np.arange(24.0).reshape(2, 3, 4), np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(tk.tensordot(a, b, axes=[[1, 2], [1, 0]]).numpy(),
                               [sum(a[i, j, k] * b[k, j] for j in range(3) for k in range(4)) for i in range(2)])
    np.testing.assert_allclose(tk.linalg.tensordot(a, b, 1).numpy(), np.einsum("ijk,kl->ijl", a, b))
    with pytest.raises(ValueError, match="tensordot: contracted axes"):
        tk.tensordot(a, b, axes=[[0], [0]])


def test_norms_by_hand():
    v = tk.constant([3.0, -4.0])
    assert float(tk.norm(v)) == 5.0 and float(tk.norm(v, ord=1)) == 7.0 and float(tk.norm(v, ord=np.inf)) == 4.0
    assert float(tk.norm(v, ord=3)) == pytest.approx((27 + 64) ** (1 / 3), rel=1e-6)
    m = tk.constant([[1.0, -2.0], [3.0, -4.0]])
    assert float(tk.norm(m)) == pytest.approx(math.sqrt(30))                 # all elements
    assert float(tk.linalg.norm(m, ord="fro", axis=[0, 1])) == pytest.approx(math.sqrt(30))
    assert float(tk.norm(m, ord=1, axis=[-2, -1])) == 6.0                     # largest column sum
    assert float(tk.norm(m, ord=np.inf, axis=[-2, -1])) == 7.0                # largest row sum
    np.testing.assert_allclose(tk.norm(m, axis=1, keepdims=True).numpy(), [[math.sqrt(5)], [5.0]], rtol=1e-6)
    with pytest.raises(ValueError, match="norm: ord=2 is not supported for a matrix norm"):
        tk.norm(m, ord=2, axis=[0, 1])
    np.testing.assert_allclose(tk.nn.l2_normalize(m, axis=0).numpy(),
                               np.array([[1, -2], [3, -4]]) / np.array([math.sqrt(10), math.sqrt(20)]), rtol=1e-6)


# --- svd (values checked against TensorFlow 2.21) ---------------------------------------------------
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
