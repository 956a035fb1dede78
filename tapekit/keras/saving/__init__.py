"""keras.saving: the registry of custom objects, and model weights in Keras 3's file layout.

    model.save_weights("model.weights.h5")   # Keras 3's HDF5 layout (weights_h5.py)
    model.load_weights("model.weights.h5")   # a file Keras 3 wrote loads too
"""
from .registration import get_registered_name, get_registered_object, register_keras_serializable
from .weights_h5 import load_weights, save_weights

__all__ = ["get_registered_name", "get_registered_object", "load_weights",
           "register_keras_serializable", "save_weights"]
