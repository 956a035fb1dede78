"""Optimizers with Keras 3 (TensorFlow 2.11+) update rules: SGD, Adam, RMSprop.

    optimizer = tk.optimizers.SGD(learning_rate=0.01)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))

All state lives in tk.Variables (the learning rate, `iterations`, one slot per
variable for momentum or moments), and every update is written with tapekit ops and
`assign*`, never with Python numbers read from that state. That is what lets
`tk.function` record an optimizer step once and replay it: a replay reads the
current slots and step count, just as the eager step does.

The base class, with what every optimizer shares (clipping, weight decay, slots, config), is
in base_optimizer.py; each update rule is in a module of its own, as in Keras 3, and the
learning-rate schedules (`tk.optimizers.schedules`) are schedules.py.
"""
from ... import namespaces
from .. import identifiers
from ..saving import lookup
from . import schedules
from .adam import Adam
from .base_optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD


def get(identifier):
    """An optimizer from its name, with Keras's defaults ("sgd", "adam", "rmsprop"), or the
    optimizer itself (`keras.optimizers.get`, as compile(optimizer="adam") uses it).

    >>> tk.optimizers.get("adam")
    <Adam learning_rate=0.001, iterations=0>
    """
    return identifiers.resolve(identifier, _BY_NAME, "optimizer", base=Optimizer, functions=False,
                   accepts="an optimizer such as tk.optimizers.Adam(1e-3)")


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop}


# tk.optimizers: the names imported and defined above, and the schedules' namespace.
__all__ = identifiers.exported(globals(), modules=("schedules",))
# A Keras config names these as keras.optimizers (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.optimizers", {name: globals()[name] for name in __all__})

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
