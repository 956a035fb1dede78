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
_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update({f.__name__: f for f in (
    accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy, mean_squared_error,
    mean_absolute_error, mean_absolute_percentage_error, binary_crossentropy, categorical_crossentropy,
    sparse_categorical_crossentropy)})
_BY_NAME.update({"mse": mean_squared_error, "mae": mean_absolute_error,
                 "precision": Precision, "recall": Recall, "auc": AUC,
                 "mape": mean_absolute_percentage_error,
                 "root_mean_squared_error": RootMeanSquaredError, "rmse": RootMeanSquaredError})


def get(identifier):
    """A metric from its name ("mae", "sparse_categorical_accuracy", "Precision"): a class is
    instantiated, a function returned as is (compile wraps it in MeanMetricWrapper).

    >>> tk.metrics.get("mae") is tk.metrics.mean_absolute_error
    True
    """
    if isinstance(identifier, Metric) or (callable(identifier) and not isinstance(identifier, type)):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    found = _BY_NAME.get(identifier) if isinstance(identifier, str) else None
    if found is None:
        raise ValueError(f"Could not interpret metric identifier: {identifier!r}. Known names: "
                         f"'accuracy', {', '.join(repr(n) for n in sorted(_BY_NAME))}; or pass a "
                         f"tk.metrics.Metric or a function metric(y_true, y_pred)")
    return found() if isinstance(found, type) else found


__all__ = [name for name in dir() if not name.startswith("_")]
