"""tk.linalg.svd: the singular value decomposition A = U diag(s) V^T, as three ops (s, u, v)
whose derivatives are written beside them.

A loss that reads s, u and v gets the three ops' shares of the derivative added, which is the
whole derivative: each share is the part that flows through one output.
"""
import numpy as np

from ..errors import InvalidArgumentError
from .conversion import convert_to_tensor
from .matrix import diag_part_op
from .registry import defop
from .selection import where
from .shapes import expand_dims_op, swapaxes_last2


# A = U diag(s) V^T, with k = min(m, n) singular values. With P = U^T dA V and
# F[i, j] = 1 / (s_j^2 - s_i^2) off the diagonal (0 on it), forwards:
#   ds = diag(P)
#   dU = U (F o (P S + S P^T)) + (dA V - U P) S^-1
#   dV = V (F o (S P + P^T S)) + (dA^T U - V P^T) S^-1
# and, backwards, for cotangents gs, gU, gV:
#   from s:  U diag(gs) V^T
#   from U:  U (F o (U^T gU - gU^T U)) S V^T + (gU - U U^T gU) S^-1 V^T
#   from V:  U S (F o (V^T gV - gV^T V)) V^T + U S^-1 (gV - V V^T gV)^T
# Repeated singular values make F infinite (the vectors are not unique there): NaN, as in
# TensorFlow. Written with tapekit ops, so the rules can be differentiated again.
def _svd(x, full_matrices=False):
    if x.dtype == np.float16:
        u, s, vh = np.linalg.svd(x.astype(np.float32), full_matrices=full_matrices)
        return u.astype(x.dtype), s.astype(x.dtype), vh.astype(x.dtype)
    return np.linalg.svd(x, full_matrices=full_matrices)


def _svd_factors(x):
    """(U, s, V) of the thin decomposition of x, as recorded ops (plain arrays in raw mode)."""
    return svd_u_op(x, full_matrices=False), svd_s_op(x), svd_v_op(x, full_matrices=False)


def _f_matrix(s):
    s2 = s * s
    diff = expand_dims_op(s2, axis=-2) - expand_dims_op(s2, axis=-1)    # [i, j]: s_j^2 - s_i^2
    eye = np.eye(s.shape[-1], dtype=bool)
    one = np.ones((), s.dtype)
    return where(eye, np.zeros((), s.dtype), one / where(eye, one, diff))


def _no_full_gradient(what, x, full_matrices):
    if full_matrices and x.shape[-1] != x.shape[-2]:
        raise NotImplementedError(
            f"svd: the gradient through {what} of a full decomposition of non-square matrices "
            f"(shape {tuple(x.shape)}) is not supported: its extra columns are not determined "
            f"by the matrix. Use full_matrices=False (the first min(m, n) columns)")


def _svd_s_vjp(g, ans, x):
    u, _, v = _svd_factors(x)
    return (u * expand_dims_op(g, axis=-2)) @ swapaxes_last2(v)


def _svd_s_jvp(t, ans, x):
    u, _, v = _svd_factors(x)
    return diag_part_op(swapaxes_last2(u) @ t @ v)


def _svd_u_vjp(g, ans, x, full_matrices):
    _no_full_gradient("u", x, full_matrices)
    u, s, v = _svd_factors(x)
    utg = swapaxes_last2(u) @ g
    inner = _f_matrix(s) * (utg - swapaxes_last2(utg)) * expand_dims_op(s, axis=-2)
    rest = (g - u @ utg) / expand_dims_op(s, axis=-2)
    return (u @ inner + rest) @ swapaxes_last2(v)


def _svd_v_vjp(g, ans, x, full_matrices):
    _no_full_gradient("v", x, full_matrices)
    u, s, v = _svd_factors(x)
    vtg = swapaxes_last2(v) @ g
    inner = expand_dims_op(s, axis=-1) * (_f_matrix(s) * (vtg - swapaxes_last2(vtg)))
    rest = swapaxes_last2(g - v @ vtg) / expand_dims_op(s, axis=-1)
    return u @ (inner @ swapaxes_last2(v) + rest)


def _svd_u_jvp(t, ans, x, full_matrices):
    _no_full_gradient("u", x, full_matrices)
    u, s, v = _svd_factors(x)
    p = swapaxes_last2(u) @ t @ v
    ps = p * expand_dims_op(s, axis=-2)
    return u @ (_f_matrix(s) * (ps + swapaxes_last2(ps))) + (t @ v - u @ p) / expand_dims_op(s, axis=-2)


def _svd_v_jvp(t, ans, x, full_matrices):
    _no_full_gradient("v", x, full_matrices)
    u, s, v = _svd_factors(x)
    p = swapaxes_last2(u) @ t @ v
    sp = expand_dims_op(s, axis=-1) * p
    return v @ (_f_matrix(s) * (sp + swapaxes_last2(sp))) + \
        (swapaxes_last2(t) @ u - v @ swapaxes_last2(p)) / expand_dims_op(s, axis=-2)


svd_s_op = defop("svd_s", lambda x: _svd(x)[1], save="x", vjp=[_svd_s_vjp], jvp=[_svd_s_jvp],
                 doc="The singular values of each matrix, largest first (svd's s).")
svd_u_op = defop("svd_u", lambda x, full_matrices: _svd(x, full_matrices)[0], save="x",
                 vjp=[_svd_u_vjp], jvp=[_svd_u_jvp],
                 doc="The left singular vectors of each matrix, as columns (svd's u).")
svd_v_op = defop("svd_v", lambda x, full_matrices: np.swapaxes(_svd(x, full_matrices)[2], -1, -2),
                 save="x", vjp=[_svd_v_vjp], jvp=[_svd_v_jvp],
                 doc="The right singular vectors of each matrix, as columns (svd's v).")


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """The singular value decomposition of each matrix (the last two axes) of `tensor`
    (`tf.linalg.svd`): `s, u, v` with tensor = u @ diag(s) @ v^T, in TensorFlow's order (s
    first; NumPy gives u, s, vh with vh = v^T). s holds the min(m, n) singular values,
    largest first; u and v their vectors as columns: m x k and n x k, or m x m and n x n
    with full_matrices=True. With compute_uv=False, s alone.

    Each pair of columns (u_i, v_i) is determined up to a common sign: tapekit's are
    LAPACK's (NumPy's), and can have the opposite sign of TensorFlow's. The singular values,
    u @ diag(s) @ v^T, and anything that does not depend on those signs match.

    >>> s, u, v = tk.linalg.svd(tk.constant([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]]))
    >>> s
    tk.Tensor([3. 2.], shape=(2,), dtype=float32)
    >>> u.shape, v.shape
    ((3, 2), (2, 2))
    >>> tk.linalg.svd(tk.constant([[3.0, 4.0]]), compute_uv=False)     # the vector's length
    tk.Tensor([5.], shape=(1,), dtype=float32)
    """
    x = tensor if hasattr(tensor, "_value") else convert_to_tensor(tensor)
    if x.ndim < 2:
        raise InvalidArgumentError(f"svd: needs matrices (..., m, n), got shape {tuple(x.shape)}")
    if x.dtype.kind != "f":
        raise InvalidArgumentError(f"svd: needs floating matrices (float16, float32, float64), "
                                   f"got {x.dtype.name}; cast first: tk.cast(x, tk.float32)")
    full = bool(full_matrices)
    s = svd_s_op(x)
    if not compute_uv:
        return s
    return s, svd_u_op(x, full_matrices=full), svd_v_op(x, full_matrices=full)
