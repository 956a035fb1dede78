"""Sequential: a stack of layers, each feeding the next (`tf.keras.Sequential`).

    model = tk.Sequential([
        tk.Input(shape=(10,)),               # or input_shape=(10,) on the first layer
        tk.layers.Dense(64, activation="relu"),
        tk.layers.Dense(1),
    ])
    y = model(x, training=True)
    model.summary()
"""
from ..keras_tensor import KerasTensor
from ..layers.base import Layer
from ..layers.config import _as_shapes
from ..layers.input_layer import InputLayer
from . import summary as _summary
from .model import Model
from ..saving.dtype_policy import dtype_policy_config
from ..saving.serialization_lib import deserialize_keras_object, serialize_keras_object


class Sequential(Model):
    """Layers applied in order; `training` reaches each layer that takes it (Dropout).

    When the input shape is known (a first `tk.Input(shape=...)` or `input_shape=` on the
    first layer), every layer is built at once, so the weights exist (and `summary()` works)
    before the first call, as in Keras.

    >>> tk.random.set_seed(0)
    >>> model = tk.models.Sequential([
    ...     tk.layers.Dense(8, activation="relu"),
    ...     tk.layers.Dense(1),
    ... ])
    >>> model(tk.zeros([5, 3])).shape
    (5, 1)
    >>> [v.shape for v in model.trainable_variables]
    [(3, 8), (8,), (8, 1), (1,)]
    >>> tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2)]).count_params()
    8
    """

    def __init__(self, layers=None, trainable=True, name=None):
        self._layers = []
        super().__init__(name=name, trainable=trainable)
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        """The layers, without the InputLayer (as Keras 3's Sequential.layers)."""
        return [layer for layer in self._layers if not isinstance(layer, InputLayer)]

    def add(self, layer):
        """Append a layer (building it when the model's input shape is known)."""
        if isinstance(layer, KerasTensor) and layer._keras_history is not None:
            layer = layer._keras_history[0]     # tk.Input(...) stands for its InputLayer
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add: expected a layer (e.g. tk.layers.Dense) or "
                            f"tk.Input(shape=...), got {type(layer).__name__}")
        if isinstance(layer, InputLayer) and self._layers:
            raise ValueError("Sequential.add: an Input can only be the first element")
        self._layers.append(layer)
        shape = self._layers[0].input_shape
        if shape is not None and all(lyr.built for lyr in self._layers[:-1]):
            for lyr in self._layers[:-1]:
                shape = lyr.compute_output_shape(shape)
            layer._maybe_build(shape)
            self.input_shape, self.built = self._layers[0].input_shape, True

    def build(self, input_shape):
        for layer in self._layers:
            layer._maybe_build(input_shape)
            input_shape = layer.compute_output_shape(input_shape)
        self.built = True

    def call(self, inputs, training=None):
        # training is in the call context: each layer that takes it receives it.
        for layer in self._layers:
            inputs = layer(inputs)
        return inputs

    def compute_output_shape(self, input_shape):
        for layer in self._layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def summary(self, print_fn=print):
        """Print a table of layers, output shapes and parameter counts (`Model.summary`).

        >>> tk.layers.clear_session()
        >>> tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(3)]).summary()
        Model: "sequential"
        ...
        dense (Dense)               (None, 3)                 15
        ...
        """
        if not self.built:
            raise ValueError("This model has not yet been built. Give the first layer "
                             "input_shape=..., start with tk.Input(shape=...), or call the "
                             "model on a batch of data first.")
        rows, shape = [], self.input_shape
        for layer in self._layers:
            shape = layer.compute_output_shape(shape)
            if not isinstance(layer, InputLayer):
                rows.append((layer, str(shape)))
        _summary.summary(self, rows, print_fn)

    # --- config (Keras 3's keys) -------------------------------------------------------------
    def get_config(self):
        """{"name", "trainable", "dtype", "layers" (each layer's config, an Input first when
        the model has one), "build_input_shape"}, as Keras 3 writes a Sequential."""
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": dtype_policy_config(self.dtype),
                  "layers": [serialize_keras_object(layer) for layer in self._layers]}
        if self.built and self.input_shape is not None:
            config["build_input_shape"] = list(self.input_shape)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if not isinstance(config, dict) or not isinstance(config.get("layers"), list):
            raise ValueError(f"{cls.__name__}.from_config: expected a dict with a list of "
                             f"'layers', got {config!r:.80}")
        layers = [deserialize_keras_object(c, custom_objects=custom_objects)
                  for c in config["layers"]]
        model = cls(layers, trainable=config.get("trainable", True), name=config.get("name"))
        shape = config.get("build_input_shape")
        if not model.built and shape is not None:
            model._maybe_build(_as_shapes(shape))
        return model

    def get_build_config(self):
        if self.built and self.input_shape is not None:
            return {"input_shape": list(self.input_shape)}
        return None

    def build_from_config(self, config):
        shape = (config or {}).get("input_shape")
        if shape is not None and not self.built:
            self._maybe_build(_as_shapes(shape))
