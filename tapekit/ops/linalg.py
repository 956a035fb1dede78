"""matmul, with NumPy's rules for 1-D operands (vector @ matrix and so on)."""
import numpy as np

from ..convert import convert_to_tensor

from ..tensor import Tensor
from .registry import defop
from .indexing import getitem_op
from .shapes import expand_dims_op, swapaxes_last2


# A 1-D operand against one matrix: the cotangent (with any leading batch axes, as in a
# jacobian) times the matrix is ONE matrix product; written as a stack of matrix-vector
# products it is a loop of them, 2x slower for a 256x256 jacobian.

def _matmul_vjp_a(g, ans, a, b):
    if a.ndim >= 2 and b.ndim >= 2:
        return g @ swapaxes_last2(b)
    if a.ndim >= 2:                       # (.., n, m) @ (m,) -> (.., n)
        return expand_dims_op(g, axis=-1) * b
    if b.ndim == 2:                       # (m,) @ (m, k) -> (k,): g (.., k) @ b^T
        return g @ swapaxes_last2(b)
    if b.ndim > 2:                        # (m,) @ (.., m, k) -> (.., k)
        return getitem_op(b @ expand_dims_op(g, axis=-1), index=(Ellipsis, 0))
    return expand_dims_op(g, axis=-1) * b  # (m,) @ (m,) -> ()


def _matmul_vjp_b(g, ans, a, b):
    if a.ndim >= 2 and b.ndim >= 2:
        return swapaxes_last2(a) @ g
    if a.ndim == 2:                       # (n, m) @ (m,) -> (n,): g (.., n) @ a
        return g @ a
    if a.ndim > 2:
        return getitem_op(swapaxes_last2(a) @ expand_dims_op(g, axis=-1), index=(Ellipsis, 0))
    if b.ndim >= 2:
        return expand_dims_op(a, axis=-1) * expand_dims_op(g, axis=-2)
    return expand_dims_op(g, axis=-1) * a


matmul_op = defop("matmul", np.matmul, args="a b", save="a b", same_dtype=True, ufunc=np.matmul,
                  vjp=[_matmul_vjp_a, _matmul_vjp_b],
                  jvp=[lambda t, ans, a, b: t @ b, lambda t, ans, a, b: a @ t])


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           name=None):
    """a @ b (`tf.linalg.matmul`); transpose_a / transpose_b swap the last two axes first
    (adjoint_a / adjoint_b too: for real numbers the adjoint is the transpose).

    Stacks of matrices multiply pairwise with NumPy's broadcasting of the leading axes, and a
    1-D operand is a vector (NumPy's rules).

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
