"""Activations by name, as `keras.activations`: `Dense(3, activation="relu")` looks them up here.

Each is a tk.nn op (its derivative rules beside its forward in tapekit/ops), with Keras's
argument names and defaults.

    >>> tk.keras.activations.get("relu")(tk.constant([-1.0, 1.0]))
    tk.Tensor([0. 1.], shape=(2,), dtype=float32)
    >>> tk.keras.activations.elu(tk.constant([-1.0, 1.0]))          # alpha (e^x - 1) below 0
    tk.Tensor([-0.63212055  1.        ], shape=(2,), dtype=float32)
    >>> tk.keras.activations.leaky_relu(tk.constant([-1.0, 1.0]))   # negative_slope=0.2
    tk.Tensor([-0.2  1. ], shape=(2,), dtype=float32)
"""
import weakref

from .. import ops   # tk.nn's activations, from where they are defined
from ..compiler.trace import Tracer
from ..context import state as _tape_state
from ..ops import clip_by_value, exp, log_sigmoid, tanh, where, zeros_like
from ..ops import sigmoid as sigmoid_op
from .identifiers import resolve
from .saving.serialization_lib import deserialize_keras_object, serialize_keras_object
from ..namespaces import public_dir
from .saving import lookup

__all__ = ["deserialize", "elu", "exponential", "gelu", "get", "get_activation", "hard_sigmoid",
           "hard_silu", "leaky_relu", "linear", "log_sigmoid", "log_softmax", "mish", "relu",
           "relu6", "selu", "serialize", "sigmoid", "silu", "softmax", "softplus", "softsign",
           "tanh"]


def linear(x):
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras's relu: x above `threshold` (0 at it), clipped to [0, `max_value`], plus
    `negative_slope * (x - threshold)` below it; with the defaults, tk.ops.relu."""
    if max_value is None and threshold == 0:
        return ops.relu(x) if negative_slope == 0 else ops.leaky_relu(x, alpha=negative_slope)
    # Keras's formula, so the values and gradients at the threshold (0) are its own
    y = where(x > threshold, x, zeros_like(x)) if threshold != 0 else ops.relu(x)
    if max_value is not None:
        y = clip_by_value(y, 0.0, max_value)     # Keras clips to [0, max_value]
    if negative_slope != 0:
        y = y - negative_slope * ops.relu(threshold - x)
    return y


def leaky_relu(x, negative_slope=0.2):
    return ops.leaky_relu(x, alpha=negative_slope)


def elu(x, alpha=1.0):
    y = ops.elu(x)
    return y if alpha == 1.0 else where(x > 0, y, alpha * y)


def gelu(x, approximate=False):
    return ops.gelu(x, approximate=approximate)


selu, relu6, softplus, softsign, silu = ops.selu, ops.relu6, ops.softplus, ops.softsign, ops.silu


# Keras 3 keeps the input of its sigmoid and softmax on their output (`_keras_logits`), and
# its cross-entropy losses read the loss from those logits, not from the clipped
# probabilities: a saturated output (sigmoid(30) is 1.0 in float32) still has its true loss
# (30, not -log(1e-7) = 16.1) and a nonzero gradient. tapekit's tensors have no free
# attributes, so the logits are kept here, by the output's id, while the output lives.
_LOGITS = {}


def _with_logits(output, logits):
    key = id(output)
    _LOGITS[key] = (weakref.ref(output, lambda _, key=key: _LOGITS.pop(key, None)), logits)
    return output


def keras_logits(output, op=None):
    """The logits `output` was computed from by Keras's sigmoid or softmax, else None.

    With `op` ("softmax" or "sigmoid"), inside tk.function (fit's steps, unless
    run_eagerly): also the input of that op (softmax on the last axis) when it computed
    `output`, as Keras 3's TensorFlow backend reads `output.op.inputs[0]` of a Softmax or
    Sigmoid op in a graph; tf.nn.softmax and tf.sigmoid are read so in tf.function, and
    clipped when eager. (A function tk.function runs eagerly, one using custom_gradient,
    sees no graph: its losses clip.)"""
    entry = _LOGITS.get(id(output))
    if entry is not None and entry[0]() is output:
        return entry[1]
    if op is None:
        return None
    tracer = next((t for t in reversed(_tape_state.tapes) if isinstance(t, Tracer)), None)
    made = tracer.producer(output) if tracer is not None else None
    if made is None or made[0] != op or len(made[1]) != 1 or made[1][0] is None:
        return None
    if op == "softmax" and made[2].get("axis", -1) not in (-1, output.ndim - 1):
        return None      # tf.nn.softmax on another axis is a Transpose in the graph, not Softmax
    return made[1][0]


def sigmoid(x):
    """1 / (1 + e^-x); the crossentropy losses read the loss from x (Keras 3)."""
    return _with_logits(sigmoid_op(x), x)


def softmax(x, axis=-1):
    """e^x / sum(e^x) along `axis`; the crossentropy losses read the loss from x (Keras 3)."""
    return _with_logits(ops.softmax(x, axis=axis), x)


def log_softmax(x, axis=-1):
    return ops.log_softmax(x, axis=axis)


def exponential(x):
    return exp(x)


def hard_sigmoid(x):
    """Keras 3's: relu6(x + 3) / 6 (0 below -3, 1 above 3, x / 6 + 1/2 between)."""
    return ops.relu6(x + 3.0) / 6.0


def hard_silu(x):
    """x * hard_sigmoid(x) (Keras's hard_silu, also named hard_swish)."""
    return x * hard_sigmoid(x)


def mish(x):
    """x * tanh(softplus(x)) (Misra, 2019), as Keras."""
    return x * tanh(ops.softplus(x))


# TensorFlow's own sigmoid and softmax, given as activations: kept as they are (their outputs
# carry no logits when eager), written in a config by their Keras names.
_TF_OPS = {sigmoid_op: "sigmoid", ops.softmax: "softmax"}

ACTIVATIONS = {"linear": linear, "relu": ops.relu, "sigmoid": sigmoid, "tanh": tanh,
               "softmax": softmax, "elu": elu, "leaky_relu": leaky_relu, "relu6": relu6,
               "selu": selu, "softplus": softplus, "softsign": softsign, "silu": silu,
               "swish": silu, "gelu": gelu, "exponential": exponential,
               "hard_sigmoid": hard_sigmoid, "hard_silu": hard_silu, "hard_swish": hard_silu,
               "mish": mish, "log_softmax": log_softmax, "log_sigmoid": log_sigmoid}


def get_activation(activation):
    """A callable for `activation`: None (linear), a name in ACTIVATIONS, a config dict, or a
    callable (a class too, as Keras's activations.get); the shared rule of identifiers.py.

    >>> tk.layers.get_activation("relu")(tk.constant([-1.0, 1.0]))
    tk.Tensor([0. 1.], shape=(2,), dtype=float32)
    >>> tk.layers.get_activation(None)(tk.constant([-1.0, 1.0]))      # linear
    tk.Tensor([-1.  1.], shape=(2,), dtype=float32)
    """
    if activation is None:
        return linear
    if activation is sigmoid_op or activation is ops.softmax:
        return activation       # as Keras keeps tf.ops.softmax: not Keras's (see keras_logits)
    # base=type: a class is returned as it is (callable, as Keras's get returns it), and a
    # dict is a config as Keras 3 writes a custom function.
    return resolve(activation, ACTIVATIONS, "activation", base=type,
                   configs=deserialize_keras_object, accepts="a callable activation(x)")


get = get_activation


def serialize(activation):
    """An activation as a layer's config holds it (Keras 3): the name of a built-in one, a
    function config for any other.

    >>> tk.keras.activations.serialize(tk.keras.activations.get("relu"))
    'relu'
    >>> tk.keras.activations.serialize(None)
    'linear'
    """
    fn = get_activation(activation)
    if fn is sigmoid_op or fn is ops.softmax:
        return _TF_OPS[fn]      # Keras 3 writes tf.sigmoid as "sigmoid"
    for name, known in ACTIVATIONS.items():
        if known is fn:
            return name
    return serialize_keras_object(fn)


def deserialize(config, custom_objects=None):
    """The activation a config names (a built-in's name, or a function config).

    >>> tk.keras.activations.deserialize("tanh") is tk.keras.activations.get("tanh")
    True
    """
    if isinstance(config, str) and custom_objects and config in custom_objects:
        return custom_objects[config]
    if isinstance(config, dict):
        return get_activation(deserialize_keras_object(config, custom_objects=custom_objects))
    return get_activation(config)


# A Keras config names these as keras.activations (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.activations", {name: globals()[name] for name in __all__},
                         functions=("activations", ACTIVATIONS))

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
