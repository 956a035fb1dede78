"""keras.saving: whole models in Keras 3's `.keras` file, weights in its `.weights.h5` layout,
configs as Keras 3 writes them, and the registry of custom objects.

    model.save("model.keras")                      # config.json + model.weights.h5 + metadata.json
    model = tk.saving.load_model("model.keras")    # a file Keras 3 wrote loads too
    model.save_weights("model.weights.h5")         # Keras 3's HDF5 layout (weights_h5.py)
    model.load_weights("model.weights.h5")
"""
from ... import namespaces
from .. import identifiers
from . import serialization_lib  # noqa: F401
from .registration import get_registered_name, get_registered_object, register_keras_serializable
from .saving_lib import load_model, save_model
from .serialization_lib import (custom_object_scope, deserialize_keras_object,
                                get_custom_objects, serialize_keras_object)
from .weights_h5 import load_weights, save_weights

__all__ = identifiers.exported(globals())   # the names imported above

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
