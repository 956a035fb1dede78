"""Weight constraints (`keras.constraints`): `Dense(..., kernel_constraint=tk.constraints.MaxNorm(2))`.

A constraint is a function of a weight that returns the weight projected back into a set: the
weights whose norm is at most 2, the non-negative weights. Where a regularizer adds a penalty to
the loss, a constraint acts after each step: the optimizer updates a variable, then assigns
`constraint(variable)` to it (Keras 3's `optimizer.apply`). The gradient never sees it.

    >>> w = tk.Variable([[3.0], [4.0]], constraint=tk.constraints.MaxNorm(1.0))
    >>> _ = tk.optimizers.SGD(0.0).apply([tk.zeros((2, 1))], [w])   # a step, then the projection
    >>> w.numpy().round(4)                                           # norm 5 scaled to norm 1
    array([[0.6],
           [0.8]], dtype=float32)

The norms are taken along `axis`, 0 by default: for a Dense kernel (inputs, units) each column,
the weights into one unit; for a Conv2D kernel (height, width, in, out) pass `axis=[0, 1, 2]`.
"""
import numbers

from ..convert import convert_to_tensor
from ..ops import cast, clip_by_value, maximum, reduce_sum, sqrt, square
from ..namespaces import public_dir
from .backend import epsilon
from .identifiers import resolve
from .saving import lookup
from .saving.serialization_lib import deserialize_keras_object, serialize_keras_object

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
           "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm"]


class Constraint:
    """Base class: a subclass implements `__call__(w) -> w projected` (this one returns w).

    >>> class Clip(tk.constraints.Constraint):
    ...     def __call__(self, w):
    ...         return tk.clip_by_value(w, -1.0, 1.0)
    >>> Clip()(tk.constant([-3.0, 0.5, 2.0]))
    tk.Tensor([-1.   0.5  1. ], shape=(3,), dtype=float32)
    """

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _number(value, what, cls, low=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value \
            or (low is not None and value < low):
        floor = f" >= {low}" if low is not None else ""
        raise ValueError(f"{cls}: {what} must be a number{floor}, got {value!r}")
    return value        # as given: Keras's config keeps max_value=2 an int


def _axis(axis, cls):
    if isinstance(axis, (list, tuple)):
        if not axis or not all(isinstance(a, numbers.Integral) and not isinstance(a, bool)
                               for a in axis):
            raise ValueError(f"{cls}: axis must be an int or a non-empty list of ints, got {axis!r}")
        return [int(a) for a in axis]
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ValueError(f"{cls}: axis must be an int or a list of ints, got {axis!r}")
    return int(axis)


def _norms(w, axis, cls):
    """The Euclidean norms of w along `axis`, kept as size-1 axes so they broadcast back."""
    w = convert_to_tensor(w)
    if w.dtype.kind != "f":
        raise TypeError(f"{cls}: the weight must be floating, got dtype {w.dtype.name}")
    axes = axis if isinstance(axis, list) else [axis]
    if not all(-w.ndim <= a < w.ndim for a in axes):
        raise ValueError(f"{cls}: axis={axis!r} is out of range for a weight of shape {w.shape}; "
                         f"pass the axes of one weight vector, e.g. axis=[0, 1, 2] for a "
                         f"Conv2D kernel")
    return w, sqrt(reduce_sum(square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Each weight vector (along `axis`) scaled down to norm `max_value` when its norm is more.

    >>> tk.constraints.MaxNorm(2.0)(tk.constant([[3.0, 0.3], [4.0, 0.4]])).numpy().round(3)
    array([[1.2, 0.3],
           [1.6, 0.4]], dtype=float32)
    """

    def __init__(self, max_value=2, axis=0):
        self.max_value = _number(max_value, "max_value", "MaxNorm", low=0)
        self.axis = _axis(axis, "MaxNorm")

    def __call__(self, w):
        w, norms = _norms(w, self.axis, "MaxNorm")
        desired = clip_by_value(norms, 0.0, self.max_value)
        return w * (desired / (epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Negative weights set to 0: `maximum(w, 0)`.

    >>> tk.constraints.NonNeg()(tk.constant([-1.0, 2.0]))
    tk.Tensor([0. 2.], shape=(2,), dtype=float32)
    """

    def __call__(self, w):
        w = convert_to_tensor(w)
        return maximum(w, cast(0, w.dtype))


class UnitNorm(Constraint):
    """Each weight vector (along `axis`) scaled to norm 1.

    >>> tk.constraints.UnitNorm()(tk.constant([[3.0], [4.0]])).numpy().round(3)
    array([[0.6],
           [0.8]], dtype=float32)
    """

    def __init__(self, axis=0):
        self.axis = _axis(axis, "UnitNorm")

    def __call__(self, w):
        w, norms = _norms(w, self.axis, "UnitNorm")
        return w / (epsilon() + norms)

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Each weight vector's norm moved into [min_value, max_value]: by `rate` of the way
    (1: all the way; 0.5: halfway from its norm to the nearest bound).

    >>> tk.constraints.MinMaxNorm(1.0, 2.0, rate=0.5)(tk.constant([[6.0], [8.0]])).numpy().round(3)
    array([[3.6],
           [4.8]], dtype=float32)
    """

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = _number(min_value, "min_value", "MinMaxNorm", low=0)
        self.max_value = _number(max_value, "max_value", "MinMaxNorm", low=0)
        if self.min_value > self.max_value:
            raise ValueError(f"MinMaxNorm: min_value={min_value!r} is above "
                             f"max_value={max_value!r}")
        self.rate = _number(rate, "rate", "MinMaxNorm", low=0)
        self.axis = _axis(axis, "MinMaxNorm")

    def __call__(self, w):
        w, norms = _norms(w, self.axis, "MinMaxNorm")
        desired = (self.rate * clip_by_value(norms, self.min_value, self.max_value)
                   + (1 - self.rate) * norms)
        return w * (desired / (epsilon() + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm
_BY_NAME = {"max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg,
            "unit_norm": UnitNorm, "MaxNorm": MaxNorm, "MinMaxNorm": MinMaxNorm,
            "NonNeg": NonNeg, "UnitNorm": UnitNorm, "Constraint": Constraint}


def serialize(constraint):
    """Keras 3's config of a constraint: {"module": "keras.constraints", "class_name": ...}."""
    return serialize_keras_object(constraint)


def deserialize(config, custom_objects=None):
    """A constraint from `serialize`'s dict (or Keras 3's, read from a saved model)."""
    cls = _BY_NAME.get(config.get("class_name")) if isinstance(config, dict) else None
    if cls is not None and config.get("module") in (None, "keras.constraints"):
        return cls.from_config(config.get("config") or {})
    return deserialize_keras_object(config, custom_objects=custom_objects)


def get(identifier):
    """A constraint from a name ("non_neg", "MaxNorm"), a config dict, a Constraint, a callable
    w -> w, or None.

    >>> tk.constraints.get("max_norm")
    MaxNorm(max_value=2, axis=0)
    """
    return resolve(identifier, _BY_NAME, "constraint", base=Constraint, none=True,
                   configs=deserialize, accepts="a tk.constraints.Constraint or a callable w -> w")


# A Keras config names these as keras.constraints (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.constraints", {name: globals()[name] for name in (
    "Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm")})

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
