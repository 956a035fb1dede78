"""Model: a Layer with training (`compile`/`fit` from the Trainer mixin) and `summary`.

Two ways to make one, as in Keras 3:

    class MyModel(tk.Model):                          # subclassing: write call()
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = tk.layers.Dense(10)
        def call(self, inputs, training=None):
            return self.dense(inputs)

    inputs = tk.Input(shape=(784,))                   # functional: a graph of layer calls
    model = tk.Model(inputs=inputs, outputs=tk.layers.Dense(10)(inputs))
"""
import json

import numpy as np

from ..utils.naming import unique_name
from ..layers.base import Layer
from ..layers.config import as_shapes, build_config_key
from ..saving import saving_lib, weights_h5
from ..saving.serialization_lib import serialize_keras_object
from ..trainers.trainer import Trainer
from . import config as _config
from . import summary as _summary
from .functional import Graph


class Model(Trainer, Layer):
    """A model: subclass it and write `call`, or give `inputs=` and `outputs=` (functional).

    >>> tk.layers.clear_session()
    >>> inputs = tk.Input(shape=(3,), name="x")
    >>> hidden = tk.layers.Dense(4, activation="relu")(inputs)
    >>> model = tk.Model(inputs=inputs, outputs=tk.layers.Dense(1)(hidden))
    >>> model(tk.ones((2, 3))).shape
    (2, 1)
    >>> [layer.name for layer in model.layers]
    ['x', 'dense', 'dense_1']

    >>> class TwoLayers(tk.Model):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.hidden = tk.layers.Dense(4, activation="relu")
    ...         self.out = tk.layers.Dense(1)
    ...     def call(self, inputs):
    ...         return self.out(self.hidden(inputs))
    >>> model = TwoLayers()
    >>> model(tk.ones((2, 3))).shape, model.name, len(model.trainable_weights)
    ((2, 1), 'two_layers', 4)
    """

    # A model hands the masks its inputs carry (or mask=) to its layers, which pass them on.
    _hands_masks_to_layers = True

    def __init__(self, *args, inputs=None, outputs=None, name=None, **kwargs):
        if args:
            inputs, outputs = (args + (outputs,))[:2] if len(args) == 1 else args[:2]
        if inputs is None and outputs is None:
            super().__init__(name=name, **kwargs)
            self._graph = None
            return
        if inputs is None or outputs is None:
            raise ValueError("Model: a functional model needs both inputs= and outputs= "
                             "(KerasTensors from tk.Input and the layers called on it)")
        super().__init__(name=unique_name("functional") if name is None else name, **kwargs)
        self._graph = Graph(inputs, outputs)
        self._layers = self._graph.layers
        # Keras 3: model.inputs / model.outputs are flat lists; model.input / .output the
        # structures given.
        self.inputs, self.outputs = list(self._graph.flat_inputs), list(self._graph.flat_outputs)
        shapes = [t.shape for t in self._graph.flat_inputs]
        self.input_shape = shapes[0] if len(shapes) == 1 else shapes
        self.built = True

    @property
    def layers(self):
        """The model's layers: the graph's (Inputs included) for a functional model, else the
        layers held in attributes, in assignment order."""
        if self._functional:
            return list(self._layers)
        return self._flatten_layers()

    @property
    def output_shape(self):
        """A functional model's output shape: one batch shape, or a list of them for several
        outputs (Keras 3). A subclassed model has none (AttributeError, as in Keras 3).

        >>> x = tk.Input(shape=(3,))
        >>> tk.Model(x, tk.layers.Dense(2)(x)).output_shape
        (None, 2)
        """
        if not self._functional:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute "
                                 f"'output_shape'", name="output_shape", obj=self)
        shapes = [tuple(t.shape) for t in self._graph.flat_outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def _functional(self):
        return self.__dict__.get("_graph") is not None

    def get_layer(self, name=None, index=None):
        """A layer by name or by index in `model.layers`.

        >>> model = tk.Sequential([tk.layers.Dense(2, name="hidden")])
        >>> model.get_layer("hidden").name
        'hidden'
        """
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"{self.name}: no layer named {name!r}; the layers are "
                         f"{[layer.name for layer in self.layers]}")

    def call(self, inputs, training=None, mask=None):
        if not self._functional:
            raise NotImplementedError(
                f"{type(self).__name__} must implement call(self, inputs, training=None), or be "
                f"made functional with tk.Model(inputs=..., outputs=...)")
        return self._graph.run(inputs, mask)

    def _convert_inputs(self, inputs):
        # A functional model converts its inputs to its Inputs' dtypes as it runs them.
        return self._graph.convert(inputs) if self._functional else super()._convert_inputs(inputs)

    def build(self, input_shape):
        """A subclassed model is built by its first call (Keras runs it on the shape too)."""
        self.built = True

    def compute_output_shape(self, input_shape):
        if self._functional:
            out = [t.shape for t in self._graph.flat_outputs]
            return out[0] if len(out) == 1 else out
        return super().compute_output_shape(input_shape)

    @property
    def input(self):
        """The Input(s) of a functional model, in the structure given to Model(inputs=...)."""
        if self._functional:
            return self._graph.inputs
        return Layer.input.fget(self)

    @property
    def output(self):
        """The output KerasTensor(s) of a functional model, as given to Model(outputs=...)."""
        if self._functional:
            return self._graph.outputs
        return Layer.output.fget(self)

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Print the model's layers, output shapes and parameter counts in Keras 3's box
        (`Model.summary`); a functional model that is not a chain also shows what each layer
        is connected to (`layer[node][tensor]`).

        >>> tk.layers.clear_session()
        >>> inputs = tk.Input(shape=(8,), name="img")
        >>> a, b = tk.layers.Dense(4, name="a")(inputs), tk.layers.Dense(4, name="b")(inputs)
        >>> out = tk.layers.Dense(1, name="out")(tk.layers.Add(name="add")([a, b]))
        >>> tk.Model(inputs, out, name="fun").summary(line_length=76)
        Model: "fun"
        ┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
        ┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
        ┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
        │ img (InputLayer)    │ (None, 8)         │          0 │ -                 │
        ├─────────────────────┼───────────────────┼────────────┼───────────────────┤
        │ a (Dense)           │ (None, 4)         │         36 │ img[0][0]         │
        ├─────────────────────┼───────────────────┼────────────┼───────────────────┤
        │ b (Dense)           │ (None, 4)         │         36 │ img[0][0]         │
        ├─────────────────────┼───────────────────┼────────────┼───────────────────┤
        │ add (Add)           │ (None, 4)         │          0 │ a[0][0], b[0][0]  │
        ├─────────────────────┼───────────────────┼────────────┼───────────────────┤
        │ out (Dense)         │ (None, 1)         │          5 │ add[0][0]         │
        └─────────────────────┴───────────────────┴────────────┴───────────────────┘
         Total params: 77 (308.00 B)
         Trainable params: 77 (308.00 B)
         Non-trainable params: 0 (0.00 B)
        """
        if expand_nested or show_trainable or layer_range is not None:
            raise NotImplementedError("summary: expand_nested, show_trainable and layer_range "
                                      "are not supported yet")
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling it on a batch of data, or give its first layer "
                             "input_shape=... (or start a Sequential with tk.Input(shape=...))")
        graph = self.__dict__.get("_graph")
        sequential_like, nodes = True, None
        if graph is not None:
            nodes = {id(n) for n in graph.nodes}
            consumers = {}
            for n in graph.nodes:
                for t in n.input_tensors:
                    consumers[id(t)] = consumers.get(id(t), 0) + 1
            # Keras: one node at each depth, each reading at most one tensor
            sequential_like = (len(graph.flat_inputs) == 1
                               and all(len(n.input_tensors) <= 1 for n in graph.nodes)
                               and all(c <= 1 for c in consumers.values())
                               and len(graph.layers) == len(graph.nodes))
        _summary.summary(self, self.layers, sequential_like, nodes, line_length, positions, print_fn)

    def save_weights(self, filepath, overwrite=True):
        """Write the weights to `filepath` (`*.weights.h5`) in Keras 3's layout: Keras 3 loads
        the file into the same architecture (keras/saving/weights_h5.py)."""
        weights_h5.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False):
        """Read weights that `save_weights` or Keras 3 wrote (`*.weights.h5` or `*.keras`);
        a file that does not fit raises and changes nothing."""
        weights_h5.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    # --- compile's arguments, configs, saving and pickling (Keras 3) -------------------------
    def compile(self, *args, **kwargs):
        """Trainer.compile, remembering its arguments for the compile config that `save`
        writes (so load_model compiles the model again, as Keras 3 does)."""
        super().compile(*args, **kwargs)
        try:
            self._compile_arguments = _config.compile_arguments(Trainer.compile, args, kwargs)
        except TypeError:              # compile took them; a later signature may differ
            self._compile_arguments = None

    def get_compile_config(self):
        return _config.compile_config(self)

    def compile_from_config(self, config):
        _config.compile_from_config(self, config)

    def get_config(self):
        """A functional model's graph ("layers" with their "inbound_nodes", "input_layers",
        "output_layers"), or a subclassed model's name, trainable and dtype: a subclass whose
        __init__ takes arguments overrides get_config to add them (Keras 3's rule)."""
        if self._functional:
            return _config.functional_config(self)
        return Layer.get_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A model from get_config's dict (or Keras 3's): the functional graph is rebuilt
        layer by layer; a subclass is called as `cls(**config)`."""
        if "input_layers" in config and "layers" in config:
            return _config.functional_from_config(cls, config, custom_objects)
        return super().from_config(config)

    def get_build_config(self):
        if self._functional:
            return None
        return Layer.get_build_config(self)

    def build_from_config(self, config):
        """A subclassed model makes its weights by a call on zeros of the built shape (no tape
        records it), as Keras 3 builds one before loading its weights."""
        shape = (config or {}).get("input_shape")
        if self.built or shape is None:
            return
        shapes = as_shapes(shape, build_config_key(self), self.dtype)
        flat = shapes if isinstance(shapes, list) else [shapes]
        zeros = [np.zeros([1 if d is None else d for d in s], self.dtype) for s in flat]
        self(zeros if isinstance(shapes, list) else zeros[0], training=False)

    def save(self, filepath, overwrite=True, zipped=True, **kwargs):
        """Write the model to `filepath` (ending in .keras) in Keras 3's format: config.json,
        model.weights.h5 and metadata.json in a zip. `tk.models.load_model` and Keras 3's
        `keras.models.load_model` read it."""
        if kwargs:
            raise TypeError(f"save: unexpected arguments {sorted(kwargs)} (tapekit writes the "
                            f".keras format only)")
        saving_lib.save_model(self, filepath, overwrite=overwrite, zipped=zipped)

    def to_json(self, **kwargs):
        """The model's config (as in config.json) as a JSON string; `tk.models.model_from_json`
        makes the model again, without its weights.

        >>> model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2, name="out")])
        >>> tk.models.model_from_json(model.to_json()).get_layer("out").units
        2
        """
        return json.dumps(serialize_keras_object(self), **kwargs)

    def __getstate__(self):
        """pickle/copy.deepcopy: the layers, weights, optimizer and compile settings; the
        compiled step functions are dropped and made again at the next fit/evaluate/predict,
        as Keras 3 does when it copies a model."""
        state = Layer.__getstate__(self)
        for key in ("train_function", "test_function", "predict_function"):
            if key in state:
                state[key] = None
        state.pop("history", None)          # a History holds the model and the last fit's logs
        return state
