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
