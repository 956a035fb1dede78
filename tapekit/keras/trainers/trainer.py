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
then replayed), as Keras compiles it with `tf.function`. compile's losses and metrics are two
objects the model holds, as in Keras 3: `_compile_loss` (a CompileLoss) and
`_compile_metrics` (a CompileMetrics), from compile_utils.py; the data becomes batches in
epoch_iterator.py.

A training step is all or nothing: it runs in `writes.all_or_nothing()`, so a step that
raises (its loss, a metric, the optimizer, a custom train_step) leaves every variable it
wrote (weights, slots, iterations, metrics) as it was before the step, eager or compiled.
(Keras 3.15 keeps a failed eager step's writes; its compiled first step writes nothing.)
As Keras's symbolic build does, compile's losses and metrics and the optimizer's slots
are made before the first step (for a model already built), so a traced step creates no
variable and is not traced twice (tk.function's rule for a first call that creates some).
"""
import warnings

import numpy as np

from ... import nest
from ...compiler import function
from ...tape import GradientTape
from ...traceback_utils import filter_traceback
from ...writes import all_or_nothing
from .. import metrics as metrics_module
from .. import optimizers as optimizers_module
from ..callbacks import CallbackList
from . import compile_utils
from .compile_utils import CompileLoss, CompileMetrics, samples_in
from .data_adapter import train_validation_split, unpack_x_y_sample_weight
from .epoch_iterator import EpochIterator, ran_dry, single_batch, validation_batches


class Trainer:
    """compile / fit / evaluate / predict / train_step / test_step / predict_step."""

    compiled = False
    stop_training = False
    # `history`, the History of the last fit, is set by that History (on_train_begin); before
    # any fit the model has none (AttributeError), as in Keras 3
    run_eagerly = False
    train_function = test_function = predict_function = None
    _compile_loss = _compile_metrics = None     # compile's CompileLoss and CompileMetrics
    _initial_epoch = None       # set by a callback's on_train_begin (BackupAndRestore's resume)

    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", auto_scale_loss=True):
        """Set the optimizer, loss and metrics that fit/evaluate use.

        optimizer, loss and each metric may be a name ("adam", "mse", "accuracy") or an
        object. For a model with several outputs, loss, metrics and loss_weights may be
        lists (one item per output, None for none) or dicts keyed by the output layers'
        names; the logs then hold "<output>_loss" and "<output>_<metric>" too, as in
        Keras 3. `metrics` are unweighted; `weighted_metrics` take fit's sample_weight
        (and class_weight). `run_eagerly=True` runs train_step as plain Python (for
        debugging and print); `jit_compile` is accepted and ignored (there is no XLA);
        steps_per_execution must be 1.

        >>> model = tk.Sequential([tk.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
        >>> model.optimizer
        <SGD learning_rate=0.01, iterations=0>
        """
        if steps_per_execution != 1:
            raise NotImplementedError("compile: steps_per_execution must be 1 in tapekit "
                                      "(each step is one batch)")
        for name, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value is not None and not isinstance(value, (list, tuple, dict)):
                raise ValueError(f"Expected `{name}` argument to be a list, tuple, or dict. "
                                 f"Received instead: {name}={value!r} of type "
                                 f"{type(value).__name__}; e.g. {name}=[{value!r}]")
        self.optimizer = optimizers_module.get(optimizer)
        # As Keras 3: a compile without loss= keeps the previous loss, one without metrics=
        # (and weighted_metrics=) the previous metrics. Unknown names fail here, not in fit.
        new_loss = loss is not None or not self.compiled
        new_metrics = metrics is not None or weighted_metrics is not None or not self.compiled
        compile_loss = CompileLoss(loss, loss_weights, self.output_names) \
            if new_loss and loss is not None else None
        compile_metrics = CompileMetrics(metrics, weighted_metrics, self.output_names) \
            if new_metrics and (metrics or weighted_metrics) else None
        if new_loss:
            self.loss, self.loss_weights, self._compile_loss = loss, loss_weights, compile_loss
        if new_metrics:
            self._compile_metrics = compile_metrics
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.run_eagerly = run_eagerly
        self.train_function = self.test_function = self.predict_function = None
        self.compiled = True

    @property
    def output_names(self):
        """The names of the model's outputs: the layers that make them (functional), else None
        (the logs then say "output_0", ...: see compile_utils.py)."""
        outputs = getattr(self, "outputs", None)
        if outputs is not None and self.__dict__.get("_graph") is not None:
            return [t._keras_history[0].name for t in nest.flatten(outputs)]
        return None

    # --- losses and metrics (compile_utils.py's objects) ----------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of (y, y_pred), weighted, plus the model's own `losses`
        (add_loss, regularizers): the number `train_step` differentiates. With several
        outputs: the sum of each output's loss times its loss weight."""
        terms = []
        if self._compile_loss is not None:
            compiled = self._compile_loss(y, y_pred, sample_weight)
            if compiled is not None:
                terms.append(compiled)
        terms.extend(getattr(self, "losses", None) or [])
        if not terms:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    # Keras 2's names, which Keras 3 keeps as deprecated shims with these numbers.
    def compiled_loss(self, y, y_pred, sample_weight=None, regularization_losses=None):
        """Keras 2's `self.compiled_loss(y, y_pred)` in a custom train_step: Keras 3's shim,
        `compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)`, which adds the model's
        own losses itself (`regularization_losses` is not read, as in Keras 3)."""
        warnings.warn("`model.compiled_loss()` is deprecated. Instead, use "
                      "`model.compute_loss(x, y, y_pred, sample_weight, training)`.",
                      stacklevel=2)
        return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)

    @property
    def compiled_metrics(self):
        """Keras 2's `self.compiled_metrics.update_state(y, y_pred)`: Keras 3's shim, which
        updates every metric of `self.metrics`, the compiled ones with (y, y_pred) and each
        Mean, the loss tracker "loss" among them, with y_pred: so the "loss" such a step
        reports is the mean of y_pred, as in Keras 3. Update the tracker with the loss
        yourself, or write the step with compute_loss and compute_metrics."""
        return _CompiledMetricsShim(self)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics with this batch; return every metric's result.
        `metrics` see no sample weights, `weighted_metrics` do (Keras 3)."""
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
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
        """The loss tracker (a Mean named "loss"), the compiled metrics, then (several
        outputs) each output's loss tracker ("<output>_loss")."""
        if not self.compiled:
            return []
        return ([self._loss_tracker] + self._compiled_metrics() +
                (self._compile_loss.metrics if self._compile_loss is not None else []))

    @property
    def metrics_names(self):
        """Keras 3's names: "loss", "compile_metrics" (all compiled metrics, as one), then
        each output's loss tracker; the logs and evaluate(return_dict=True) name each metric."""
        if not self.compiled:
            return []
        return (["loss"] + (["compile_metrics"] if self._compiled_metrics() else []) +
                [t.name for t in (self._compile_loss.metrics if self._compile_loss else [])])

    def _compiled_metrics(self):
        return self._compile_metrics.metrics if self._compile_metrics is not None else []

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def _build_compile_metrics(self, batches):
        """Make compile's losses and metrics before the loop, so `self.metrics` lists them in
        a custom train_step and callbacks see them (e.g. EarlyStopping's monitor): one
        forward pass on the first batch (a generator's is kept for its first step), which
        builds an unbuilt model too. Without compiled losses or metrics an unbuilt model is
        left to its first step (a build here would draw its initial weights before the
        epoch's shuffle, and change the numbers)."""
        unbuilt = [c for c in (self._compile_loss, self._compile_metrics)
                   if c is not None and not c.built]
        batch = batches.first_batch() if unbuilt else None
        if batch is not None:
            x, y, _ = unpack_x_y_sample_weight(batch)
            y_pred = self(x, training=False)
            for compiled in unbuilt:
                compiled.build(y, y_pred)

    def __setstate__(self, state):
        """pickle: a model pickled before issue 44 kept compile's losses and metrics in lists
        of its own (compile_utils.OLD_STATE); they become its CompileLoss and CompileMetrics."""
        old = None
        if "_metric_specs" in state:
            old = {key: state[key] for key in compile_utils.OLD_STATE if key in state}
            state = {key: value for key, value in state.items() if key not in old}
        super().__setstate__(state)
        if old is not None:
            self._compile_loss, self._compile_metrics = compile_utils.from_old_state(
                old, self.__dict__.get("loss"), self.__dict__.get("loss_weights"),
                self.output_names)

    # --- the steps: one batch each (override these) ---------------------------------------
    def train_step(self, data):
        """One batch of training: forward pass under the tape, loss, gradients, update.

        Returns the metrics so far as {name: value}, which become the callbacks' `logs`.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=samples_in(x))
        variables = self.trainable_variables   # after the forward pass, which builds the layers
        if variables:
            grads = tape.gradient(loss, variables)
            self.optimizer.apply(grads, variables)
        else:                  # Keras 3 warns too, and trains nothing: the loss is still logged
            _warn_if_nothing_to_train(self)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """One batch of evaluation: forward pass (training=False), loss and metrics."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                 training=False)
        self._loss_tracker.update_state(loss, sample_weight=samples_in(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """One batch of prediction: the model's output for x (training=False)."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # --- compiled steps -------------------------------------------------------------------
    def make_train_function(self):
        if self.train_function is None:
            # The optimizer's slots now, not inside the first (traced) step: Keras 3's
            # optimizer.build(model.trainable_variables)
            variables = self.trainable_variables
            if variables and self.optimizer is not None:
                self.optimizer.build(variables)
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
    @filter_traceback
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):
        """Train for `epochs` passes over the data; returns a History (`history.history`).

        x, y: arrays (or lists/dicts of arrays for several inputs/outputs; cut into batches
        of `batch_size`, 32 by default, shuffled each epoch unless shuffle=False), or x
        alone as a generator/iterator of batches, a list of batches or a tk.utils.PyDataset.
        With steps_per_epoch, each epoch takes that many batches and the next epoch goes on
        where it stopped. validation_split keeps the last fraction of the arrays for
        validation; validation_data is (x_val, y_val[, sample_weight_val]) or batches,
        validation_steps caps its batches. class_weight {class: weight} weighs each sample
        by its class. verbose: 1 ("auto") a bar and a line per epoch, 2 the line only, 0
        silent. Every argument is checked before the first training step. A step that
        raises changes nothing (see the module's docstring); an error in the data (a
        generator's, a PyDataset's) reaches you as it was raised.

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
        _check_verbose(verbose)
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split(
                x, y, sample_weight, validation_split)
        batches = EpochIterator(x, y, sample_weight, batch_size, shuffle, steps_per_epoch,
                                class_weight=class_weight)
        validation_data = validation_batches(
            validation_data, validation_batch_size or batch_size, validation_steps,
            _validations(initial_epoch, epochs, validation_freq))
        callbacks = _callbacks(self, callbacks, verbose, history=True, epochs=epochs,
                               steps=batches.num_batches)
        self._build_compile_metrics(batches)
        train_function = self.make_train_function()
        self.stop_training = False
        callbacks.on_train_begin()
        # a backup restored in on_train_begin says where to go on; read once, as Keras 3 does
        initial_epoch, self._initial_epoch = self._initial_epoch or initial_epoch, None
        logs = epoch_logs = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            for step, batch in enumerate(batches):
                callbacks.on_train_batch_begin(step)
                with all_or_nothing():         # a step that raises changes no variable
                    logs = train_function(*batch)
                callbacks.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            if batches.epoch_was_empty:    # the data ran out: "interrupting training", as warned
                break
            epoch_logs = _floats(self._get_metrics_result_or_logs(logs))
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                val_logs = self.evaluate(validation_data, callbacks=callbacks, return_dict=True)
                epoch_logs.update({f"val_{name}": value for name, value in val_logs.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callbacks.on_train_end(epoch_logs)
        return self.history

    @filter_traceback
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False):
        """The loss and metrics over the data: a list [loss, metric...], or a number when
        there are no metrics, or {name: value} with return_dict=True."""
        _check_compiled(self, "evaluate")
        _check_verbose(verbose)
        # fit's validation passes its EpochIterator and its CallbackList
        batches = x if isinstance(x, EpochIterator) else EpochIterator(
            x, y, sample_weight, batch_size, False, steps)
        batches.reset()
        if not isinstance(callbacks, CallbackList):
            callbacks = _callbacks(self, callbacks, verbose, steps=batches.num_batches)
        self._build_compile_metrics(batches)
        test_function = self.make_test_function()
        self.reset_metrics()
        callbacks.on_test_begin()
        logs, drawn = {}, batches.drawn
        for step, batch in enumerate(batches):
            callbacks.on_test_batch_begin(step)
            logs = test_function(*batch)
            callbacks.on_test_batch_end(step, logs)
        if batches.drawn == drawn:   # a generator used up by the epochs before: no number
            raise ran_dry("evaluate", batches)
        logs = _floats(self._get_metrics_result_or_logs(logs))
        callbacks.on_test_end(logs)
        return logs if return_dict else self._flatten_logs_in_order(logs)

    def _flatten_logs_in_order(self, logs):
        """evaluate's list, in Keras 3's order: loss, the metrics of a single output, each
        output's loss, then the other names sorted."""
        trackers = self._compile_loss.metrics if self._compile_loss is not None else []
        first = ["loss"] + ([m.name for m in self._compiled_metrics()] if not trackers else []) \
            + [t.name for t in trackers]
        values = [logs[k] for k in first if k in logs] + \
            [logs[k] for k in sorted(logs) if k not in first]
        return values[0] if len(values) == 1 else values

    @filter_traceback
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs for x, batch by batch, joined into NumPy arrays (works before
        compile, as in Keras)."""
        _check_verbose(verbose)
        batches = EpochIterator(x, None, None, batch_size, False, steps)
        callbacks = _callbacks(self, callbacks, verbose, steps=batches.num_batches)
        predict_function = self.make_predict_function()
        callbacks.on_predict_begin()
        outputs = []
        for step, batch in enumerate(batches):
            callbacks.on_predict_batch_begin(step)
            outputs.append(predict_function(batch[0]))
            callbacks.on_predict_batch_end(step, {"outputs": outputs[-1]})
        callbacks.on_predict_end()
        if not outputs:
            raise ran_dry("predict", batches)
        flat = [nest.flatten(o) for o in outputs]
        joined = [np.concatenate([o[k].numpy() for o in flat]) for k in range(len(flat[0]))]
        return nest.pack_like(outputs[0], joined)


    # --- one batch (Keras 3's *_on_batch: the loops of a GAN or a custom schedule) -----------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One optimizer step on one batch; its loss and metrics as evaluate returns them (a
        number, a list, or a dict with return_dict=True). The metrics are reset first, so they
        are this batch's alone, as in Keras 3.

        >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="zeros")])
        >>> model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
        >>> x = np.array([[1.0], [2.0]]); y = np.array([[2.0], [4.0]])
        >>> model.train_on_batch(x, y)         # the loss before the step: (4 + 16) / 2
        10.0
        >>> round(model.train_on_batch(x, y), 4)     # after it, w = 1, b = 0.6
        1.06
        """
        _check_compiled(self, "train_on_batch")
        batches = single_batch(x, y, sample_weight, class_weight, "train_on_batch")
        return self._one_batch(batches, self.make_train_function, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss and metrics of one batch, without a step (Keras 3's test_on_batch).

        >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="ones")])
        >>> model.compile(loss="mse", metrics=["mae"])
        >>> model.test_on_batch(np.array([[1.0]]), np.array([[3.0]]))     # [mse, mae]
        [4.0, 2.0]
        """
        _check_compiled(self, "test_on_batch")
        batches = single_batch(x, y, sample_weight, None, "test_on_batch")
        return self._one_batch(batches, self.make_test_function, return_dict)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as NumPy arrays (works before compile).

        >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="ones")])
        >>> model.predict_on_batch(np.array([[1.0, 2.0]]))
        array([[3.]], dtype=float32)
        """
        (batch,) = list(single_batch(x, caller="predict_on_batch"))
        outputs = self.make_predict_function()(batch[0])
        return nest.pack_like(outputs, [o.numpy() for o in nest.flatten(outputs)])

    def _one_batch(self, batches, make_function, return_dict):
        self._build_compile_metrics(batches)
        step_function = make_function()
        self.reset_metrics()
        (batch,) = list(batches)
        with all_or_nothing():                # as fit's steps: all or nothing
            logs = step_function(*batch)
        logs = _floats(self._get_metrics_result_or_logs(logs))
        return logs if return_dict else self._flatten_logs_in_order(logs)


# --- helpers ----------------------------------------------------------------------------------
def _check_compiled(model, what):
    if not model.compiled:
        raise ValueError(f"You must call `compile()` before using the model: {what} needs a "
                         f"loss (and fit an optimizer), e.g. model.compile(optimizer='adam', "
                         f"loss='mse'). predict works without compile.")


def _validations(initial_epoch, epochs, validation_freq):
    """How many epochs of this fit end with a validation."""
    return sum(1 for epoch in range(initial_epoch, epochs) if (epoch + 1) % validation_freq == 0)


def _check_verbose(verbose):
    if verbose not in ("auto", 0, 1, 2) or isinstance(verbose, bool) and verbose:
        raise ValueError(f"verbose must be 'auto', 0, 1 or 2, got {verbose!r}")


def _warn_if_nothing_to_train(model):
    warnings.warn("The model does not have any trainable weights.", stacklevel=3)


def _callbacks(model, callbacks, verbose, history=False, **params):
    return CallbackList(callbacks, add_history=history, add_progbar=verbose != 0, model=model,
                        verbose=verbose, **params)


def _floats(logs):
    """Logs as Keras 3's pythonify_logs makes them: sorted by name, numbers as floats."""
    return {name: float(value) for name, value in sorted(logs.items())}


class _CompiledMetricsShim:
    """What `model.compiled_metrics` returns (Keras 3's backwards-compatibility object)."""

    def __init__(self, model):
        self._model = model

    def update_state(self, y, y_pred, sample_weight=None):
        warnings.warn("`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\n"
                      "for metric in self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
                      stacklevel=2)
        model = self._model
        compiled = model._compile_metrics
        if compiled is not None:
            compiled.update_state(y, y_pred, sample_weight)
        for metric in model.metrics:
            if isinstance(metric, metrics_module.Mean) and metric not in model._compiled_metrics():
                metric.update_state(y_pred, sample_weight=sample_weight)
