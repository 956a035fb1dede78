"""tk.linalg beyond matmul: solve, inv, det, slogdet, trace, diag, diag_part, eye, matvec, norm,
l2_normalize, tensordot. Matrices are the last two axes; leading axes are a stack of them.

Rules (A the matrix, x = A^-1 b the solution, g the output's cotangent, ^T the last two axes
swapped): inv: -A^-T g A^-T; solve: rhs gets solve(A^T, g), A gets -solve(A^T, g) x^T;
det: g det(A) A^-T. They are written with tapekit ops, so second derivatives work.

Examples (an object's reference entry shows the paragraphs that name it):

>>> a = tk.constant([[2.0, 1.0], [1.0, 3.0]])
>>> tk.linalg.det(a)
tk.Tensor(5.0, shape=(), dtype=float32)
>>> tk.linalg.inv(a)
tk.Tensor(
[[ 0.6 -0.2]
 [-0.2  0.4]], shape=(2, 2), dtype=float32)
>>> tk.linalg.solve(a, tk.constant([[3.0], [4.0]]))       # a @ x = rhs
tk.Tensor(
[[1.]
 [1.]], shape=(2, 1), dtype=float32)
>>> tk.linalg.trace(a), tk.linalg.diag_part(a)
(tk.Tensor(5.0, shape=(), dtype=float32), tk.Tensor([2. 3.], shape=(2,), dtype=float32))
>>> tk.linalg.diag(tk.constant([1.0, 2.0]))
tk.Tensor(
[[1. 0.]
 [0. 2.]], shape=(2, 2), dtype=float32)
>>> tk.linalg.matvec(a, tk.constant([1.0, 1.0]))
tk.Tensor([3. 4.], shape=(2,), dtype=float32)
>>> tk.norm(tk.constant([3.0, 4.0]))
tk.Tensor(5.0, shape=(), dtype=float32)
>>> tk.math.l2_normalize(tk.constant([3.0, 4.0]))
tk.Tensor([0.6 0.8], shape=(2,), dtype=float32)
>>> tk.tensordot(tk.ones([2, 3]), tk.ones([3, 4]), axes=1).shape
(2, 4)

>>> w = tk.Variable([[2.0, 1.0], [1.0, 3.0]])
>>> with tk.GradientTape() as tape:
...     y = tk.linalg.det(w)
>>> tape.gradient(y, w)                 # det(w) * inv(w)^T: the cofactors
tk.Tensor(
[[ 3. -1.]
 [-1.  2.]], shape=(2, 2), dtype=float32)
"""
import math

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap_array
from .arithmetic import abs, pow, rsqrt, sqrt, square
from .linalg import matmul
from .reductions import reduce_max, reduce_sum, reduce_sum_op
from .conversion import convert_to_tensor
from .inputs import as_int
from .registry import defop
from .selection import maximum
from .shapes import expand_dims_op, reshape, squeeze, swapaxes_last2, transpose


def _t(x):
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def _expand2(g):
    return expand_dims_op(expand_dims_op(g, axis=-1), axis=-1)


def _check_square(what, x):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{what}: needs square matrices (..., n, n), got shape {x.shape}")


# --- inverse, solve, determinant ----------------------------------------------------------------
_SINGULAR = ("a matrix is singular (not invertible; TensorFlow says 'Input is not invertible'). "
             "det's and slogdet's gradients need the inverse too. Check the matrix, or add a "
             "small multiple of the identity (a + eps * tk.eye(n)) if it is nearly singular")


def _inv(x):
    # np.linalg.inv's LinAlgError, here also where a backward pass calls it on plain arrays
    # (det's gradient at a singular matrix): TensorFlow's InvalidArgumentError, one message.
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(_SINGULAR) from None


def _solve(a, b):
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(_SINGULAR) from None


inv_op = defop("inv", _inv, save="ans",
               vjp=[lambda g, ans, x: -(swapaxes_last2(ans) @ g @ swapaxes_last2(ans))],
               jvp=[lambda t, ans, x: -(ans @ t @ ans)],
               doc="The inverse of each square matrix.")


def _solve_vjp_rhs(g, ans, a, rhs):
    return solve_op(swapaxes_last2(a), g)


solve_op = defop(
    "solve", _solve, args="matrix rhs", save="matrix ans", same_dtype=True,
    vjp=[lambda g, ans, a, rhs: -(_solve_vjp_rhs(g, ans, a, rhs) @ swapaxes_last2(ans)), _solve_vjp_rhs],
    jvp=[lambda t, ans, a, rhs: -solve_op(a, t @ ans), lambda t, ans, a, rhs: solve_op(a, t)],
    doc="x with matrix @ x = rhs, for rhs of shape (..., n, k).")

det_op = defop("det", np.linalg.det, save="x ans",
               vjp=[lambda g, ans, x: _expand2(g * ans) * swapaxes_last2(inv_op(x))],
               jvp=[lambda t, ans, x: ans * reduce_sum_op(swapaxes_last2(inv_op(x)) * t, axis=(-2, -1),
                                                          keepdims=False)],
               doc="The determinant of each square matrix.")

log_abs_det_op = defop("log_abs_det", lambda x: np.linalg.slogdet(x)[1], save="x",
                       vjp=[lambda g, ans, x: _expand2(g) * swapaxes_last2(inv_op(x))],
                       jvp=[lambda t, ans, x: reduce_sum_op(swapaxes_last2(inv_op(x)) * t, axis=(-2, -1),
                                                            keepdims=False)],
                       doc="log abs(det) of each square matrix (slogdet's second output).")
det_sign_op = defop("det_sign", lambda x: np.linalg.slogdet(x)[0],
                    doc="The sign of each determinant (slogdet's first output; no gradient).")


def inv(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of each square matrix (`tf.linalg.inv`); a singular one raises.

    >>> tk.linalg.inv(tk.constant([[2.0, 0.0], [0.0, 4.0]]))
    tk.Tensor(
    [[0.5  0.  ]
     [0.   0.25]], shape=(2, 2), dtype=float32)
    """
    x = _t(input)
    _check_square("inv", x)
    return inv_op(swapaxes_last2(x) if adjoint else x)


def solve(matrix, rhs, adjoint=False, name=None):
    """x with matrix @ x = rhs (`tf.linalg.solve`); rhs is (..., n, k): a column per system.

    >>> tk.linalg.solve(tk.constant([[2.0, 0.0], [0.0, 4.0]]), tk.constant([[1.0], [1.0]]))
    tk.Tensor(
    [[0.5 ]
     [0.25]], shape=(2, 1), dtype=float32)
    """
    a, b = _t(matrix), _t(rhs)
    _check_square("solve", a)
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"solve: rhs must have shape (..., {a.shape[-1]}, k) for matrix shape "
                         f"{a.shape}, got {b.shape}; for one vector use tk.expand_dims(rhs, -1)")
    return solve_op(swapaxes_last2(a) if adjoint else a, b)


def det(input, name=None):  # noqa: A002
    """The determinant of each square matrix (`tf.linalg.det`).

    >>> tk.linalg.det(tk.constant([[[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 2.0]]]))  # a stack
    tk.Tensor([-2.  4.], shape=(2,), dtype=float32)
    """
    x = _t(input)
    _check_square("det", x)
    return det_op(x)


def slogdet(input, name=None):  # noqa: A002
    """(sign, log abs(det)) of each square matrix (`tf.linalg.slogdet`), without overflow.

    >>> sign, logdet = tk.linalg.slogdet(tk.constant([[0.0, 2.0], [3.0, 0.0]]))
    >>> sign, logdet
    (tk.Tensor(-1.0, shape=(), dtype=float32), tk.Tensor(1.7917595, shape=(), dtype=float32))
    """
    x = _t(input)
    _check_square("slogdet", x)
    return det_sign_op(x), log_abs_det_op(x)


# --- diagonals and traces --------------------------------------------------------------------------
def _diag(x, num_rows, num_cols):
    out = np.zeros(x.shape[:-1] + (num_rows, num_cols), x.dtype)
    k = np.arange(x.shape[-1])
    out[..., k, k] = x
    return out


trace_op = defop("trace", lambda x: np.trace(x, axis1=-2, axis2=-1),
                 vjp=[lambda g, ans, x: _expand2(g) * np.eye(x.shape[-2], x.shape[-1], dtype=g.dtype)],
                 jvp=[lambda t, ans, x: trace_op(t)],
                 doc="The sum of each matrix's diagonal.")
diag_part_op = defop("diag_part", lambda x: np.diagonal(x, axis1=-2, axis2=-1).copy(),
                     vjp=[lambda g, ans, x: matrix_diag_op(g, num_rows=x.shape[-2], num_cols=x.shape[-1])],
                     jvp=[lambda t, ans, x: diag_part_op(t)],
                     doc="The main diagonal of each matrix.")
matrix_diag_op = defop("matrix_diag", _diag,
                       vjp=[lambda g, ans, x, num_rows, num_cols: diag_part_op(g)],
                       jvp=[lambda t, ans, x, **size: matrix_diag_op(t, **size)],
                       doc="Matrices of zeros with x on the main diagonal.")


def trace(x, name=None):
    """The sum of the main diagonal of each matrix (`tf.linalg.trace`).

    >>> tk.linalg.trace(tk.constant([[1.0, 2.0], [3.0, 4.0]]))
    tk.Tensor(5.0, shape=(), dtype=float32)
    """
    x = _t(x)
    if x.ndim < 2:
        raise ValueError(f"trace: needs matrices (..., m, n), got shape {x.shape}")
    return trace_op(x)


def _only_main_diagonal(what, k, padding_value):
    if k != 0 or padding_value != 0:
        raise ValueError(f"{what}: only the main diagonal (k=0, padding_value=0) is supported, "
                         f"got k={k!r}, padding_value={padding_value!r}")


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with `diagonal` (..., n) on their main diagonal (`tf.linalg.diag`, k=0 only).

    >>> tk.linalg.diag(tk.constant([1, 2]), num_rows=2, num_cols=3)
    tk.Tensor(
    [[1 0 0]
     [0 2 0]], shape=(2, 3), dtype=int32)
    """
    _only_main_diagonal("diag", k, padding_value)
    x = _t(diagonal)
    if x.ndim < 1:
        raise ValueError("diag: needs a vector (or a stack of them), got a scalar")
    n = x.shape[-1]
    rows = n if num_rows in (-1, None) else as_int(num_rows, "diag: num_rows")
    cols = rows if num_cols in (-1, None) and num_rows not in (-1, None) else \
        n if num_cols in (-1, None) else as_int(num_cols, "diag: num_cols")
    if min(rows, cols) != n:
        raise ValueError(f"diag: a diagonal of length {n} does not fit a {rows}x{cols} matrix")
    return matrix_diag_op(x, num_rows=rows, num_cols=cols)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """The main diagonal of each matrix (`tf.linalg.diag_part`, k=0 only).

    >>> tk.linalg.diag_part(tk.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    tk.Tensor([1. 5.], shape=(2,), dtype=float32)
    """
    _only_main_diagonal("diag_part", k, padding_value)
    x = _t(input)
    if x.ndim < 2:
        raise ValueError(f"diag_part: needs matrices (..., m, n), got shape {x.shape}")
    return diag_part_op(x)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """The identity matrix (`tf.eye`), num_rows x num_columns, stacked over batch_shape.

    >>> tk.eye(2, 3, dtype=tk.int32)
    tk.Tensor(
    [[1 0 0]
     [0 1 0]], shape=(2, 3), dtype=int32)
    """
    rows = as_int(num_rows, "eye: num_rows")
    cols = rows if num_columns is None else as_int(num_columns, "eye: num_columns")
    out = np.eye(rows, cols, dtype=dtypes.as_dtype(dtype))
    if batch_shape is not None:
        shape = tuple(as_int(n, "eye: batch_shape") for n in np.asarray(batch_shape).ravel())
        out = np.broadcast_to(out, shape + out.shape).copy()
    return wrap_array(out)


def matrix_transpose(a, name=None, conjugate=False):
    """The last two axes swapped (`tf.linalg.matrix_transpose`).

    >>> tk.linalg.matrix_transpose(tk.ones([2, 3])).shape
    (3, 2)
    """
    a = _t(a)
    if a.ndim < 2:
        raise ValueError(f"matrix_transpose: needs matrices (..., m, n), got shape {a.shape}")
    return swapaxes_last2(a)


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes (`tf.linalg.adjoint`): for real numbers,
    the transpose.

    >>> tk.linalg.adjoint(tk.constant([[1.0, 2.0]]))
    tk.Tensor(
    [[1.]
     [2.]], shape=(2, 1), dtype=float32)
    """
    return matrix_transpose(matrix)


# --- products: matvec, tensordot ----------------------------------------------------------------------
def matvec(a, b, transpose_a=False, adjoint_a=False, name=None):
    """a @ b for matrices a (..., m, n) and vectors b (..., n) (`tf.linalg.matvec`).

    >>> tk.linalg.matvec(tk.constant([[1.0, 2.0], [3.0, 4.0]]), tk.constant([1.0, 0.0]))
    tk.Tensor([1. 3.], shape=(2,), dtype=float32)
    """
    b = _t(b)
    prod = matmul(a, expand_dims_op(b, axis=-1), transpose_a=transpose_a or adjoint_a)
    return squeeze(prod, axis=-1)


def _axis_list(what, axes, ndim):
    axes = [axes] if np.ndim(axes) == 0 else list(np.asarray(axes).ravel())
    return [as_int(a, what) % ndim if ndim else as_int(a, what) for a in axes]


def tensordot(a, b, axes, name=None):
    """Sum of products over axes of a and b (`tf.tensordot`): axes=N takes a's last N axes and
    b's first N; axes=[a_axes, b_axes] names them. A transpose, a reshape and one matmul.

    >>> tk.tensordot(tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0]), axes=1)   # a dot product
    tk.Tensor(11.0, shape=(), dtype=float32)
    >>> tk.tensordot(tk.ones([2, 3]), tk.ones([4, 3]), axes=[[1], [1]]).shape
    (2, 4)
    """
    a, b = _t(a), _t(b)
    if np.ndim(axes) == 0:
        n = as_int(axes, "tensordot: axes")
        if n < 0 or n > min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={n} is out of range for shapes {a.shape} and {b.shape}")
        a_axes, b_axes = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an int or a pair [a_axes, b_axes], got {axes!r}")
        a_axes = _axis_list("tensordot: axes[0]", axes[0], a.ndim)
        b_axes = _axis_list("tensordot: axes[1]", axes[1], b.ndim)
    sizes_a, sizes_b = [a.shape[k] for k in a_axes], [b.shape[k] for k in b_axes]
    if sizes_a != sizes_b:
        raise ValueError(f"tensordot: contracted axes {a_axes} of a (sizes {sizes_a}) and {b_axes} "
                         f"of b (sizes {sizes_b}) differ; shapes {a.shape} and {b.shape}")
    free_a = [k for k in range(a.ndim) if k not in a_axes]
    free_b = [k for k in range(b.ndim) if k not in b_axes]
    k = math.prod(sizes_a)
    a2 = reshape(transpose(a, free_a + a_axes), (-1, k))
    b2 = reshape(transpose(b, b_axes + free_b), (k, -1))
    return reshape(matmul(a2, b2), tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


# --- norms --------------------------------------------------------------------------------------------
def _vector_norm(x, ord, axis, keepdims):  # noqa: A002
    if ord in ("euclidean", "fro", 2, 2.0):
        return sqrt(reduce_sum(square(x), axis, keepdims=keepdims))
    if ord == 1:
        return reduce_sum(abs(x), axis, keepdims=keepdims)
    if ord == np.inf:
        return reduce_max(abs(x), axis, keepdims=keepdims)
    if isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0:
        return pow(reduce_sum(pow(abs(x), float(ord)), axis, keepdims=keepdims), 1.0 / ord)
    raise ValueError(f"norm: ord={ord!r} is not supported for a vector norm; use 'euclidean', "
                     f"1, 2, np.inf or another positive number")


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """The vector norm over `axis` (an int, or None for all elements), or the matrix norm over a
    pair of axes (`tf.norm`, also `tf.linalg.norm`). ord: 'euclidean' (= 'fro' and 2 for vectors),
    1, np.inf, a positive p; matrices: 'euclidean'/'fro', 1 (largest column sum), np.inf (largest
    row sum). As in TensorFlow, the gradient of the euclidean norm at 0 is NaN.

    >>> tk.norm(tk.constant([[1.0, -2.0], [3.0, -4.0]]), ord=1, axis=[-2, -1])   # columns' sums
    tk.Tensor(6.0, shape=(), dtype=float32)
    """
    x = _t(tensor)
    keepdims = bool(keepdims)
    if axis is None or np.ndim(axis) == 0 or len(axis) == 1:
        if ord == "fro" and axis is not None:
            raise ValueError("norm: ord='fro' is a matrix norm; give a pair of axes, e.g. axis=[-2, -1]")
        axis = None if axis is None else _axis_list("norm: axis", axis, x.ndim)
        return _vector_norm(x, ord, axis, keepdims)
    rows, cols = _axis_list("norm: axis", axis, x.ndim) if len(axis) == 2 else (None, None)
    if rows is None or rows == cols:
        raise ValueError(f"norm: axis must be an int or a pair of different axes, got {axis!r}")
    if ord in ("euclidean", "fro"):
        return sqrt(reduce_sum(square(x), [rows, cols], keepdims=keepdims))
    if ord in (1, np.inf):
        summed, extreme = (rows, cols) if ord == 1 else (cols, rows)
        sums = reduce_sum(abs(x), summed, keepdims=True)
        out = reduce_max(sums, extreme, keepdims=True)
        return out if keepdims else squeeze(out, axis=[rows, cols])
    raise ValueError(f"norm: ord={ord!r} is not supported for a matrix norm; use 'fro', "
                     f"'euclidean', 1 or np.inf (the spectral norm, ord=2, needs an SVD)")


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x^2), epsilon)) over `axis` (`tf.math.l2_normalize`, `tf.nn.l2_normalize`).

    >>> tk.math.l2_normalize(tk.constant([[3.0, 4.0], [0.0, 0.0]]), axis=1)   # zeros stay zeros
    tk.Tensor(
    [[0.6 0.8]
     [0.  0. ]], shape=(2, 2), dtype=float32)
    """
    x = _t(x)
    axis = dim if axis is None else axis
    squares = reduce_sum(square(x), axis, keepdims=True)
    return x * rsqrt(maximum(squares, epsilon))
