"""The Keras-style training stack, built on the tape: layers, models, losses, optimizers.

Reached as `tk.layers`, `tk.keras.layers`, and `keras.layers` after `import tapekit as keras`.
The core (tensors, tapes, ops) never imports this package.
"""
from . import (
           activations,
           initializers,
           keras_tensor,  # noqa: F401  (tk.keras.keras_tensor.KerasTensor)
           layers,
           losses,
           models,
           optimizers,
)
from .layers import Input, InputLayer
from .models import Model, Sequential

__all__ = ["Input", "InputLayer", "Model", "Sequential", "activations", "initializers", "layers",
           "losses", "models", "optimizers"]
