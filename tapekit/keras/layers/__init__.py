"""Keras-style layers (`tk.layers`, `tk.keras.layers`, and `keras.layers` after
`import tapekit as keras`): one module per family, the Layer base class in `base.py`.

    layer = tk.layers.Dense(3, activation="relu")
    y = layer(tk.ones((2, 4)))        # builds the kernel (4, 3) and bias (3,) on first call
    layer.trainable_variables         # [kernel, bias], in creation order as in Keras

tk.layers's names are the ones imported below, each once: `__all__` (what dir(), tab
completion and the API reference show) is made from them, and a Keras config names their
classes as "keras.layers" (saving/lookup.py finds them in the table registered at the end).
"""
from ... import namespaces
from .. import identifiers
from ..activations import get_activation
from ..saving import lookup
from ..utils.naming import clear_session
from .activation import Activation, LeakyReLU, ReLU
from .base import Layer
from .conv import Conv1D, Conv2D, Conv2DTranspose
from .core import Dense, Dropout, Embedding, Flatten, Lambda, Masking, Reshape
from .input_layer import Input, InputLayer
from .merging import (Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract, add,
                      average, concatenate, dot, multiply, subtract)
from .merging import maximum_ as maximum
from .merging import minimum_ as minimum
from .normalization import BatchNormalization, LayerNormalization
from .pooling import (AveragePooling2D, GlobalAveragePooling1D, GlobalAveragePooling2D,
                      GlobalMaxPooling1D, GlobalMaxPooling2D, MaxPooling2D)
from .recurrent import GRU, LSTM, SimpleRNN
from .reshaping import UpSampling2D

__all__ = identifiers.exported(globals())
lookup.register_builtins("keras.layers", {name: globals()[name] for name in __all__})

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
