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
# - tapekit.ops binds Tensor's operators (ops/operators.py), without which tensors
#   have no +, @ or x[i];
# - "tapekit.keras" is added to sys.modules (aliases for tf.keras code), further down;
# - tapekit.display observes every tape (display/tape_log.py): always for gradient() calls
#   whose result is None (tape.explain), and for every op while display recording is on,
#   the default inside IPython. Off: tk.display.set_options(record=False) and
#   tk.stop_observing_all_tapes(tapekit.display.tape_log.STRUCTURE).
_malloc.tune()  # keep freed array memory between training steps (see tapekit/_malloc.py)

from . import math, nn, random, testing  # noqa: F401
from . import debugging, test  # noqa: F401  (tk.debugging, tk.test: issue 7)
from .custom import custom_gradient
from .dtypes import bool, float16, float32, float64, int32, int64  # noqa: A004
from .forward import ForwardAccumulator
from .function import function
from .module import Module
from .ops import (abs, add, cast, clip_by_global_norm, clip_by_norm, clip_by_value, concat, cos,
                  divide, equal, exp, expand_dims, gather, global_norm, greater, greater_equal,
                  identity, is_finite, is_nan, less, less_equal, linspace, log, logical_and,
                  logical_not, logical_or, matmul, maximum, minimum, multiply, negative,
                  not_equal, one_hot, ones, ones_like, pow, range, reduce_max, reduce_mean,
                  reduce_min, reduce_prod, reduce_sum, reshape, sigmoid, sign, sin, sqrt, square,
                  squeeze, stack, stop_gradient, subtract, tanh, transpose, where, zeros,
                  zeros_like)
from .record import Record, TapeObserver, observe_all_tapes, stop_observing_all_tapes
from .gradient_args import GradientDtypeWarning, UnconnectedGradients
from .tape import GradientTape
from .convert import constant, convert_to_tensor
from .tensor import Tensor, Variable

# Training: `from tapekit import layers, models, losses, optimizers`, as from tensorflow.keras.
from . import layers, losses, models, optimizers  # noqa: E402

# tk.keras.layers and the rest: aliases for code written against tf.keras.
import sys as _sys  # noqa: E402
import types as _types  # noqa: E402

keras = _types.ModuleType("tapekit.keras", "Aliases: tk.keras.layers is tk.layers, and so on.")
keras.layers, keras.models, keras.losses, keras.optimizers = layers, models, losses, optimizers
keras.Sequential = models.Sequential
_sys.modules["tapekit.keras"] = keras
del _sys, _types
# tk.display (after the core): tape pictures, tk.show, and GradientTape.explain / its notebook display
from . import display  # noqa: E402
from .display import show  # noqa: E402
from . import widgets  # noqa: E402,F401  (tk.widgets: ipywidgets is imported only when a view is made)
