"""The Keras-style training stack, built on the tape: layers, models, losses, optimizers.

Reached as `tk.layers`, `tk.keras.layers`, and `keras.layers` after `import tapekit as keras`.
The core (tensors, tapes, ops) never imports this package.
"""
from . import (activations, backend, callbacks, initializers, keras_tensor, layers, losses,  # noqa: F401
               metrics, models, optimizers, regularizers, saving, utils)
from .layers import Input, InputLayer
from .models import Model, Sequential
from . import schedules  # noqa: E402
from ..namespaces import public_dir

__all__ = ["Input", "InputLayer", "Model", "Sequential", "activations", "backend", "callbacks",
           "initializers", "layers", "losses", "metrics", "models", "optimizers", "regularizers",
           "saving", "utils"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
