"""tapekit.math: every math function of tapekit (tk.math.log and tk.log are the same)."""
from .ops import (abs, acos, add, asin, atan2, digamma, divide_no_nan, lgamma, xdivy, xlogy,  # noqa: F401
                   argmax, argmin, cast, ceil, clip_by_global_norm, clip_by_norm,
                  clip_by_value, concat, cos, count_nonzero, divide, equal, erf, exp, expand_dims,
                  expm1, floor, floordiv, floormod, gather, global_norm, greater, greater_equal,
                  is_finite, is_nan, l2_normalize, less, less_equal, linspace, log, log1p,
                  log_sigmoid, logical_and, logical_not, logical_or, matmul, maximum, minimum, mod,
                  multiply, negative, not_equal, one_hot, ones, ones_like, pow, range, reciprocal,
                  reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_std,
                  reduce_sum, reduce_variance, reshape, round, rsqrt, sigmoid, sign, sin, softplus,
                  sqrt, square, squared_difference, squeeze, stack, subtract, tanh, transpose, where,
                  zeros, zeros_like)
from .ops import add_n, cumprod, cumsum, reduce_all, reduce_any  # noqa: F401

__all__ = [name for name in dir() if not name.startswith("_")]

from .namespaces import public_dir  # noqa: E402 - after __all__, which lists the names above


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
