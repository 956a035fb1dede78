"""tapekit: learn and do automatic differentiation with the tf.GradientTape model, on NumPy.

    import tapekit as tk
    x = tk.Variable(3.0)
    with tk.GradientTape() as tape:
        y = x ** 2
    tape.gradient(y, x)        # tk.Tensor(6.0, shape=(), dtype=float32)

The public names mirror TensorFlow's (see the API contract in the docs).
"""
__version__ = "0.2.0"

from . import _malloc

# Import-time side effects, all of them (docs/PERFORMANCE.md lists them too):
# - malloc tuning, below: TAPEKIT_MALLOC_TUNING=0 turns it off (tapekit/_malloc.py);
# - a warnings filter for NumPy's floating-point warnings raised in tapekit's own modules;
# - tapekit.ops binds Tensor's operators (ops/operators.py), without which tensors
#   have no +, @ or x[i];
# - tapekit.layers, .losses, ... are added to sys.modules as aliases of tapekit.keras.*;
# - tapekit.display observes every tape (display/tape_log.py): always for gradient() calls
#   whose result is None (tape.explain), and for every op while display recording is on,
#   the default inside IPython. Off: tk.display.set_options(record=False) and
#   tk.stop_observing_all_tapes(tapekit.display.tape_log.STRUCTURE).
_malloc.tune()  # keep freed array memory between training steps (see tapekit/_malloc.py)

# NumPy's floating-point warnings ("overflow encountered in exp", "invalid value ...") raised
# inside tapekit's own ops are not shown, as TensorFlow shows none: they named tapekit's files,
# not the user's line. Find NaNs and infs with tk.debugging.enable_check_numerics(). Undo:
# warnings.filterwarnings("default", category=RuntimeWarning, module=r"tapekit\.").
import warnings as _warnings  # noqa: E402

_warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero|underflow) encountered",
                         RuntimeWarning, r"tapekit\.")
del _warnings

from . import autodiff, image, linalg, math, nn, random, testing  # noqa: F401
from . import debugging, errors, test  # noqa: F401  (tk.debugging, tk.test: issue 7; tk.errors)
from .custom import custom_gradient
from .dtypes import bool, float16, float32, float64, int32, int64  # noqa: A004
from .dtypes import (complex64, complex128, double, half, int8, int16, uint8, uint16,  # noqa: E402
                     uint32, uint64)
from .forward import ForwardAccumulator
from .compiler import function
from .compiler import TensorSpec
from .tensor_array import TensorArray
from .compiler import autograph  # noqa: F401
from .module import Module
from .ops import (abs, add, cast, clip_by_global_norm, clip_by_norm, clip_by_value, concat, cos,
                  divide, equal, exp, expand_dims, gather, global_norm, greater, greater_equal,
                  identity, is_finite, is_nan, less, less_equal, linspace, log, logical_and,
                  logical_not, logical_or, matmul, maximum, minimum, multiply, negative,
                  not_equal, one_hot, ones, ones_like, pad, pow, range, reduce_max, reduce_mean,
                  reduce_min, reduce_prod, reduce_sum, reshape, sigmoid, sign, sin, sqrt, square,
                  squeeze, stack, stop_gradient, subtract, tanh, transpose, where, zeros,
                  zeros_like)
from .ops import TensorShape, broadcast_to, rank, shape, size  # noqa: E402,A004 (tf.shape, tf.size, tf.rank)
# Issue 23: the rest of tf.math and tf.linalg that TensorFlow's guides use, top level too.
from .ops import (argmax, argmin, ceil, count_nonzero, einsum, erf, expm1, eye, floor, floordiv,  # noqa: E402
                  floormod, log1p, mod, norm, reciprocal, reduce_logsumexp, reduce_std,
                  reduce_variance, round, rsqrt, squared_difference, tensordot)
# Issue 30: tf.asin, tf.acos and tf.atan2 are top level in TensorFlow (lgamma, xlogy,
# divide_no_nan only in tf.math), and so here.
from .ops import acos, asin, atan2  # noqa: E402
# tf.tile, tf.fill, tf.add_n, tf.cumsum, tf.reduce_any and tf.reduce_all are top level in
# TensorFlow (cumprod only in tf.math), and so here.
from .ops import add_n, cumsum, fill, reduce_all, reduce_any, tile  # noqa: E402
from .ops.shapes import broadcast_to_shape as broadcast_to  # noqa: E402 - tf.broadcast_to
from .printing import print  # noqa: E402,A004 - tf.print
from .record import Record
from .observers import TapeObserver, observe_all_tapes, stop_observing_all_tapes
from .backprop import GradientDtypeWarning, UnconnectedGradients
from .tape import GradientTape
from .convert import constant, convert_to_tensor
from .tensor import Tensor, Variable

# Training: the Keras-style stack lives in tapekit/keras/ (the core never imports it).
# `tk.layers`, `tk.keras.layers`, `keras.layers` after `import tapekit as keras`, and
# `import tapekit.layers` all reach the same modules.
from . import keras  # noqa: E402
from .keras import (activations, backend, callbacks, initializers, layers, losses, metrics,  # noqa: E402
                    models, optimizers, regularizers, saving, utils)
from .keras import Input, Model, Sequential  # noqa: E402

import sys as _sys  # noqa: E402

for _name in ("activations", "backend", "callbacks", "initializers", "layers", "losses", "metrics", "models",
              "optimizers", "regularizers", "saving", "utils"):
    _sys.modules[f"{__name__}.{_name}"] = getattr(keras, _name)
del _sys, _name
# tk.display (after the core): tape pictures, tk.show, and GradientTape.explain / its notebook display
from . import display  # noqa: E402
from .display import show  # noqa: E402
from . import widgets  # noqa: E402,F401  (tk.widgets: ipywidgets is imported only when a view is made)

# What dir(tk) and tab completion show: every name imported above on purpose, and these
# namespaces; not tapekit's own modules (tk.tape, tk.callsite, ...), which stay importable.
from .namespaces import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), namespaces=(
    "activations", "autodiff", "autograph", "backend", "backprop", "callbacks", "debugging",
    "display", "dtypes", "errors", "image", "initializers", "keras", "layers", "linalg", "losses",
    "math", "metrics", "models", "nn", "optimizers", "random", "record", "regularizers", "saving",
    "test", "testing", "utils", "widgets"))
