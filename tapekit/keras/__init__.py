"""The Keras-style training stack, built on the tape: layers, models, losses, optimizers.

Reached as `tk.layers`, `tk.keras.layers`, and `keras.layers` after `import tapekit as keras`.
The core (tensors, tapes, ops) never imports this package.
"""
# saving first: its face loads saving_lib and weights_h5, which walk layers; the layers,
# activations and initializers then find serialization_lib loaded (it imports none of them).
from . import saving  # noqa: I001
from . import (activations, backend, callbacks, initializers, keras_tensor, layers, losses,  # noqa: F401
               metrics, models, optimizers, regularizers, saving, utils)
from .layers import Input, InputLayer
from .models import Model, Sequential
from . import schedules  # noqa: E402
from ..namespaces import public_dir

# Configs name these modules' classes and functions (Keras's names); they import saving for
# their own get_config, so saving gets them here, once all are loaded.
saving.lookup.use_builtins(activations=activations, initializers=initializers, layers=layers,
                           losses=losses, metrics=metrics, models=models, optimizers=optimizers,
                           regularizers=regularizers, schedules=schedules)

__all__ = ["Input", "InputLayer", "Model", "Sequential", "activations", "backend", "callbacks",
           "initializers", "layers", "losses", "metrics", "models", "optimizers", "regularizers",
           "saving", "utils"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
