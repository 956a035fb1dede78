"""The Layer base class: Keras 3's contract for `build`, `call`, weights and losses.

    layer = tk.layers.Dense(3, activation="relu")
    y = layer(tk.ones((2, 4)))        # builds the kernel (4, 3) and bias (3,) on first call
    layer.trainable_variables         # [kernel, bias], in creation order as in Keras

A layer creates its weights the first time it sees an input (`build`), or at once when
given `input_shape=`. Names follow Keras 3: `dense`, `dense_1`, ... per process; the
weights are named `kernel`, `bias`, with the paths `dense/kernel`, `dense/bias` (`.path`).

`Layer.__call__` is Keras 3's recipe (keras/src/layers/layer.py), in numbered steps below:
convert the inputs, build once, resolve `training` and the mask, call, keep the losses, put
the mask on the outputs. Whether `call` takes `training` (or `mask`) is read from its
signature once per class; it is passed only to a `call` that names it, as in Keras (a
`mask=` given to a call that takes none raises Keras's TypeError). Masks are keras/masking.py's;
the config (get_config / from_config) is config.py's LayerConfig, the weights (add_weight,
get_weights, ...) weights.py's LayerWeights; shapes found by running on zeros are
output_spec.py's.
"""
import functools
import inspect
import threading
import weakref

import numpy as np

from ... import dtypes, nest
from ...convert import convert_to_tensor
from ...display.format import plain
from ...module import Module, module_leaves
from ...ops import cast
from ...tensor import Tensor
from ... import restoring
from .. import regularizers
from ..activations import ACTIVATIONS
from ..keras_tensor import KerasTensor, Node, any_symbolic
from .. import masking
from ..saving.keras_saveable import KerasSaveable
from ..utils.naming import check_name, snake_name, unique_name
from .shapes import batchless, check_input, shape_list
from .config import ALLOWED_KWARGS, LayerConfig
from .output_spec import returned_none, run_on_zeros
from .weights import LayerWeights, regularized


_signatures = {}     # class -> (call takes training, call takes mask, training's default)


def _call_flags(cls):
    if cls not in _signatures:
        params = inspect.signature(cls.call).parameters
        default = params["training"].default if "training" in params else None
        _signatures[cls] = ("training" in params, "mask" in params,
                            None if default is inspect.Parameter.empty else default)
    return _signatures[cls]


class _CallContext(threading.local):
    """The `training` value of the outermost layer call, seen by the calls inside it."""
    entry = None
    training = None


_context = _CallContext()


def call_training():
    """The `training` of the layer call under way, or None (a graph lets it win over a node's)."""
    return _context.training


_loss_holders = weakref.WeakSet()    # layers that add_loss'ed since their last clear


def _marks_built(build):
    """`build`, then `built = True` and the shape it was given (for summary and the build
    config) unless a call recorded one first (Layer.__init_subclass__)."""
    if getattr(build, "_marks_built", False):
        return build

    @functools.wraps(build)
    def build_and_mark(self, *args, **kwargs):
        result = build(self, *args, **kwargs)
        shape = args[0] if args else kwargs.get("input_shape")
        if getattr(self, "_build_shape", None) is None and shape is not None:
            self._build_shape = shape
            if getattr(self, "input_shape", None) is None:   # (a Sequential's may raise)
                self.input_shape = batchless(shape)
        self.built = True
        if restoring.waiting():     # a Checkpoint.restore kept values for this layer's weights
            restoring.retry()
        return result
    build_and_mark._marks_built = True
    return build_and_mark


# The config and the weights are the mixins of config.py and weights.py. KerasSaveable
# (saving/keras_saveable.py) has no behaviour: a weights file gives each KerasSaveable a group
# of its own, so saving's walk knows the layers without importing them.
class Layer(LayerConfig, LayerWeights, KerasSaveable, Module):
    """Base class: subclasses implement `build(input_shape)` and `call(inputs)`.

    `call` may take `training=None` (Dropout, BatchNormalization); it then receives the
    value given to this call or to the outermost layer call around it.

    >>> class Scale(tk.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.s = self.add_weight(shape=input_shape[-1:], initializer="ones", name="s")
    ...     def call(self, x):
    ...         return x * self.s
    >>> layer = Scale()
    >>> layer(tk.constant([[1.0, 2.0]]))            # built on the first call
    tk.Tensor([[1. 2.]], shape=(1, 2), dtype=float32)
    >>> [(v.name, v.path) for v in layer.trainable_variables]    # Keras 3's names and paths
    [('s', 'scale/s')]
    """

    _sorted_attributes = False   # weights in creation order (kernel, then bias), as Keras
    # Keras 3's supports_masking: None means "when the class writes its own compute_mask";
    # layers that pass a mask on unchanged (Dense, Dropout, the activations) set True.
    _supports_masking = None
    # A model hands the masks of its inputs to its layers: nothing is lost, so no warning
    # (Keras 3 warns there too, as its models do not support masking themselves).
    _hands_masks_to_layers = False
    # The input ranks a layer takes (Keras's InputSpec): Dense needs (batch, features).
    min_ndim = None
    ndim = None
    # Keras converts float inputs to the layer's dtype and leaves integers to its ops, which
    # promote them (uint8 pixels @ a float32 kernel -> float32). tapekit's ops do not
    # promote (TensorFlow's rule), so layers whose math mixes inputs with float weights cast
    # integer inputs too; shape-only layers (Flatten, Reshape) and Embedding keep them.
    _cast_integer_inputs = False

    def __init_subclass__(cls, **kwargs):
        """A subclass's own `build` marks the layer built when it returns, also when called
        directly (`layer.build((None, 4))`, as keras.io's guides do): the first call then keeps
        those weights instead of building a second set (Keras 3 wraps `build` the same way)."""
        super().__init_subclass__(**kwargs)
        if "build" in vars(cls):
            cls.build = _marks_built(vars(cls)["build"])

    def __init__(self, *, name=None, dtype=None, trainable=True, activity_regularizer=None, **kwargs):
        unknown = set(kwargs) - ALLOWED_KWARGS
        if unknown:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                             f"{ {k: kwargs[k] for k in sorted(unknown)} }")
        # Keras 3: any name without "/" ("" too); None for the default dense, dense_1, ...
        super().__init__(name=unique_name(snake_name(type(self).__name__)) if name is None else name)
        self.dtype = dtypes.as_dtype(dtype or dtypes.float32)
        self._trainable = bool(trainable)
        self.built = False
        self.autocast = kwargs.get("autocast", True)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._weights, self._losses, self._regularizers, self._inbound_nodes = [], [], [], []
        shape = kwargs.get("input_shape")
        if kwargs.get("input_dim") is not None:
            shape = (kwargs["input_dim"],)
        if kwargs.get("batch_input_shape") is not None:
            shape = tuple(kwargs["batch_input_shape"])[1:]
        shape = None if shape is None else (kwargs.get("batch_size"),) + tuple(shape)
        self.input_shape = shape
        if shape is not None:
            self._maybe_build(shape)

    # --- losses -----------------------------------------------------------------------------
    def add_loss(self, loss):
        """Keep a loss tensor (a penalty) computed in `call`; `model.losses` collects them.

        Losses belong to one forward pass: the outermost layer call clears them first.

        >>> class Penalty(tk.layers.Layer):
        ...     def call(self, x):
        ...         self.add_loss(0.5 * tk.reduce_sum(x))
        ...         return x
        >>> layer = Penalty()
        >>> _ = layer(tk.ones((2, 2)))
        >>> layer.losses
        [tk.Tensor(2.0, shape=(), dtype=float32)]
        """
        self.__dict__.setdefault("_losses", []).extend(nest.flatten(loss))
        _loss_holders.add(self)

    @property
    def losses(self):
        """The add_loss losses of this layer and its sublayers, then weight regularization."""
        if not _loss_holders and not regularized:
            return []   # no layer anywhere has a loss: no walk (fit asks at every step)
        layers = [self] + self._flatten_layers(recursive=True)
        out = []
        for layer in layers:
            out += layer.__dict__.get("_losses", [])
        for layer in layers:
            out += [reg(var) for var, reg in layer.__dict__.get("_regularizers", [])]
        return out

    def _clear_losses(self):
        if not _loss_holders:       # nothing to clear: no walk over the sublayers
            return
        for layer in [self] + self._flatten_layers(recursive=True):
            layer.__dict__["_losses"] = []
            _loss_holders.discard(layer)

    def _valid_name(self, name):            # Keras's rule, not tf.Module's (module.py)
        return check_name(name, f"{type(self).__name__}(name=...)")

    def _flatten_layers(self, recursive=False):
        """The layers held in attributes (also in lists and dicts), in assignment order."""
        if not recursive:
            return [x for x in module_leaves(self) if isinstance(x, Layer) and x is not self]
        return [m for m in self.submodules if isinstance(m, Layer)]

    # --- masks (keras/masking.py) ---------------------------------------------------------------
    supports_masking = property(
        lambda self: type(self).compute_mask is not Layer.compute_mask    # Keras 3's default
        if self._supports_masking is None else self._supports_masking,
        lambda self, value: setattr(self, "_supports_masking", bool(value)),
        doc="Whether the layer puts a mask on its outputs (compute_mask's): layers that pass "
            "one on (Dense, Dropout) or make one (Embedding(mask_zero=True)), as in Keras 3. "
            "A layer that does not drops its input's mask, with a warning.")

    def compute_mask(self, inputs, previous_mask):
        """The mask of the output: by default the input's (`previous_mask`), unchanged.
        Embedding(mask_zero=True) makes one, `inputs != 0`; a layer may write its own."""
        return previous_mask

    def _auto_mask(self, inputs):      # call(mask=) gets the inputs' mask unless given one
        return masking.masks_of(inputs)

    # --- build and call ---------------------------------------------------------------------
    def build(self, input_shape):
        self.built = True

    def call(self, inputs):
        raise NotImplementedError(f"{type(self).__name__} must implement call(inputs)")

    def compute_output_shape(self, input_shape):
        """The output shape for `input_shape` (None for unknown sizes). This default runs
        `call` on zeros (unknown sizes as 1) without recording on any tape and reads the
        shape: layers whose output shape is known without running override it."""
        return run_on_zeros(self, input_shape, [self.dtype] * len(shape_list(input_shape)))[0]

    def _maybe_build(self, input_shape):
        for i, shape in enumerate(shape_list(input_shape)):
            check_input(self, shape, i)
        if not self.built:
            self.input_shape = batchless(input_shape)
            self._build_shape = input_shape     # with its batch size: summary() shows it, as Keras
            self.build(input_shape)
            self.built = True

    def __call__(self, *args, **kwargs):
        if "_inbound_nodes" not in vars(self):
            raise RuntimeError(f"{type(self).__name__}.__init__ must call super().__init__(**kwargs) "
                               f"before the layer is used")
        inputs, args = (args[0], args[1:]) if args else (kwargs.pop("inputs"), ())
        has_training, has_mask, default = _call_flags(type(self))
        if "mask" in kwargs and not has_mask:
            raise masking.unexpected_mask(self)
        mask = kwargs.get("mask")
        if any_symbolic(inputs) or (mask is not None and any_symbolic(mask)):
            return self._symbolic_call(inputs, args, kwargs, has_training)

        # 1. Convert array inputs to tensors and cast them to the layer's dtype (masks kept).
        inputs = self._convert_inputs(inputs)
        # 2. Check the input ranks and sizes; build the weights on the first call.
        self._maybe_build(nest.pack_like(inputs, [t.shape for t in nest.flatten(inputs)]))
        # 3. The mask: mask= if given, else the one the inputs carry (passed to a call that
        # takes mask=); what compute_mask reads as the previous mask.
        if mask is None:
            previous_mask = getattr(inputs, "_keras_mask", None) if isinstance(inputs, Tensor) \
                else masking.masks_of(inputs)
            if has_mask:
                kwargs["mask"] = self._auto_mask(inputs)
        else:
            previous_mask = kwargs["mask"] = masking.as_tensor_mask(mask, self)
        # 4. Resolve training: given here, else the outer call's, else call's default.
        entry = _context.entry is None
        if entry:
            _context.entry, _context.training = self, None
            self._clear_losses()
        try:
            training = kwargs.pop("training", None)
            if training is None:
                training = _context.training if _context.training is not None else default
            _context.training = training
            if has_training and training is not None:
                kwargs["training"] = training
            # 5. Call.
            outputs = self.call(inputs, *args, **kwargs)
            if outputs is None:
                raise returned_none(self)
            regularizers.add_activity_penalties(self, outputs)    # 6. activity_regularizer's
            # 7. The outputs' masks, or Keras 3's warning that one is lost (no mask in: none
            # to pass on, unless the layer makes one, as Embedding(mask_zero=True))
            if previous_mask is not None or type(self).compute_mask is not Layer.compute_mask:
                masking.after_call(self, inputs, outputs, previous_mask,
                                   warn=not self._hands_masks_to_layers)
            return outputs
        finally:
            if entry:
                _context.entry = _context.training = None

    def _convert_inputs(self, inputs):
        if isinstance(inputs, (list, tuple)) and not any(
                isinstance(t, (Tensor, np.ndarray)) for t in nest.flatten(inputs)):
            inputs = np.asarray(inputs)       # nested lists of numbers: one array
        return nest.pack_like(inputs, [self._convert(t) for t in nest.flatten(inputs)])

    def _convert(self, x):
        if not isinstance(x, Tensor):
            kind = np.asarray(x).dtype.kind
            cast_it = self.autocast and (kind == "f" or (kind in "iub" and self._cast_integer_inputs))
            return convert_to_tensor(x, dtype=self.dtype if cast_it else None)
        if self.autocast and x.dtype != self.dtype and (
                x.dtype.kind == "f" or (x.dtype.kind in "iub" and self._cast_integer_inputs)):
            y = cast(x, self.dtype)   # Keras casts float inputs to the layer's dtype
            mask = getattr(x, "_keras_mask", None)
            if mask is not None:      # the cast is a new tensor: the mask goes with it
                y._keras_mask = mask
            return y
        return x

    def _output_dtype(self, dtype):
        cast_it = self.autocast and (dtype.kind == "f" or self._cast_integer_inputs)
        return self.dtype if cast_it else dtype

    def _symbolic_call(self, inputs, args, kwargs, has_training):
        """Calling a layer on KerasTensors (functional API): build, infer the output, record a
        Node. When masks are about (a masked input, mask=, a layer that makes masks), call runs
        on zeros with all-True masks, and the outputs' KerasTensors carry theirs, as Keras's."""
        flat = nest.flatten(inputs)
        shapes = nest.pack_like(inputs, [t.shape for t in flat])
        self._maybe_build(shapes)
        masks = masking.ZeroMasks.if_any(
            flat, kwargs.get("mask"), self._auto_mask if _call_flags(type(self))[1] else None,
            warn=not self._hands_masks_to_layers,
            makes_masks=type(self).compute_mask is not Layer.compute_mask)
        if type(self).compute_output_shape is not Layer.compute_output_shape:
            out_shapes = self.compute_output_shape(shapes)
            out_shapes = out_shapes if isinstance(out_shapes, list) else [out_shapes]
            out_dtypes = [self._output_dtype(flat[0].dtype if flat else self.dtype)] * len(out_shapes)
            structure = None
            if masks is not None:        # the outputs' masks from a run on zeros
                run_on_zeros(self, shapes, [t.dtype for t in flat], args, kwargs, masks=masks)
        else:
            out_shapes, out_dtypes, structure = run_on_zeros(
                self, shapes, [t.dtype for t in flat], args, kwargs, with_structure=True,
                masks=masks)
        outputs = [KerasTensor(s, d, name=unique_name("keras_tensor"))
                   for s, d in zip(out_shapes, out_dtypes)]
        if masks is not None:
            masks.attach_to(outputs)
        outputs = outputs[0] if structure is None and len(outputs) == 1 else \
            nest.pack_like(structure, outputs) if structure is not None else outputs
        Node(self, inputs, outputs, dict(kwargs, _args=args))
        return outputs

    # --- the layer's place in a functional graph (Keras 3: its first call on KerasTensors) ---
    def _first_node(self, what):
        if not self.__dict__.get("_inbound_nodes"):
            raise AttributeError(f"The layer {plain(self.name)} has never been called on symbolic inputs "
                                 f"and thus has no defined {what}. Call it on tk.Input(...) first")
        return self._inbound_nodes[0]

    input = property(lambda self: self._first_node("input").inputs,
                     doc="The KerasTensor(s) of this layer's first symbolic call (Keras 3).")
    output = property(lambda self: self._first_node("output").outputs,
                      doc="What this layer's first symbolic call returned: `tk.Model(m.inputs, "
                          "[l.output for l in m.layers])` extracts every layer's features.")

    def __repr__(self):   # Keras 3's: <Dense name=dense, built=True>, and a Model made from
        # inputs and outputs is "Functional"; the name escaped (a newline stays one line)
        functional = type(self).__name__ == "Model" and self.__dict__.get("_graph") is not None
        kind = "Functional" if functional else type(self).__name__
        return f"<{kind} name={plain(self.name)}, built={self.built}>"

    # --- pickling ----------------------------------------------------------------------------
    def __getstate__(self):
        """pickle/copy: the layer's attributes, built-in activations by name."""
        state = dict(self.__dict__)
        for key, value in state.items():           # built-in activations travel by name
            name = next((n for n, fn in ACTIVATIONS.items() if fn is value), None)
            if name is not None:
                state[key] = _ActivationByName(name)
        return state

    def __setstate__(self, state):
        state = {k: ACTIVATIONS[v.name] if isinstance(v, _ActivationByName) else v
                 for k, v in state.items()}
        constraints = state.pop("_constraints", None)   # a pickle made before issue 45: by weight
        if isinstance(constraints, list):
            for var, constraint in constraints:
                var._constraint = constraint
        self.__dict__.update(state)
        if state.get("_regularizers"):
            regularized.add(self)
        if state.get("_losses"):
            _loss_holders.add(self)


class _ActivationByName:
    """A built-in activation in a pickled layer: its name (the op itself is not picklable)."""

    def __init__(self, name):
        self.name = name
