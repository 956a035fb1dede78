"""compile, fit, evaluate and predict: Keras 3's training surface as a plain loop over the tape.

    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=5, validation_split=0.2)
    model.evaluate(x_test, y_test)          # [loss, accuracy]
    model.predict(x_test)                   # a NumPy array

`Trainer` is mixed into `Model` (and so `Sequential`). `fit` is the loop a learner would
write: per epoch, per batch, `logs = train_function(batch)` between callbacks.
`train_step` is the override point: one batch's forward pass under a `tk.GradientTape`,
the gradients, the optimizer update and the metrics. Unless `run_eagerly=True`,
`train_function` is `train_step` compiled with `tk.function` (traced once per batch shape,
then replayed), as Keras compiles it with `tf.function`.
"""
import numpy as np

from ..tape import GradientTape
from ..compiler import function
from . import losses as losses_module
from . import metrics as metrics_module
from . import optimizers as optimizers_module
from .callbacks import CallbackList
from .data_adapter import EpochIterator, train_validation_split, unpack_x_y_sample_weight


class Trainer:
    """compile / fit / evaluate / predict / train_step / test_step / predict_step."""

    compiled = False
    stop_training = False
    history = None

    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", auto_scale_loss=True):
        """Set the optimizer, loss and metrics that fit/evaluate use.

        optimizer, loss and each metric may be a name ("adam", "mse", "accuracy") or an
        object. `run_eagerly=True` runs train_step as plain Python (for debugging and
        print); `jit_compile` is accepted and ignored (there is no XLA); weighted_metrics
        is not supported, and steps_per_execution must be 1.

        >>> model = tk.Sequential([tk.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
        >>> model.optimizer
        <SGD learning_rate=0.01, iterations=0>
        """
        if steps_per_execution != 1 or weighted_metrics:
            raise NotImplementedError("compile: steps_per_execution must be 1 and "
                                      "weighted_metrics is not supported in tapekit; pass "
                                      "metrics= (they take fit's sample_weight)")
        self.optimizer = optimizers_module.get(optimizer)
        self.loss = loss
        self._loss_fn = _as_loss(losses_module.get(loss))
        self._loss_weight = 1.0 if loss_weights is None else float(
            loss_weights[0] if isinstance(loss_weights, (list, tuple)) else loss_weights)
        self._loss_tracker = metrics_module.Mean(name="loss")
        self._metric_specs = list(metrics) if isinstance(metrics, (list, tuple)) else (
            [] if metrics is None else [metrics])
        self._compile_metrics = None          # made at the first batch (see _build_metrics)
        self.run_eagerly = run_eagerly
        self.train_function = self.test_function = self.predict_function = None
        self.compiled = True

    # --- the steps: one batch each (override these) ---------------------------------------
    def train_step(self, data):
        """One batch of training: forward pass under the tape, loss, gradients, update.

        Returns the metrics so far as {name: value}, which become the callbacks' `logs`.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """One batch of evaluation: forward pass (training=False), loss and metrics."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """One batch of prediction: the model's output for x (training=False)."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # --- loss and metrics -------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of (y, y_pred), weighted, plus the model's own `losses`
        (add_loss, regularizers): the number `train_step` differentiates."""
        terms = []
        if self._loss_fn is not None:
            loss = self._loss_fn(y, y_pred, sample_weight=sample_weight)
            terms.append(loss if self._loss_weight == 1.0 else loss * self._loss_weight)
        terms.extend(getattr(self, "losses", None) or [])
        if not terms:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics with this batch; return every metric's result."""
        if self._compile_metrics is None:
            self._compile_metrics = _build_metrics(self._metric_specs, y, y_pred)
        for m in self._compile_metrics:
            m.update_state(y, y_pred, sample_weight=sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        return {m.name: m.result() for m in self.metrics}

    def _get_metrics_result_or_logs(self, logs):
        """The metrics' results, unless a custom train_step returned other names: then the
        last batch's logs (as Keras does)."""
        results = self.get_metrics_result()
        return results if not isinstance(logs, dict) or set(logs) == set(results) else logs

    @property
    def metrics(self):
        """The loss tracker (a Mean named "loss"), then the compiled metrics."""
        if not self.compiled:
            return []
        return [self._loss_tracker] + list(self._compile_metrics or [])

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def _build_compile_metrics(self, batches):
        """Make compile's metrics before the loop, so `self.metrics` lists them in a custom
        train_step too ("accuracy" needs the shapes of y and y_pred: one forward pass)."""
        if self._compile_metrics is None and self._metric_specs:
            batch = batches.first_batch()
            if batch is not None:
                x, y, _ = unpack_x_y_sample_weight(batch)
                self._compile_metrics = _build_metrics(self._metric_specs, y,
                                                       self(x, training=False))

    # --- compiled steps -------------------------------------------------------------------
    def make_train_function(self):
        if self.train_function is None:
            self.train_function = self._compiled(self.train_step)
        return self.train_function

    def make_test_function(self):
        if self.test_function is None:
            self.test_function = self._compiled(self.test_step)
        return self.test_function

    def make_predict_function(self):
        if self.predict_function is None:
            self.predict_function = self._compiled(self.predict_step)
        return self.predict_function

    def _compiled(self, step):
        def one_step_on_data(*data):         # f(x, y): tk.function's fast path for tensors
            return step(data)
        return one_step_on_data if self.run_eagerly else function(one_step_on_data,
                                                                  name=step.__name__)

    # --- the loops --------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, sample_weight=None,
            initial_epoch=0, steps_per_epoch=None, validation_batch_size=None):
        """Train for `epochs` passes over the data; returns a History (`history.history`).

        x, y: arrays (cut into batches of `batch_size`, 32 by default, shuffled each epoch
        unless shuffle=False), or x alone as a list of (x, y) batches. validation_split
        keeps the last fraction of the arrays for validation; validation_data is (x_val,
        y_val) or a list of batches. verbose: 1 ("auto") a bar and a line per epoch, 2 the
        line only, 0 silent.

        >>> tk.random.set_seed(0)
        >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="zeros")])
        >>> model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
        >>> x = np.array([[0.0], [1.0], [2.0], [3.0]]); y = 2 * x + 1
        >>> history = model.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=2)
        Epoch 1/2
        2/2 - loss: 14.6225
        Epoch 2/2
        2/2 - loss: 2.3337
        >>> history.history["loss"]    # epoch 1: (5 + 24.245) / 2, the mean over its batches
        [14.622499465942383, 2.333695650100708]
        """
        _check_compiled(self, "fit")
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split(
                x, y, sample_weight, validation_split)
        batches = EpochIterator(x, y, sample_weight, batch_size, shuffle, steps_per_epoch)
        callbacks = _callbacks(self, callbacks, verbose, history=True, epochs=epochs,
                               steps=len(batches))
        self._build_compile_metrics(batches)
        train_function = self.make_train_function()
        self.stop_training = False
        callbacks.on_train_begin()
        logs = epoch_logs = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            for step, batch in enumerate(batches):
                callbacks.on_train_batch_begin(step)
                logs = train_function(*batch)
                callbacks.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            epoch_logs = _floats(self._get_metrics_result_or_logs(logs))
            if validation_data is not None:
                val_x, val_y, val_weight = _as_xy(validation_data)
                val_logs = self.evaluate(val_x, val_y, sample_weight=val_weight,
                                         batch_size=validation_batch_size or batch_size,
                                         callbacks=callbacks, return_dict=True)
                epoch_logs.update({f"val_{name}": value for name, value in val_logs.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callbacks.on_train_end(epoch_logs)
        return self.history

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False):
        """The loss and metrics over the data: a list [loss, metric...], or a number when
        there are no metrics, or {name: value} with return_dict=True."""
        _check_compiled(self, "evaluate")
        batches = EpochIterator(x, y, sample_weight, batch_size, False, steps)
        if not isinstance(callbacks, CallbackList):
            callbacks = _callbacks(self, callbacks, verbose, steps=len(batches))
        self._build_compile_metrics(batches)
        test_function = self.make_test_function()
        self.reset_metrics()
        callbacks.on_test_begin()
        logs = {}
        for step, batch in enumerate(batches):
            callbacks.on_test_batch_begin(step)
            logs = test_function(*batch)
            callbacks.on_test_batch_end(step, logs)
        logs = _floats(self._get_metrics_result_or_logs(logs))
        callbacks.on_test_end(logs)
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs for x, batch by batch, joined into one NumPy array."""
        batches = EpochIterator(x, None, None, batch_size, False, steps)
        callbacks = _callbacks(self, callbacks, verbose, steps=len(batches))
        predict_function = self.make_predict_function()
        callbacks.on_predict_begin()
        outputs = []
        for step, batch in enumerate(batches):
            callbacks.on_predict_batch_begin(step)
            outputs.append(predict_function(batch[0]))
            callbacks.on_predict_batch_end(step, {"outputs": outputs[-1]})
        callbacks.on_predict_end()
        if outputs and isinstance(outputs[0], (list, tuple)):
            return [np.concatenate([o[k].numpy() for o in outputs]) for k in range(len(outputs[0]))]
        return np.concatenate([o.numpy() for o in outputs])


# --- helpers ----------------------------------------------------------------------------------
def _check_compiled(model, what):
    if not model.compiled:
        raise RuntimeError(f"You must call `compile()` before using the model: {what} needs an "
                           f"optimizer and a loss, e.g. model.compile(optimizer='adam', "
                           f"loss='mse')")


def _callbacks(model, callbacks, verbose, history=False, **params):
    return CallbackList(callbacks, add_history=history, add_progbar=verbose != 0, model=model,
                        verbose=verbose, **params)


def _floats(logs):
    return {name: float(value) for name, value in logs.items()}


def _as_xy(validation_data):
    """validation_data as (x, y, sample_weight): a tuple of arrays, or a list of batches."""
    if isinstance(validation_data, tuple) and len(validation_data) in (2, 3):
        return unpack_x_y_sample_weight(validation_data)
    return validation_data, None, None


def _batch_size(x):
    first = x[0] if isinstance(x, (list, tuple)) else x
    return first.shape[0]


class _FunctionLoss(losses_module.Loss):
    """A loss function fn(y_true, y_pred) -> per-sample values, reduced like a Loss."""

    def __init__(self, fn):
        super().__init__(name=getattr(fn, "__name__", "loss"))
        self._fn = fn

    def call(self, y_true, y_pred):
        return self._fn(y_true, y_pred)


def _as_loss(loss):
    if loss is None or isinstance(loss, losses_module.Loss):
        return loss
    return _FunctionLoss(loss)


def _build_metrics(specs, y, y_pred):
    """Metric objects for compile's metrics=[...]: "accuracy" picks binary, sparse or
    categorical accuracy from the shapes of y and y_pred, as Keras does."""
    built = []
    for spec in specs:
        if isinstance(spec, str) and spec.lower() in ("accuracy", "acc"):
            binary = y_pred.shape[-1] == 1
            sparse = y is not None and (len(y.shape) < len(y_pred.shape) or
                                        (y.shape[-1] == 1 and y_pred.shape[-1] > 1))
            cls = (metrics_module.BinaryAccuracy if binary else
                   metrics_module.SparseCategoricalAccuracy if sparse else
                   metrics_module.CategoricalAccuracy)
            metric = cls(name=spec)
        else:
            metric = metrics_module.get(spec)
            if not isinstance(metric, metrics_module.Metric):
                metric = metrics_module.MeanMetricWrapper(metric)
            if isinstance(spec, str):
                metric.name = spec
        built.append(metric)
    return built
