"""The Metric base class and the reduction metrics: Mean, Sum, MeanMetricWrapper.

    m = tk.metrics.Mean()
    m.update_state([1.0, 3.0, 5.0, 7.0])
    m.result()                      # tk.Tensor(4.0, shape=(), dtype=float32)
    m.reset_state()

A metric's state lives in tk.Variables (`add_variable`), and `update_state` changes them
only with ops and `assign_add`, never through a Python number read from them. So a
`tk.function`-compiled training step that updates a metric keeps counting at every
replay, just as the eager step does (Keras 3 does the same for `tf.function`).
"""
import numpy as np

from ... import dtypes
from ...convert import convert_to_tensor
from ...module import snake_case   # SparseCategoricalAccuracy -> sparse_categorical_accuracy
from ...namespaces import no_attribute
from ...ops import broadcast_to, cast, divide, equal, reduce_mean, reduce_sum, where
from ...tensor import Tensor, Variable
from ..masking import keras_mask
from ..losses.loss import mask_weights, squeeze_or_expand


class Metric:
    """Base class: a subclass makes its state with `add_variable` in `__init__` and writes
    `update_state(...)` and `result()`; `reset_state()` zeroes every variable.

    >>> class Count(tk.metrics.Metric):
    ...     def __init__(self, name="count"):
    ...         super().__init__(name=name)
    ...         self.n = self.add_variable((), name="n")
    ...     def update_state(self, values):
    ...         self.n.assign_add(float(len(values)))
    ...     def result(self):
    ...         return tk.identity(self.n)
    >>> m = Count()
    >>> m([1, 2, 3])                  # __call__ = update_state, then result
    tk.Tensor(3.0, shape=(), dtype=float32)
    """

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, name=None, dtype=None):
        if name is not None and not isinstance(name, str):      # Keras 3 fails on one too
            raise TypeError(f"{type(self).__name__}: name must be a string (any text, `/` "
                            f"included), got {type(name).__name__} {name!r}")
        self.name = name or snake_case(type(self).__name__)
        self.dtype = dtypes.as_dtype(dtype or "float32")
        self._variables = []

    def add_variable(self, shape=(), initializer="zeros", dtype=None, name=None):
        """A non-trainable tk.Variable of zeros (the metric's state), named `<metric>/<name>`."""
        if initializer not in ("zeros", None):
            raise ValueError(f"{type(self).__name__}.add_variable: only initializer='zeros' is "
                             f"supported (reset_state sets the state back to zeros), got "
                             f"{initializer!r}")
        dtype = dtypes.as_dtype(dtype or self.dtype)
        var = Variable(np.zeros(shape, dtype), trainable=False, dtype=dtype,
                       name=f"{self.name}/{name or 'variable'}")
        self._variables.append(var)
        return var

    add_weight = add_variable

    @property
    def variables(self):
        return list(self._variables)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement update_state(...)")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__} must implement result()")

    def reset_state(self):
        """Set every state variable back to zeros (at the start of each epoch in fit)."""
        for v in self._variables:
            v.assign(np.zeros(v.shape, v.dtype))

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r}>"


def divide_no_nan(a, b):
    """a / b, and 0 where b is 0 (`tf.math.divide_no_nan`): an empty metric reads 0."""
    zero = equal(b, 0)
    return where(zero, 0.0, divide(a, where(zero, 1.0, b)))


def _as(x, dtype):
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    return x if x.dtype == dtype else cast(x, dtype)


def reduce_to_samplewise(values, sample_weight, dtype, reduce_fn=reduce_mean):
    """Keras's rule for (values, sample_weight): one value per sample, weighted.

    Values are reduced with `reduce_fn` (Mean: reduce_mean, Sum: reduce_sum, as in Keras)
    over the axes the weights lack (per-sample weights on per-entry values weigh each
    sample's mean, or sum); weights are broadcast to the values; then values (and weights)
    are reduced over every axis but the first. Returns (values, weights).
    """
    values = _as(values, dtype)
    if sample_weight is not None:
        sample_weight = _as(sample_weight, dtype)
        values, sample_weight = squeeze_or_expand(values, sample_weight)
        if values.ndim > sample_weight.ndim:
            values = reduce_fn(values, axis=list(range(sample_weight.ndim, values.ndim)))
        if sample_weight.shape != values.shape:
            try:
                sample_weight = broadcast_to(sample_weight, values.shape)
            except ValueError:
                raise ValueError(f"sample_weight of shape {sample_weight.shape} does not "
                                 f"broadcast to the values' shape {values.shape}: give one "
                                 f"weight per sample, shape ({values.shape[0]},)") from None
        values = values * sample_weight
        if sample_weight.ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, sample_weight.ndim)))
    if values.ndim > 1:
        values = reduce_fn(values, axis=list(range(1, values.ndim)))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the values seen (`keras.metrics.Sum`).

    >>> m = tk.metrics.Sum()
    >>> m.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1, 1, 0, 0])
    >>> m.result()
    tk.Tensor(4.0, shape=(), dtype=float32)
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise(values, sample_weight, self.dtype, reduce_sum)
        self.total.assign_add(reduce_sum(values))

    def result(self):
        return cast(self.total, self.dtype)


class Mean(Metric):
    """The (weighted) mean of the values seen: total / count (`keras.metrics.Mean`).

    Without weights each sample (first axis) counts once; with weights, count is their sum.

    >>> m = tk.metrics.Mean()
    >>> m.update_state([1.0, 3.0, 5.0, 7.0])
    >>> m.update_state([2.0], sample_weight=[4.0])       # (16 + 8) / (4 + 4)
    >>> m.result()
    tk.Tensor(3.0, shape=(), dtype=float32)
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), name="total")
        self.count = self.add_variable((), name="count")

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise(values, sample_weight, self.dtype)
        self.total.assign_add(reduce_sum(values))
        if sample_weight is not None:
            self.count.assign_add(reduce_sum(sample_weight))
        else:   # a number fixed by the shape, so a tk.function replay adds it again
            self.count.assign_add(np.asarray(values.shape[0] if values.ndim else 1, self.dtype))

    def result(self):
        return divide_no_nan(self.total, self.count)


class MeanMetricWrapper(Mean):
    """The mean over samples of `fn(y_true, y_pred, **kwargs)` (a per-sample function).

    >>> def abs_error(y_true, y_pred):
    ...     return tk.reduce_mean(tk.abs(y_true - y_pred), axis=-1)
    >>> m = tk.metrics.MeanMetricWrapper(abs_error, name="abs_error")
    >>> m.update_state(tk.constant([[0.0], [1.0]]), tk.constant([[1.0], [1.0]]))
    >>> m.result()
    tk.Tensor(0.5, shape=(), dtype=float32)
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        """A prediction that carries a mask (`_keras_mask`) counts only its steps with data
        (the mask times sample_weight weighs each value, as Keras 3)."""
        mask = keras_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        if mask is not None:
            sample_weight = mask_weights(sample_weight, mask, self.dtype, "sum")
        super().update_state(values, sample_weight)
