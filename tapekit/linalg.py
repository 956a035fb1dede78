"""tapekit.linalg: matrices (tf.linalg). tk.linalg.matmul and tk.matmul are the same function."""
from .ops import (det, diag, diag_part, einsum, eye, global_norm, inv, l2_normalize, matmul, matvec, norm, slogdet,
                  solve, tensordot, trace)
from .ops.matrix import adjoint, matrix_transpose

__all__ = [name for name in dir() if not name.startswith("_")]
