"""tapekit.linalg: matrices (tf.linalg). tk.linalg.matmul and tk.matmul are the same function."""
from .ops import (det, diag, diag_part, einsum, eye, global_norm, inv, l2_normalize, matmul, matvec, norm, slogdet,
                  solve, tensordot, trace)
from .ops.matrix import adjoint, matrix_transpose

__all__ = [name for name in dir() if not name.startswith("_")]

from .namespaces import public_dir  # noqa: E402 - after __all__, which lists the names above


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
