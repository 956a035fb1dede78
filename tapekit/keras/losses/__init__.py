"""Keras losses (`tk.losses`, `keras.losses` after `import tapekit as keras`): the Loss base
and the wrapper of a loss function (loss.py), the regression and cross-entropy losses
(losses.py), KLDivergence and Poisson (probabilistic_losses.py), the hinge losses (hinge_losses.py).

    loss_fn = tk.losses.MeanSquaredError()
    loss_fn([[1.0], [2.0]], [[1.5], [2.0]])      # tk.Tensor(0.125, shape=(), dtype=float32)
    model.compile(loss="mse")                    # by name: get("mse") is mean_squared_error

tk.losses's names are the ones imported and defined here, each once: `__all__` is made from
them, and a Keras config names their classes as "keras.losses" and _FUNCTIONS by name
(saving/lookup.py finds both in the table registered at the end).
"""
from ... import namespaces
from .. import identifiers
from ..saving import lookup
from .hinge_losses import CategoricalHinge, Hinge, SquaredHinge, categorical_hinge, hinge, squared_hinge
from .loss import Loss
from .losses import (BinaryCrossentropy, CategoricalCrossentropy, CosineSimilarity, Huber, LogCosh,
                     MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredError,
                     MeanSquaredLogarithmicError, SparseCategoricalCrossentropy, binary_crossentropy,
                     categorical_crossentropy, cosine_similarity, huber, log_cosh,
                     mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
                     mean_squared_logarithmic_error, sparse_categorical_crossentropy)
from .probabilistic_losses import KLDivergence, Poisson, kl_divergence, poisson

# --- by name, as compile(loss="mse") takes them ----------------------------------------------
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error

# The loss functions a config may name (Keras writes {"module": "builtins", "class_name":
# "function", "config": "mean_squared_error"}): these and no other function of this package.
_FUNCTIONS = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
    "huber": huber, "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    **{fn.__name__: fn for fn in (mean_absolute_percentage_error, mean_squared_logarithmic_error,
                                  log_cosh, cosine_similarity, kl_divergence, poisson, hinge,
                                  squared_hinge, categorical_hinge)},
    "mape": mean_absolute_percentage_error, "msle": mean_squared_logarithmic_error,
    "kld": kl_divergence,      # Keras's aliases; "MAPE", "KLD", ... resolve by their lower case
}

def get(identifier):
    """A loss from its name ("mse", "sparse_categorical_crossentropy", "MeanSquaredError"),
    or the loss itself when given a Loss instance or a function (`keras.losses.get`).

    >>> tk.losses.get("mse") is tk.losses.mean_squared_error
    True
    """
    return identifiers.resolve(identifier, _BY_NAME, "loss", base=Loss, none=True,
                               accepts="a tk.losses.Loss or a function loss(y_true, y_pred)")


__all__ = identifiers.exported(globals())   # the names imported and defined above
# get's names: the functions a config may name, and each loss class by its own name
_BY_NAME = {**_FUNCTIONS, **{name: obj for name, obj in ((n, globals()[n]) for n in __all__)
                             if isinstance(obj, type) and obj is not Loss}}
lookup.register_builtins("keras.losses", {name: globals()[name] for name in __all__},
                         functions=("losses", _FUNCTIONS))

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
