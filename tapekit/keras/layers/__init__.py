"""Keras-style layers (`tk.layers`, `tk.keras.layers`, and `keras.layers` after
`import tapekit as keras`): one module per family, the Layer base class in `base.py`.

    layer = tk.layers.Dense(3, activation="relu")
    y = layer(tk.ones((2, 4)))        # builds the kernel (4, 3) and bias (3,) on first call
    layer.trainable_variables         # [kernel, bias], in creation order as in Keras
"""
from ..activations import get_activation
from .base import Layer, clear_session
from .conv import Conv2D, MaxPooling2D
from .core import Dense, Dropout, Flatten
from .input_layer import Input, InputLayer

__all__ = ["Conv2D", "Dense", "Dropout", "Flatten", "Input", "InputLayer", "Layer",
           "MaxPooling2D", "clear_session", "get_activation"]
