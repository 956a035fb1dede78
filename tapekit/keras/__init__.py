"""The Keras-style training stack, built on the tape: layers, models, losses, optimizers.

Reached as `tk.layers`, `tk.keras.layers`, and `keras.layers` after `import tapekit as keras`.
The core (tensors, tapes, ops) never imports this package.
"""
from . import activations, callbacks, initializers, layers, losses, metrics, models, optimizers
from .models import Sequential

__all__ = ["Sequential", "activations", "callbacks", "initializers", "layers", "losses",
           "metrics", "models", "optimizers"]
