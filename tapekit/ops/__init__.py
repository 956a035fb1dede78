"""Every tapekit op, gathered from the modules that define them (see registry.py)."""
from . import numpy_dispatch  # noqa: F401
from .activations import log_softmax, relu, softmax
from .clipping import clip_by_global_norm, clip_by_norm, global_norm
from .conv import conv2d, max_pool2d
from .creation import linspace, one_hot, ones, ones_like, range, zeros, zeros_like
from .cross_entropy import softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits
from .elementwise import (abs, add, cast, clip_by_value, cos, divide, equal, exp, greater,
                          greater_equal, identity, is_finite, is_nan, less, less_equal, log,
                          logical_and, logical_not, logical_or, maximum, minimum, multiply,
                          negative, not_equal, pow, sigmoid, sign, sin, sqrt, square,
                          stop_gradient, subtract, tanh, where)
from .linalg import matmul, matmul_op, matmul_operator
from .einsum import einsum
from .math_extra import (ceil, erf, expm1, floor, floordiv, floormod, log1p, mod, reciprocal, round,
                         rsqrt, squared_difference)
from .matrix import (det, diag, diag_part, eye, inv, l2_normalize, matvec, norm, slogdet, solve,
                     tensordot, trace)
from .more_activations import (elu, gelu, leaky_relu, log_sigmoid, relu6, selu, silu, softplus,
                               softsign, swish)
from .padding import pad
from .pooling import avg_pool, avg_pool2d, conv2d_transpose, max_pool
from .statistics import (argmax, argmin, count_nonzero, reduce_logsumexp, reduce_std,
                         reduce_variance)
from .indexing import gather, getitem
from .reductions import reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum
from .registry import OPS, defop
from .special import acos, asin, atan2, digamma, divide_no_nan, lgamma, xdivy, xlogy
from .shapes import (TensorShape, broadcast_to, concat, expand_dims, rank, reshape, shape, size,
                     squeeze, stack, transpose)
from .operators import attach as _attach_operators

_attach_operators()   # Tensor's +, *, @, -x, x[i], np.sin(x); Variable.read_value: operators.py
