"""`keras.backend.get_value` / `set_value`: read and write a variable's value as NumPy (what
callbacks written for Keras use on `model.optimizer.learning_rate`); `epsilon()`, the fuzz
factor; `clear_session()`, which restarts the default names (utils/naming.py keeps them);
`backend()`, the name of what runs keras.ops: "tapekit".

    lr = float(tk.keras.backend.get_value(model.optimizer.learning_rate))
    tk.keras.backend.set_value(model.optimizer.learning_rate, lr / 2)
"""
import numpy as np

from ..tensor import Tensor, Variable
from ..namespaces import public_dir
from .utils.naming import clear_session

__all__ = ["backend", "clear_session", "epsilon", "get_value", "set_value"]

# keras.backend.epsilon() (Keras 3's keras.config.epsilon()): the clipping of probabilities and
# of denominators in the losses, the metrics and BatchNormalization's masked moments.
EPSILON = 1e-7


def backend():
    """The name of the backend that runs keras.ops and the layers: "tapekit".

    Keras 3 answers "tensorflow", "jax", "torch" or "numpy". Code written for Keras asks to pick
    a backend's own API (`if keras.backend.backend() == "tensorflow": import tensorflow as tf`)
    and keeps keras.ops for the rest: with "tapekit" it takes that branch, never a
    TensorFlow-only one that tapekit would not run.

    >>> tk.keras.backend.backend()
    'tapekit'
    """
    return "tapekit"


def epsilon():
    """The fuzz factor of numeric expressions, 1e-7 (`keras.backend.epsilon()`).

    >>> tk.keras.backend.epsilon()
    1e-07
    """
    return EPSILON


def get_value(x):
    """x's value as a NumPy array (x a tensor, a variable, or already a number/array).

    >>> tk.keras.backend.get_value(tk.Variable(2.5))
    array(2.5, dtype=float32)
    """
    return np.asarray(x.numpy() if isinstance(x, Tensor) else x)


def set_value(x, value):
    """Assign `value` to the variable x (`x.assign(value)`).

    >>> v = tk.Variable(1.0); tk.keras.backend.set_value(v, 0.25); float(v)
    0.25
    """
    if not isinstance(x, Variable):
        raise TypeError(f"set_value: x must be a tk.Variable (e.g. model.optimizer.learning_rate), "
                        f"got {type(x).__name__}; a tensor's value cannot change")
    x.assign(np.asarray(value, dtype=x.dtype))


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
