"""Activations by name, as `keras.activations`: `Dense(3, activation="relu")` looks them up here.

    >>> tk.keras.activations.get("relu")(tk.constant([-1.0, 1.0]))
    tk.Tensor([0. 1.], shape=(2,), dtype=float32)
"""
from .. import nn
from ..ops import sigmoid, tanh


def _linear(x):
    return x


ACTIVATIONS = {"linear": _linear, "relu": nn.relu, "sigmoid": sigmoid, "tanh": tanh,
               "softmax": nn.softmax}


def get_activation(activation):
    """A callable for `activation`: None, a name in ACTIVATIONS, or a callable.

    >>> tk.layers.get_activation("relu")(tk.constant([-1.0, 1.0]))
    tk.Tensor([0. 1.], shape=(2,), dtype=float32)
    >>> tk.layers.get_activation(None)(tk.constant([-1.0, 1.0]))      # linear
    tk.Tensor([-1.  1.], shape=(2,), dtype=float32)
    """
    if activation is None:
        return _linear
    if callable(activation):
        return activation
    if activation in ACTIVATIONS:
        return ACTIVATIONS[activation]
    raise ValueError(f"unknown activation {activation!r}; use one of {sorted(ACTIVATIONS)} "
                     f"or a callable")


get = get_activation
