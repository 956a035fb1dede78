"""tapekit: learn and do automatic differentiation with the tf.GradientTape model, on NumPy.

    import tapekit as tk
    x = tk.Variable(3.0)
    with tk.GradientTape() as tape:
        y = x ** 2
    tape.gradient(y, x)        # tk.Tensor(6.0, shape=(), dtype=float32)

The public names mirror TensorFlow's (see the API contract in the docs). Which names each
namespace shows is one table in tapekit/namespaces.py; this module loads the package in its
order and binds them.
"""
__version__ = "0.2.0"

from . import _malloc

# Import-time side effects, all of them (docs/PERFORMANCE.md lists them too):
# - malloc tuning, below: TAPEKIT_MALLOC_TUNING=0 turns it off (tapekit/_malloc.py);
# - a warnings filter for NumPy's floating-point warnings raised in tapekit's own modules;
# - tapekit.ops binds Tensor's operators (ops/operators.py), without which tensors
#   have no +, @ or x[i];
# - the namespaces that only hand on names (tk.math, tk.nn, tk.test, ...) are made from
#   their tables, and tapekit.layers, .losses, ... name tapekit.keras's modules
#   (tapekit/namespaces.py, both);
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

# The core, bottom up (docs/DESIGN.md draws the layers), then the namespaces made from it.
from . import ops, tape, forward, custom, random, printing, tensor_array, module  # noqa: E402
from . import debugging, errors, compiler, testing  # noqa: E402
from . import namespaces as _namespaces  # noqa: E402

for _name in _namespaces.MADE:
    _namespaces.make(_name)     # tk.math, tk.nn, tk.linalg, tk.image, tk.config, tk.autodiff, tk.test

# Training: the Keras-style stack lives in tapekit/keras/ (the core never imports it).
# `tk.layers`, `tk.keras.layers`, `keras.layers` after `import tapekit as keras`, and
# `import tapekit.layers` all reach the same modules.
from . import keras  # noqa: E402

_namespaces.alias_keras(globals())
# tk.train: checkpoints of variables, tk.Modules and Keras models and optimizers.
from . import train  # noqa: E402,F401
# tk.display (after the core): tape pictures, tk.show, and GradientTape.explain, .describe and
# its notebook display; tk.widgets (ipywidgets is imported only when a view is made).
from . import display, widgets  # noqa: E402,F401

# Every name of TK (dir(tk) shows those and TK_NAMESPACES, not tapekit's own modules).
_namespaces.bind_tk(globals())
del _name
