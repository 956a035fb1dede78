"""The Keras-style training stack, built on the tape: layers, models, losses, optimizers.

Reached as `tk.layers`, `tk.keras.layers`, and `keras.layers` after `import tapekit as keras`.
The core (tensors, tapes, ops) never imports this package.
"""
import sys as _sys

from .. import namespaces
from . import (activations, backend, callbacks, constraints, identifiers, initializers, keras_tensor,  # noqa: F401
               layers, losses, metrics, models, ops, optimizers, regularizers, saving, trainers,
               utils)
from .layers import Input, InputLayer
from .models import Model, Sequential
from .optimizers import schedules  # noqa: F401  (tk.keras.schedules, as before issue 44)

# tk.keras: the four names above and these namespaces (as tapekit/__init__.py hands them on).
__all__ = identifiers.exported(globals(), modules=(
    "activations", "backend", "callbacks", "constraints", "initializers", "layers", "losses", "metrics",
    "models", "ops", "optimizers", "regularizers", "saving", "utils"))

# Modules that tapekit had before issue 44 and that pickles (a compiled model's loss, a
# learning-rate schedule) or imports may still name: each is an alias of the module that holds
# its names now, in sys.modules (as `tapekit.layers` is of `tapekit.keras.layers`).
_MOVED = {"data_adapter": trainers.data_adapter, "hinge_losses": losses.hinge_losses,
          "layers.naming": utils.naming, "loss_and_metrics": trainers.compile_utils,
          "loss_base": losses.loss, "probabilistic_losses": losses.probabilistic_losses,
          "schedules": optimizers.schedules, "targets": losses.loss, "trainer": trainers.trainer}
for _old, _module in _MOVED.items():
    _sys.modules[f"{__name__}.{_old}"] = _module
del _old, _module

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
