"""The Keras-style training stack, built on the tape: layers, models, losses, optimizers.

Reached as `tk.layers`, `tk.keras.layers`, and `keras.layers` after `import tapekit as keras`.
The core (tensors, tapes, ops) never imports this package.
"""
from . import (activations, callbacks, initializers, keras_tensor, layers, losses,  # noqa: F401
               metrics, models, optimizers, regularizers, saving, utils)
from .layers import Input, InputLayer
from .models import Model, Sequential

__all__ = ["Input", "InputLayer", "Model", "Sequential", "activations", "callbacks",
           "initializers", "layers", "losses", "metrics", "models", "optimizers", "regularizers",
           "saving", "utils"]
