"""Every tapekit op, gathered from the modules that define them (see registry.py)."""
from . import numpy_dispatch  # noqa: F401
from .activations import (bias_add, elu, gelu, leaky_relu, log_sigmoid, log_softmax, relu, relu6, selu, silu,
                          softmax, softplus, softsign, swish)
from .arithmetic import (abs, add, add_n, divide, multiply, negative, pow, reciprocal, rsqrt, sign,
                         sqrt, square, squared_difference, subtract)
from .clipping import clip_by_global_norm, clip_by_norm, clip_by_value, global_norm, saturate_cast
from .comparison import (equal, greater, greater_equal, is_finite, is_nan, less, less_equal,
                         logical_and, logical_not, logical_or, not_equal)
from .conv import conv2d, conv2d_transpose
from .creation import fill, linspace, one_hot, ones, ones_like, range, zeros, zeros_like
from .cumulative import cumprod, cumsum
from .cross_entropy import (sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits,
                            sparse_softmax_cross_entropy_with_logits)
from .linalg import matmul, matmul_op, matmul_operator
from .einsum import einsum
from .matrix import (det, diag, diag_part, eye, inv, l2_normalize, matvec, norm, slogdet, solve,
                     tensordot, trace)
from .padding import pad
from .passthrough import cast, identity, stop_gradient
from .pooling import avg_pool, avg_pool2d, max_pool, max_pool2d
from .svd import svd
from .statistics import (argmax, argmin, compute_average_loss, confusion_matrix, count_nonzero, moments,
                         reduce_logsumexp, reduce_std, reduce_variance, scale_regularization_loss,
                         top_k)
from .indexing import gather, getitem, newaxis
from .gather_scatter import (boolean_mask, embedding_lookup, gather_nd, scatter_nd, slice_,
                             tensor_scatter_nd_add, tensor_scatter_nd_sub,
                             tensor_scatter_nd_update)
from .reductions import (reduce_all, reduce_any, reduce_max, reduce_mean, reduce_min, reduce_prod,
                         reduce_sum)
from .registry import OPS, defop
from .rounding import ceil, floor, floordiv, floormod, mod, round
from .selection import maximum, minimum, where
from .special import acos, asin, atan2, digamma, divide_no_nan, erf, lgamma, xdivy, xlogy
from .shapes import (TensorShape, broadcast_to, concat, expand_dims, rank, reshape, shape, size,
                     split, squeeze, stack, transpose)
from .tiling import repeat, roll, tile
from .transcendental import cos, exp, expm1, log, log1p, sigmoid, sin, tanh
from .operators import attach as _attach_operators

_attach_operators()   # Tensor's +, *, @, -x, x[i], np.sin(x); Variable.read_value: operators.py
