"""Keras metrics (`tk.metrics`, `keras.metrics` after `import tapekit as keras`).

    acc = tk.metrics.SparseCategoricalAccuracy()
    acc.update_state(y_batch, logits)      # after each batch
    float(acc.result())                    # the accuracy over every batch so far
    acc.reset_state()                      # at the end of each epoch

The state of each metric lives in tk.Variables, so metric updates inside a `tk.function`
training step count at every call. `compile(metrics=["accuracy", "mae"])` takes names.
"""
from ..losses import mean_absolute_error, mean_squared_error, mae, mse, MAE, MSE
from ..losses import binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy
from ..identifiers import resolve as _resolve   # not one of tk.metrics's names
from .accuracy import (Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
                       SparseTopKCategoricalAccuracy, TopKCategoricalAccuracy, accuracy,
                       binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
                       sparse_top_k_categorical_accuracy, top_k_categorical_accuracy)
from .base import Mean, MeanMetricWrapper, Metric, Sum
from .confusion import AUC, Precision, Recall
from .regression import (BinaryCrossentropy, CategoricalCrossentropy, MeanAbsoluteError,
                         MeanAbsolutePercentageError, MeanSquaredError, RootMeanSquaredError,
                         SparseCategoricalCrossentropy, mean_absolute_percentage_error)

_CLASSES = (Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
            TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanSquaredError,
            MeanAbsoluteError, RootMeanSquaredError, BinaryCrossentropy, CategoricalCrossentropy,
            SparseCategoricalCrossentropy, Precision, Recall, Mean, Sum, AUC,
            MeanAbsolutePercentageError)
# The metric functions a config may name (Keras writes {"module": "builtins", "class_name":
# "function", "config": "binary_accuracy"}): these and no other function.
FUNCTIONS = {f.__name__: f for f in (
    accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy, mean_squared_error,
    mean_absolute_error, mean_absolute_percentage_error, binary_crossentropy, categorical_crossentropy,
    sparse_categorical_crossentropy)}
FUNCTIONS.update({"mse": mean_squared_error, "mae": mean_absolute_error,
                  "mape": mean_absolute_percentage_error})
_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update(FUNCTIONS)
_BY_NAME.update({"precision": Precision, "recall": Recall, "auc": AUC,
                 "root_mean_squared_error": RootMeanSquaredError, "rmse": RootMeanSquaredError})


def get(identifier):
    """A metric from its name ("mae", "sparse_categorical_accuracy", "Precision"): a class is
    instantiated, a function returned as is (compile wraps it in MeanMetricWrapper).

    >>> tk.metrics.get("mae") is tk.metrics.mean_absolute_error
    True
    """
    return _resolve(identifier, _BY_NAME, "metric", base=Metric,
                    accepts="a tk.metrics.Metric or a function metric(y_true, y_pred)")


__all__ = [name for name in dir() if not name.startswith("_") and name != "FUNCTIONS"]

from ...namespaces import public_dir  # noqa: E402 - after __all__, which lists the names above
from ..saving import lookup  # noqa: E402

# A Keras config names these as keras.metrics (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.metrics", {name: globals()[name] for name in __all__},
                         functions=("metrics", FUNCTIONS))

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
