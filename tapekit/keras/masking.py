"""Masks: which steps of a batch of sequences hold data and which are padding (Keras 3's).

    emb = tk.layers.Embedding(100, 8, mask_zero=True)
    x = emb(tk.constant([[5, 2, 0, 0]]))       # token 0 is padding
    x._keras_mask                              # [[True, True, False, False]]
    tk.layers.LSTM(4)(x)                       # steps 2 and 3 keep the state of step 1

A mask is a bool tensor, one entry per step, (batch, steps) for sequences: True where the
step holds data. A layer that makes one (Embedding(mask_zero=True), Masking) attaches it to
its output as the attribute `_keras_mask`, where Keras 3 keeps it. `Layer.__call__`
(layers/base.py) then reads it from the next layer's input: it passes it to a `call` that
takes `mask=` (the recurrent layers, GlobalAveragePooling1D, BatchNormalization), and puts
`compute_mask`'s answer on the output of a layer that `supports_masking` (Dense, Dropout,
the activations pass it on). A layer that does not support masking drops it, with Keras 3's
warning. The losses and metrics of compile weigh each step by the mask of the prediction
(losses/loss.py, metrics/base.py). Functional models: models/functional.py runs the graph with
masks, ZeroMasks below gives symbolic tensors theirs.
"""
import warnings

import numpy as np

from .. import nest
from ..convert import convert_to_tensor
from ..ops import not_equal, ones, reshape
from ..tensor import Tensor, Variable, wrap_array
from .keras_tensor import KerasTensor


def keras_mask(x):
    """The mask a layer attached to `x`, or None (any object: an array has none)."""
    return getattr(x, "_keras_mask", None)


def masks_of(structure):
    """The masks of a tensor or of each tensor of a structure (None where there is none)."""
    if isinstance(structure, Tensor):
        return getattr(structure, "_keras_mask", None)
    return nest.pack_like(structure, [keras_mask(t) for t in nest.flatten(structure)])


def any_mask(masks):
    return any(m is not None for m in nest.flatten(masks))


def unexpected_mask(layer):
    """Keras 3's TypeError for mask= given to a layer whose call takes none."""
    return TypeError(f"{type(layer).__name__}.call() got an unexpected keyword argument 'mask': "
                     f"layer {layer.name!r} takes no mask (Keras 3 raises too). A mask reaches "
                     f"it from its input's _keras_mask, and only a layer whose call takes mask= "
                     f"(LSTM, GlobalAveragePooling1D, ...) uses one")


def after_call(layer, inputs, outputs, previous_mask, warn=True):
    """Keras 3's step after a call: the outputs' masks if the layer supports masking, else
    its warning when a mask is lost (`warn=False` for a model: its layers took the mask)."""
    if layer.supports_masking:
        set_output_masks(layer, inputs, outputs, previous_mask)
    elif warn and any_mask(previous_mask):
        warnings.warn(f"Layer {layer.name!r} (of type {type(layer).__name__}) was passed an "
                      f"input with a mask attached to it. However, this layer does not "
                      f"support masking and will therefore destroy the mask information. "
                      f"Downstream layers will not see the mask.", stacklevel=3)


def set_output_masks(layer, inputs, outputs, previous_mask):
    """Keras 3's rule after a call: unless every output already carries a mask (Masking sets
    its own), each output without one gets the mask `compute_mask(inputs, previous_mask)`
    gives for it."""
    flat = nest.flatten(outputs)
    if all(keras_mask(t) is not None for t in flat):
        return
    computed = layer.compute_mask(inputs, previous_mask)
    if computed is None:
        return
    for tensor, mask in zip(flat, nest.flatten(computed)):
        if mask is not None and isinstance(tensor, Tensor) and keras_mask(tensor) is None:
            tensor._keras_mask = mask


def with_mask(x, mask):
    """`x` carrying `mask`, without changing the caller's tensor: a new Tensor object with the
    same value and tape id, so every tape (and a tk.function trace) sees `x` itself. Keras 3
    sets the mask on the caller's tensor, which a later call without `mask=` then still
    reads; here the caller's tensor keeps no mask."""
    if isinstance(x, Variable):
        x = x.read_value()           # a recorded read: the tape sees the variable used
    elif isinstance(x, Tensor):
        x = wrap_array(x._value, x._tid)
    else:
        x = convert_to_tensor(x)
    x._keras_mask = mask
    return x


def as_tensor_mask(mask, layer):
    """A mask given to `layer` as an array or nested lists of bools, as a tensor (Keras takes
    arrays); a list of masks (tensors, arrays or None: one per input) stays a list of them."""
    if mask is None or isinstance(mask, Tensor):
        return mask
    if isinstance(mask, (list, tuple)) and any(isinstance(m, (Tensor, np.ndarray)) or m is None
                                               for m in nest.flatten(mask)):
        return nest.pack_like(mask, [as_tensor_mask(m, layer) for m in nest.flatten(mask)])
    try:
        return convert_to_tensor(mask)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{_layer(layer)}: a mask must be bool (True where a step holds data), "
                        f"or numbers (nonzero for True), got {type(mask).__name__} that is "
                        f"neither ({e})") from None


def _layer(layer):
    return f"{type(layer).__name__} {layer.name!r}"


def step_mask(layer, mask, inputs, trailing_one=False):
    """`mask` checked against `inputs` for a layer that uses it: a bool tensor of shape
    `inputs.shape[:-1]` ((batch, steps) for sequences). Integer and float masks count their
    nonzero entries as True, as Keras casts them; `trailing_one` also takes the shape
    (batch, steps, 1) (the recurrent layers', as Keras's rnn). A list of masks (a layer
    called on [sequences, *initial_states]) is its first one, as Keras reads it."""
    if isinstance(mask, (list, tuple)):
        mask = mask[0] if mask else None
    if mask is None:
        return None
    mask = as_tensor_mask(mask, layer)
    what = _layer(layer)
    if mask.dtype.kind not in "biuf":
        raise TypeError(f"{what}: a mask must be bool (True where a step holds data), or "
                        f"numbers (nonzero for True), got dtype {mask.dtype.name}")
    want = tuple(inputs.shape[:-1])
    shape = tuple(mask.shape)
    if trailing_one and shape == want + (1,):
        mask = reshape(mask, want)
    elif shape != want:
        steps = "(batch, steps)" if len(want) == 2 else "inputs.shape[:-1]"
        allowed = f"{want} or {want + (1,)}" if trailing_one else f"{want}"
        raise ValueError(f"{what}: the mask must have shape {steps} = {allowed} for inputs "
                         f"of shape {tuple(inputs.shape)}, got a mask of shape {shape}")
    return mask if mask.dtype.kind == "b" else not_equal(mask, 0)


class ZeroMasks:
    """The masks of one symbolic call (the functional API), for output_spec.run_on_zeros: the
    zeros `call` runs on get all-True masks where the KerasTensors carry masks (or mask= names
    them), so a call that needs a mask sees one of the right shape; the masks the call leaves
    on its outputs become the symbolic outputs' `_keras_mask` KerasTensors (Keras 3 computes
    them symbolically)."""

    def __init__(self, flat_inputs, given, auto, warn):
        self.inputs = [keras_mask(t) for t in flat_inputs]
        self.given = given          # mask= of the call (KerasTensors), or None
        self.auto = auto            # the layer's rule for call(mask=) when none is given, or None
        self.warn = warn
        self.outputs = []

    @classmethod
    def if_any(cls, flat_inputs, given, auto, warn, makes_masks):
        """ZeroMasks for a call where masks are about (a masked input, mask=, a layer that
        writes compute_mask), else None: nothing to do."""
        if given is None and not makes_masks and all(keras_mask(t) is None for t in flat_inputs):
            return None
        return cls(flat_inputs, given, auto, warn)

    @staticmethod
    def _all_true(symbolic):
        if symbolic is None:
            return None
        return ones([1 if d is None else d for d in symbolic.shape], dtype="bool")

    def attach(self, zero, feed, kwargs):
        """All-True masks on the zeros and in kwargs["mask"]; returns the previous mask."""
        for z, m in zip(zero, self.inputs):
            if m is not None:
                z._keras_mask = self._all_true(m)
        if self.given is not None:
            kwargs["mask"] = nest.pack_like(self.given, [self._all_true(m)
                                                         for m in nest.flatten(self.given)])
            return kwargs["mask"]
        if self.auto is not None:
            kwargs["mask"] = self.auto(feed)
        return masks_of(feed)

    def read_outputs(self, layer, feed, out, previous):
        """The call's outputs on zeros: their masks, as after an eager call."""
        after_call(layer, feed, out, previous, warn=self.warn)
        self.outputs = [keras_mask(t) for t in nest.flatten(out)]

    def attach_to(self, outputs):
        """The outputs' masks as KerasTensors: a mask that covers the first axes of its output
        (a sequence's (batch, steps)) takes their sizes, unknown ones (None) included."""
        for t, m in zip(nest.flatten(outputs), self.outputs):
            if m is None:
                continue
            head = tuple(t.shape[1:m.ndim])
            ones_for_none = tuple(1 if d is None else d for d in head)
            shape = head if ones_for_none == tuple(m.shape[1:]) else tuple(m.shape[1:])
            t._keras_mask = KerasTensor((None,) + shape, m.dtype)
