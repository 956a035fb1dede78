"""Keras metrics (`tk.metrics`, `keras.metrics` after `import tapekit as keras`).

    acc = tk.metrics.SparseCategoricalAccuracy()
    acc.update_state(y_batch, logits)      # after each batch
    float(acc.result())                    # the accuracy over every batch so far
    acc.reset_state()                      # at the end of each epoch

The state of each metric lives in tk.Variables, so metric updates inside a `tk.function`
training step count at every call. `compile(metrics=["accuracy", "mae"])` takes names.

tk.metrics's names are the ones imported and defined here, each once: `__all__` is made from
them, and a Keras config names their classes as "keras.metrics" and _FUNCTIONS by name
(saving/lookup.py finds both in the table registered at the end).
"""
from ... import namespaces
from .. import identifiers
from ..losses import mean_absolute_error, mean_squared_error, mae, mse, MAE, MSE
from ..losses import binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy
from ..saving import lookup
from .accuracy import (Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
                       SparseTopKCategoricalAccuracy, TopKCategoricalAccuracy, accuracy,
                       binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
                       sparse_top_k_categorical_accuracy, top_k_categorical_accuracy)
from .base import Mean, MeanMetricWrapper, Metric, Sum
from .confusion import AUC, Precision, Recall
from .regression import (BinaryCrossentropy, CategoricalCrossentropy, MeanAbsoluteError,
                         MeanAbsolutePercentageError, MeanSquaredError, RootMeanSquaredError,
                         SparseCategoricalCrossentropy, mean_absolute_percentage_error)

# The metric functions a config may name (Keras writes {"module": "builtins", "class_name":
# "function", "config": "binary_accuracy"}): these and no other function.
_FUNCTIONS = {f.__name__: f for f in (
    accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy, mean_squared_error,
    mean_absolute_error, mean_absolute_percentage_error, binary_crossentropy, categorical_crossentropy,
    sparse_categorical_crossentropy)}
_FUNCTIONS.update({"mse": mean_squared_error, "mae": mean_absolute_error,
                   "mape": mean_absolute_percentage_error})


def get(identifier):
    """A metric from its name ("mae", "sparse_categorical_accuracy", "Precision"): a class is
    instantiated, a function returned as is (compile wraps it in MeanMetricWrapper).

    >>> tk.metrics.get("mae") is tk.metrics.mean_absolute_error
    True
    """
    return identifiers.resolve(identifier, _BY_NAME, "metric", base=Metric,
                               accepts="a tk.metrics.Metric or a function metric(y_true, y_pred)")


__all__ = identifiers.exported(globals())   # the names imported and defined above
# get's names: each metric class by its own name (not the bases), the functions a config may
# name, and Keras's short names of some classes
_BY_NAME = {name: obj for name, obj in ((n, globals()[n]) for n in __all__)
            if isinstance(obj, type) and obj not in (Metric, MeanMetricWrapper)}
_BY_NAME.update(_FUNCTIONS)
_BY_NAME.update({"precision": Precision, "recall": Recall, "auc": AUC,
                 "root_mean_squared_error": RootMeanSquaredError, "rmse": RootMeanSquaredError})
lookup.register_builtins("keras.metrics", {name: globals()[name] for name in __all__},
                         functions=("metrics", _FUNCTIONS))

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
