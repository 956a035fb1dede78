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
from .. import masking
from ..layers.base import Layer
from ..layers.config import as_shapes, build_config_key
from ..layers.input_layer import Input, InputLayer
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
        self._symbolic = None      # [Input, output of layer 1, ...] once the input shape is known
        super().__init__(name=name, trainable=trainable)
        for layer in layers or []:
            self.add(layer)

    # Keras 3: model.input_shape and model.output_shape once the input shape is known (a
    # first tk.Input, input_shape= on the first layer, build or a call); before, AttributeError.
    @property
    def input_shape(self):
        """The batch shape of the model's input, e.g. (None, 3).

        >>> tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2)]).input_shape
        (None, 3)
        >>> tk.Sequential([tk.layers.Dense(2)], name="later").input_shape
        Traceback (most recent call last):
        AttributeError: Sequential model 'later' has no defined input shape yet...
        """
        if self._known_input_shape is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined input shape yet.",
                                 name="input_shape", obj=self)
        return self._known_input_shape

    @input_shape.setter
    def input_shape(self, shape):
        self.__dict__["_input_shape"] = shape

    @property
    def _known_input_shape(self):
        return self.__dict__.get("_input_shape")

    @property
    def output_shape(self):
        """The batch shape of the model's output, e.g. (None, 2).

        >>> tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2)]).output_shape
        (None, 2)
        >>> tk.Sequential([tk.layers.Dense(2)], name="later").output_shape
        Traceback (most recent call last):
        AttributeError: Sequential model 'later' has no defined output shape yet...
        """
        if self._known_input_shape is None or not self._layers:
            raise AttributeError(f"Sequential model '{self.name}' has no defined output shape yet.",
                                 name="output_shape", obj=self)
        return tuple(self.compute_output_shape(tuple(self._known_input_shape)))

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
            self._extend_symbolic(layer)

    def _extend_symbolic(self, layer):
        """Keras 3 builds a Sequential of known input shape as a functional graph: each layer
        is called on the previous layer's KerasTensor, so `model.inputs`, `model.outputs`,
        `layer.input` and `layer.output` exist (a feature extractor can be made from them)."""
        if self._symbolic is None:
            first = self._layers[0]
            if isinstance(first, InputLayer):
                self._symbolic = [first.output]
                if layer is first:
                    return
            else:      # the shape it was built for, with its batch size, as Keras 3
                shape = first.__dict__.get("_build_shape") or self._known_input_shape
                self._symbolic = [Input(batch_shape=shape if isinstance(shape, tuple)
                                        else self._known_input_shape)]
        try:
            self._symbolic.append(layer(self._symbolic[-1]))
        except Exception:     # a layer that cannot run on symbolic inputs: no graph (inputs= raises)
            self._symbolic = False

    def pop(self, rebuild=True):
        """Remove the last layer and return it (`Sequential.pop`).

        >>> model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(4), tk.layers.Dense(1)])
        >>> model.pop().units, len(model.layers), model.outputs[0].shape
        (1, 1, (None, 4))
        """
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        layer = self._layers.pop()
        if self._symbolic and len(self._symbolic) > 1:
            self._symbolic.pop()
        if not self.layers and self._symbolic is False:
            self._symbolic = None
        return layer

    def _graph_ends(self, what):
        if not self._symbolic:
            raise AttributeError(
                f"Sequential {self.name!r} has no {what} yet: its input shape is not known. Start "
                f"it with tk.Input(shape=...) (or give the first layer input_shape=...)"
                + (" -- or one of its layers cannot be called on symbolic inputs"
                   if self._symbolic is False else ""))
        return self._symbolic

    @property
    def inputs(self):
        """[the Input KerasTensor], once the input shape is known (Keras 3)."""
        return [self._graph_ends("inputs")[0]]

    @property
    def outputs(self):
        """[the last layer's output KerasTensor], once the input shape is known (Keras 3)."""
        return [self._graph_ends("outputs")[-1]]

    @property
    def input(self):
        return self.inputs[0]

    @property
    def output(self):
        return self.outputs[0]

    def build(self, input_shape):
        first = input_shape
        for layer in self._layers:
            layer._maybe_build(input_shape)
            input_shape = layer.compute_output_shape(input_shape)
        self.built = True
        if self._symbolic is None and self._layers and isinstance(first, tuple):
            self.input_shape = (None,) + tuple(first[1:])
            for layer in self._layers:
                self._extend_symbolic(layer)
                if self._symbolic is False:
                    break

    def call(self, inputs, training=None, mask=None):
        # training is in the call context: each layer that takes it receives it; a mask goes
        # with the inputs (their _keras_mask), and each layer passes it on or uses it.
        if mask is not None and masking.keras_mask(inputs) is not mask:
            inputs = masking.with_mask(inputs, mask)
        for layer in self._layers:
            inputs = layer(inputs)
        return inputs

    def compute_output_shape(self, input_shape):
        for layer in self._layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def summary(self, line_length=None, positions=None, print_fn=None, **kwargs):
        """Print the layers, output shapes and parameter counts in Keras 3's box (`Model.summary`).

        >>> tk.layers.clear_session()
        >>> tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(3)]).summary(line_length=60)
        Model: "sequential"
        ┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┓
        ┃ Layer (type)             ┃ Output Shape      ┃   Param # ┃
        ┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━┩
        │ dense (Dense)            │ (None, 3)         │        15 │
        └──────────────────────────┴───────────────────┴───────────┘
         Total params: 15 (60.00 B)
         Trainable params: 15 (60.00 B)
         Non-trainable params: 0 (0.00 B)
        """
        if kwargs.get("expand_nested") or kwargs.get("show_trainable") or \
                kwargs.get("layer_range") is not None:
            raise NotImplementedError("summary: expand_nested, show_trainable and layer_range "
                                      "are not supported yet")
        # Keras 3 prints an unbuilt Sequential too: its layers show "?" and "0 (unbuilt)".
        _summary.summary(self, self.layers, True, None, line_length, positions, print_fn)

    # --- config (Keras 3's keys) -------------------------------------------------------------
    def get_config(self):
        """{"name", "trainable", "dtype", "layers" (each layer's config, an Input first when
        the model has one), "build_input_shape"}, as Keras 3 writes a Sequential."""
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": dtype_policy_config(self.dtype),
                  "layers": [serialize_keras_object(layer) for layer in self._layers]}
        if self.built and self._known_input_shape is not None:
            config["build_input_shape"] = list(self._known_input_shape)
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
            model._maybe_build(as_shapes(
                shape, f"Sequential {model.name!r}: config['build_input_shape']", model.dtype))
        return model

    def get_build_config(self):
        if self.built and self._known_input_shape is not None:
            return {"input_shape": list(self._known_input_shape)}
        return None

    def build_from_config(self, config):
        shape = (config or {}).get("input_shape")
        if shape is not None and not self.built:
            self._maybe_build(as_shapes(shape, build_config_key(self), self.dtype))
