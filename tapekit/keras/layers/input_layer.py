"""Input and InputLayer: where a functional model's graph starts (`keras.Input`).

    inputs = tk.Input(shape=(784,), name="digits")   # a KerasTensor of shape (None, 784)
    outputs = tk.layers.Dense(10)(inputs)
    model = tk.Model(inputs=inputs, outputs=outputs)
"""
from ... import dtypes
from ..keras_tensor import KerasTensor, Node
from ..saving.files import check_declared
from ..utils.naming import unique_name
from .base import Layer
from .shapes import checked_shape


class InputLayer(Layer):
    """The layer behind `tk.Input`: holds the symbolic input tensor; called on data, it
    passes it through. As the first element of a Sequential it fixes the input shape.

    >>> layer = tk.layers.InputLayer(shape=(3,), name="features")
    >>> layer.output
    <KerasTensor shape=(None, 3), dtype=float32, name=features>
    >>> tk.Sequential([layer, tk.layers.Dense(2)]).built
    True
    """

    # Called on data (the first layer of a Sequential) it passes its input on, mask included.
    _supports_masking = True

    def __init__(self, shape=None, batch_size=None, dtype=None, batch_shape=None, name=None,
                 input_shape=None, **kwargs):
        shape = input_shape if shape is None else shape
        name = name or unique_name("input_layer")
        if batch_shape is None:
            if shape is None:
                raise ValueError("InputLayer: give shape=, the shape of one example without the "
                                 "batch axis, e.g. tk.Input(shape=(784,))")
            shape = (shape,) if isinstance(shape, int) else shape
            batch_shape = checked_shape([batch_size], f"InputLayer {name!r}: [batch_size]") + \
                checked_shape(shape, f"InputLayer {name!r}: shape")
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.batch_shape = checked_shape(batch_shape, f"InputLayer {name!r}: batch_shape")
        check_declared(f"InputLayer {name!r}: batch_shape", self.batch_shape, self.dtype)
        self.input_shape = self.batch_shape
        self.built = True
        Node(self, [], KerasTensor(self.batch_shape, self.dtype, name=name))   # .output reads it

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def count_params(self):
        return 0

    _keras_only = {"sparse": False, "ragged": False, "optional": False}

    def get_config(self):
        """Keras 3's InputLayer config: the batch shape and the dtype by name."""
        return {"batch_shape": list(self.batch_shape), "dtype": self.dtype.name, "sparse": False,
                "ragged": False, "name": self.name, "optional": False}

    def get_build_config(self):
        return None


def Input(shape=None, batch_size=None, dtype=None, name=None, batch_shape=None):
    """A symbolic input of `shape` (per example; the batch axis is None) for the functional API.

    >>> tk.layers.clear_session()
    >>> inputs = tk.Input(shape=(784,), name="digits")
    >>> inputs
    <KerasTensor shape=(None, 784), dtype=float32, name=digits>
    >>> tk.Input(shape=(28, 28, 1), batch_size=32, dtype="uint8").shape
    (32, 28, 28, 1)
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtypes.as_dtype(dtype or dtypes.float32),
                       name=name, batch_shape=batch_shape)
    return layer.output
