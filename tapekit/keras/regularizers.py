"""Weight penalties (`keras.regularizers`): `Dense(..., kernel_regularizer=tk.regularizers.L2(0.01))`.

A regularizer is a function of a weight that returns a scalar penalty. A layer given one
adds the penalty to its `losses` (Keras's `add_loss` for weights), and `fit` adds
`model.losses` to the loss it differentiates, so the gradient of `l2 * sum(w**2)`,
`2 * l2 * w`, pulls each weight toward zero.

    >>> layer = tk.layers.Dense(1, kernel_initializer="ones",
    ...                         kernel_regularizer=tk.regularizers.L2(0.1))
    >>> _ = layer(tk.ones((1, 3)))
    >>> layer.losses                       # 0.1 * (1 + 1 + 1)
    [tk.Tensor(0.3, shape=(), dtype=float32)]
"""
from .. import dtypes, nest
from ..convert import convert_to_tensor
from ..ops import abs, cast, divide_no_nan, reduce_sum, square
from ..tensor import Tensor
from .identifiers import resolve
from .saving.serialization_lib import deserialize_keras_object
from ..namespaces import public_dir
from .saving import lookup

__all__ = ["L1", "L1L2", "L2", "Regularizer", "get", "l1", "l1_l2", "l2"]


def _factor(value, what, cls):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
        raise ValueError(f"{cls}: {what} must be a number >= 0, got {value!r}")
    return float(value)


class Regularizer:
    """Base class: a subclass implements `__call__(weight) -> scalar tensor`.

    >>> class Sum(tk.regularizers.Regularizer):
    ...     def __call__(self, x):
    ...         return 0.5 * tk.reduce_sum(x)
    >>> layer = tk.layers.Dense(1, kernel_initializer="ones", kernel_regularizer=Sum())
    >>> _ = layer(tk.ones((1, 2)))
    >>> layer.losses
    [tk.Tensor(1.0, shape=(), dtype=float32)]
    """

    def __call__(self, x):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(x)")

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x**2)` (both 0 by default).

    >>> tk.regularizers.L1L2(l1=0.5, l2=0.25)(tk.constant([1.0, -2.0]))   # 0.5*3 + 0.25*5
    tk.Tensor(2.75, shape=(), dtype=float32)
    """

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _factor(l1, "l1", type(self).__name__)
        self.l2 = _factor(l2, "l2", type(self).__name__)

    def __call__(self, x):
        x = _float(x)
        total = 0.0
        if self.l1:
            total = self.l1 * reduce_sum(abs(x))
        if self.l2:
            total = total + self.l2 * reduce_sum(square(x))
        return total if not isinstance(total, float) else cast(0.0, x.dtype) + total

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v}' for k, v in self.get_config().items())})"


class L1(L1L2):
    """`l1 * sum(|x|)`; its gradient `l1 * sign(x)` pushes every weight toward 0 by the
    same step, so small weights reach 0 (sparse weights). Default l1=0.01.

    >>> tk.regularizers.L1(0.1)(tk.constant([1.0, -3.0]))
    tk.Tensor(0.4, shape=(), dtype=float32)
    """

    def __init__(self, l1=0.01):
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    """`l2 * sum(x**2)` (weight decay); its gradient is `2 * l2 * x`. Default l2=0.01.

    >>> tk.regularizers.L2(0.1)(tk.constant([1.0, -3.0]))
    tk.Tensor(1.0, shape=(), dtype=float32)
    """

    def __init__(self, l2=0.01):
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


def add_activity_penalties(layer, outputs):
    """Layer.__call__'s step 5: the penalty that a layer's `activity_regularizer` puts on each
    of its output tensors, over the batch size (Keras 3: the strength does not grow with the
    batch), added to the layer's losses. Nothing for a layer without one.

    >>> layer = tk.layers.Dense(2, kernel_initializer="ones", use_bias=False,
    ...                         activity_regularizer=tk.regularizers.L1(0.25))
    >>> _ = layer(tk.ones((4, 3)))        # 4 rows of [3, 3]: 0.25 * (4 * 6) / 4
    >>> layer.losses
    [tk.Tensor(1.5, shape=(), dtype=float32)]
    """
    regularizer = layer.__dict__.get("activity_regularizer")
    if regularizer is None:
        return
    penalties = []
    for y in nest.flatten(outputs):
        if isinstance(y, Tensor):
            penalty = regularizer(y)
            if y.ndim > 0:
                penalty = divide_no_nan(penalty, cast(y.shape[0], penalty.dtype))
            penalties.append(penalty)
    layer.add_loss(penalties)


def _float(x):
    x = convert_to_tensor(x)
    return x if x.dtype.kind == "f" else cast(x, dtypes.float32)


l1, l2, l1_l2 = L1, L2, L1L2
_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": L1L2, "L1": L1, "L2": L2, "L1L2": L1L2}


def get(identifier):
    """A regularizer from a name ("l2"), a dict {"class_name": ..., "config": ...}, a
    Regularizer, a callable, or None.

    >>> tk.regularizers.get("l2")
    L2(l2=0.01)
    """
    return resolve(identifier, _BY_NAME, "regularizer", base=Regularizer, none=True,
                   configs=_from_config,
                   accepts="a tk.regularizers.Regularizer or a callable weight -> scalar")


def _from_config(config):
    """A regularizer from the config a layer's config holds: Keras 3's
    {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.01}, ...}, what
    tapekit wrote before ({"module": "tapekit.keras.regularizers", ...}), a bare
    {"class_name": "l2", "config": ...}, or a registered or custom class's config."""
    cls = _BY_NAME.get(config.get("class_name"))
    if cls is not None and config.get("module") in _MODULES:
        return cls.from_config(config.get("config") or {})
    return deserialize_keras_object(config)


_MODULES = (None, "keras.regularizers", "tapekit.keras.regularizers")


# A Keras config names these as keras.regularizers (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.regularizers", {name: globals()[name] for name in __all__})

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
