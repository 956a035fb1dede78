"""Keras-style layers (`tk.layers`, `tk.keras.layers`, and `keras.layers` after
`import tapekit as keras`): one module per family, the Layer base class in `base.py`.

    layer = tk.layers.Dense(3, activation="relu")
    y = layer(tk.ones((2, 4)))        # builds the kernel (4, 3) and bias (3,) on first call
    layer.trainable_variables         # [kernel, bias], in creation order as in Keras
"""
from ..activations import get_activation
from .activation import Activation, LeakyReLU, ReLU
from .base import Layer, clear_session
from .conv import Conv1D, Conv2D, Conv2DTranspose, MaxPooling2D
from .core import Dense, Dropout, Embedding, Flatten, Lambda, Masking, Reshape
from .input_layer import Input, InputLayer
from .merging import (
                      Add,
                      Average,
                      Concatenate,
                      Dot,
                      Maximum,
                      Minimum,
                      Multiply,
                      Subtract,
                      add,
                      average,
                      concatenate,
                      dot,
                      multiply,
                      subtract,
)
from .merging import maximum_ as maximum
from .merging import minimum_ as minimum
from .normalization import BatchNormalization, LayerNormalization
from .pooling import (AveragePooling2D, GlobalAveragePooling1D, GlobalAveragePooling2D,
                      GlobalMaxPooling1D, GlobalMaxPooling2D)
from .recurrent import GRU, LSTM, SimpleRNN
from .reshaping import UpSampling2D
from ..saving import lookup
from ...namespaces import public_dir

__all__ = ["Activation", "Add", "Average", "AveragePooling2D", "BatchNormalization", "Concatenate",
           "Conv1D", "Conv2D", "Conv2DTranspose", "Dense", "Dot", "Dropout", "Embedding", "Flatten", "GRU", "LSTM", "SimpleRNN",
           "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling1D",
           "GlobalMaxPooling2D", "Input", "InputLayer", "Lambda",
           "Layer", "LayerNormalization", "LeakyReLU", "Masking", "MaxPooling2D", "Maximum", "Minimum",
           "Multiply", "ReLU",
           "Reshape", "Subtract", "UpSampling2D", "add", "average", "clear_session", "concatenate", "dot",
           "get_activation", "maximum", "minimum", "multiply", "subtract"]


# A Keras config names these as keras.layers (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.layers", {name: globals()[name] for name in __all__})

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
