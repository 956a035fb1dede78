"""matmul: matrices and stacks of matrices, as in TensorFlow.

The public entries (tk.matmul, `a @ b`, np.matmul on tensors) need rank 2 or more, as
tf.linalg.matmul does, and say in plain words when the inner dimensions differ. The op
itself (matmul_op) keeps NumPy's rules for a 1-D operand (vector @ matrix): tapekit's
own code and derivative rules use them.
"""
import numpy as np

from ..errors import InvalidArgumentError
from ..tensor import Tensor
from .conversion import convert_to_tensor
from .registry import UFUNCS, defop
from .indexing import getitem_op
from .shapes import expand_dims_op, swapaxes_last2


# A 1-D operand against one matrix: the cotangent (with any leading batch axes, as in a
# jacobian) times the matrix is ONE matrix product; written as a stack of matrix-vector
# products it is a loop of them, 2x slower for a 256x256 jacobian.

def _matmul_vjp_a(g, ans, a, b):
    if a.ndim == 2 and b.ndim == 2 and g.ndim > 2 and a.shape[0] == 1:
        # A row (1, m) @ b with a batch of cotangents (a jacobian): as (.., 1, k) @ b^T it is a
        # stack of vector-matrix products; without the row axis it is one matrix product.
        return expand_dims_op(matmul_op(getitem_op(g, index=(Ellipsis, 0, slice(None))),
                                        swapaxes_last2(b)), axis=-2)
    if a.ndim >= 2 and b.ndim >= 2:
        return g @ swapaxes_last2(b)
    if a.ndim >= 2:                       # (.., n, m) @ (m,) -> (.., n)
        return expand_dims_op(g, axis=-1) * b
    if b.ndim == 2:                       # (m,) @ (m, k) -> (k,): g (.., k) @ b^T
        return matmul_op(g, swapaxes_last2(b))    # the op: g may be 1-D (a @ b refuses it)
    if b.ndim > 2:                        # (m,) @ (.., m, k) -> (.., k)
        return getitem_op(b @ expand_dims_op(g, axis=-1), index=(Ellipsis, 0))
    return expand_dims_op(g, axis=-1) * b  # (m,) @ (m,) -> ()


def _matmul_vjp_b(g, ans, a, b):
    if a.ndim == 2 and b.ndim == 2 and g.ndim > 2 and b.shape[1] == 1:
        # a @ a column (tk.linalg.matvec) with a batch of cotangents (.., n, 1): a^T @ g is a
        # stack of matrix-vector products, 2-3x slower than this one product (W4).
        return expand_dims_op(matmul_op(getitem_op(g, index=(Ellipsis, 0)), a), axis=-1)
    if a.ndim >= 2 and b.ndim >= 2:
        return swapaxes_last2(a) @ g
    if a.ndim == 2:                       # (n, m) @ (m,) -> (n,): g (.., n) @ a
        return matmul_op(g, a)
    if a.ndim > 2:
        return getitem_op(swapaxes_last2(a) @ expand_dims_op(g, axis=-1), index=(Ellipsis, 0))
    if b.ndim >= 2:
        return expand_dims_op(a, axis=-1) * expand_dims_op(g, axis=-2)
    return expand_dims_op(g, axis=-1) * a


matmul_op = defop("matmul", np.matmul, args="a b", save="a b", same_dtype=True,
                  vjp=[_matmul_vjp_a, _matmul_vjp_b],
                  jvp=[lambda t, ans, a, b: matmul_op(t, b), lambda t, ans, a, b: matmul_op(a, t)])


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           name=None):
    """a @ b (`tf.linalg.matmul`); transpose_a / transpose_b swap the last two axes first
    (adjoint_a / adjoint_b too: for real numbers the adjoint is the transpose).

    Stacks of matrices multiply pairwise with NumPy's broadcasting of the leading axes. Both
    operands need rank 2 or more, as in TensorFlow (reshape a vector to (1, n) or (n, 1));
    shapes that do not fit raise tk.errors.InvalidArgumentError.

    >>> a = tk.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> tk.matmul(a, tk.constant([[1.0], [1.0]]))       # also a @ b
    tk.Tensor(
    [[3.]
     [7.]], shape=(2, 1), dtype=float32)

    >>> w = tk.Variable([[1.0], [2.0]])
    >>> with tk.GradientTape() as tape:
    ...     y = tk.reduce_sum(tk.matmul(a, w))
    >>> tape.gradient(y, w)                # a^T @ ones: the column sums of a
    tk.Tensor(
    [[4.]
     [6.]], shape=(2, 1), dtype=float32)
    """
    if transpose_a and adjoint_a or transpose_b and adjoint_b:
        raise ValueError("matmul: give transpose_x or adjoint_x, not both (TensorFlow refuses both)")
    check_matmul(a, b, transpose_a or adjoint_a, transpose_b or adjoint_b)
    if transpose_a or adjoint_a:
        a = _swapped(a, "transpose_a" if transpose_a else "adjoint_a")
    if transpose_b or adjoint_b:
        b = _swapped(b, "transpose_b" if transpose_b else "adjoint_b")
    return matmul_op(a, b)


def _swapped(x, what):
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"matmul: {what}=True needs a matrix (or a stack of them), got shape "
                         f"{x.shape}; a vector needs no transposing")
    return swapaxes_last2(x)


def _shape(x):
    """The shape as a tuple; a tensor's is its array's (no tk.TensorShape: only read here)."""
    if isinstance(x, Tensor):
        return x._value.shape
    return x.shape if isinstance(x, np.ndarray) else np.shape(x)


def check_matmul(a, b, transpose_a=False, transpose_b=False, what="matmul"):
    """Raise InvalidArgumentError naming both shapes unless a @ b is a matrix product."""
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 2 or len(sb) < 2:
        raise InvalidArgumentError(
            f"{what}: needs matrices (rank 2 or more), as tf.linalg.matmul does; got a of shape "
            f"{sa} and b of shape {sb}. For a vector, make it a matrix first "
            f"(tk.reshape(v, (1, -1)) or tk.expand_dims(v, 0) for a row, (-1, 1) or axis=-1 for a "
            f"column); for the dot product of two vectors use tk.reduce_sum(x * y)")
    k_a = sa[-2] if transpose_a else sa[-1]
    k_b = sb[-1] if transpose_b else sb[-2]
    if k_a != k_b:
        ta, tb = (", transposed" if transpose_a else ""), (", transposed" if transpose_b else "")
        raise InvalidArgumentError(
            f"{what}: the inner dimensions do not match: a (shape {sa}{ta}) has {k_a} columns "
            f"but b (shape {sb}{tb}) has {k_b} rows. In a @ b the number of columns of a must "
            f"equal the number of rows of b; transpose one of them (transpose_b=True) or check "
            f"the shapes")


def matmul_operator(a, b):
    """`a @ b` on tensors (Tensor.__matmul__, np.matmul): tk.matmul's checks, then the op."""
    check_matmul(a, b, what="matmul (a @ b)")
    return matmul_op(a, b)


UFUNCS[np.matmul] = matmul_operator     # np.matmul(a, b) on tensors: the same checks as a @ b
