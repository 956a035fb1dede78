"""compile's losses and metrics: one loss and its metrics per output, Keras 3's log names.

`LossAndMetrics` is mixed into `Trainer` (and so `Model`): `compute_loss` sums each output's
loss times its weight (plus the layers' `add_loss` losses), `compute_metrics` updates the
metrics and returns the logs ("loss", "<output>_loss", "<output>_<metric>"). compile's
`loss=`, `metrics=`, `weighted_metrics=`, `loss_weights=` may be one item, a list (one per
output) or a dict keyed by the output layers' names; the objects are made at the first batch,
when the shapes of y and y_pred are known ("accuracy" picks binary, sparse or categorical).
"""
import re

from .. import nest
from ..module import snake_case
from . import losses as losses_module
from . import metrics as metrics_module
from .data_adapter import unpack_x_y_sample_weight
from .losses.loss import LossFunctionWrapper


class LossAndMetrics:
    """output_names, compute_loss, compute_metrics, metrics, reset_metrics of a Trainer."""

    @property
    def output_names(self):
        """The names of the model's outputs: the layers that make them (functional), else None
        (the logs then say "output_0", ...: tapekit's names; Keras 3.15 logs a subclassed
        model's per-output losses by loss ("mse_loss") and its metrics without a prefix)."""
        outputs = getattr(self, "outputs", None)
        if outputs is not None and self.__dict__.get("_graph") is not None:
            return [t._keras_history[0].name for t in nest.flatten(outputs)]
        return None

    def _flat_outputs(self, y_pred):
        return nest.flatten(y_pred) if isinstance(y_pred, (list, tuple, dict)) else [y_pred]

    def _names_for(self, n):
        names = self.output_names
        return names if names is not None and len(names) == n else \
            ["output"] if n == 1 else [f"output_{i}" for i in range(n)]

    def _flat_targets(self, y, n, what="y"):
        """y as one target per output: a list/tuple in output order, a dict by output name,
        or one array for a single output (or the same for every output: sample_weight)."""
        if y is None:
            return [None] * n
        if isinstance(y, dict):
            names = self._names_for(n)
            unknown = sorted(set(y) - set(names))
            if unknown:
                raise ValueError(f"{what} is a dict with keys {unknown} that are not output "
                                 f"names; the model's outputs are {names}")
            return [y.get(name) for name in names]
        if isinstance(y, (list, tuple)) and n > 1:
            if len(y) != n:
                raise ValueError(f"{what} has {len(y)} items for a model with {n} outputs "
                                 f"{self._names_for(n)}; give one per output")
            return list(y)
        if n > 1 and what == "sample_weight":
            return [y] * n
        if n > 1:
            raise ValueError(f"the model has {n} outputs {self._names_for(n)}, but {what} is "
                             f"one array; pass a list (one per output) or a dict by name")
        return [y[0] if isinstance(y, (list, tuple)) and len(y) == 1 else y]

    def _per_output(self, spec, n, what, default=None):
        """compile's loss / metrics / loss_weights as one entry per output."""
        names = self._names_for(n)
        if isinstance(spec, dict):
            unknown = sorted(set(spec) - set(names))
            if unknown:
                raise ValueError(f"compile({what}=...): the keys {unknown} are not names of "
                                 f"the model's outputs {names}")
            return [spec.get(name, default) for name in names]
        if what == "loss" or what == "loss_weights":
            if isinstance(spec, (list, tuple)):
                if n == 1 and len(spec) == 1:
                    return list(spec)
                if len(spec) != n:
                    raise ValueError(f"compile({what}=...) has {len(spec)} items for a model "
                                     f"with {n} outputs {names}; give one per output (None "
                                     f"for none)")
                return list(spec)
            return [spec] * n
        # metrics: for one output a list of metrics; for several, one item per output (a
        # metric, a list of them, or None), as Keras 3 requires
        spec = list(spec or [])
        if n == 1:
            return [spec]
        if len(spec) != n:
            raise ValueError(f"Invalid `{what}`: for a model with {n} outputs {names} give a "
                             f"dict by output name or a list of {n} items (one metric, a list "
                             f"of metrics, or None per output); received {what}={spec!r}")
        return [[] if s is None else list(s) if isinstance(s, (list, tuple)) else [s]
                for s in spec]

    def _build_losses(self, y_pred):
        n = len(self._flat_outputs(y_pred))
        names = self._names_for(n)
        losses = self._per_output(self.loss, n, "loss")
        weights = ([None] * n if self.loss_weights is None else
                   self._per_output(self.loss_weights, n, "loss_weights",
                                    default=None))
        built = [(i, names[i], _as_loss(losses_module.get(loss)), w)
                 for i, (loss, w) in enumerate(zip(losses, weights)) if loss is not None]
        trackers = len(built) > 1
        self._compiled_losses = [
            (i, name, fn, 1.0 if w is None else float(w),
             metrics_module.Mean(name=f"{name}_loss") if trackers else None)
            for i, name, fn, w in built]

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of (y, y_pred), weighted, plus the model's own `losses`
        (add_loss, regularizers): the number `train_step` differentiates. With several
        outputs: the sum of each output's loss times its loss weight."""
        if self._compiled_losses is None and self.loss is not None:
            self._build_losses(y_pred)
        terms = []
        if self.loss is not None:
            flat_pred = self._flat_outputs(y_pred)
            n = len(flat_pred)
            targets = self._flat_targets(y, n)
            weights = self._flat_targets(sample_weight, n, "sample_weight")
            for i, name, fn, w, tracker in self._compiled_losses:
                if targets[i] is None:
                    raise ValueError(f"compile gave output {name!r} a loss, but the data has "
                                     f"no target for it; pass y with one target per output")
                value = fn(targets[i], flat_pred[i], sample_weight=weights[i])
                if tracker is not None:
                    tracker.update_state(value, sample_weight=samples_in(flat_pred[i]))
                terms.append(value if w == 1.0 else value * w)
        terms.extend(getattr(self, "losses", None) or [])
        if not terms:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics with this batch; return every metric's result.
        `metrics` see no sample weights, `weighted_metrics` do (Keras 3)."""
        if self._compile_metrics is None:
            self._compile_metrics = self._build_metrics(y, y_pred)
        flat_pred = self._flat_outputs(y_pred)
        n = len(flat_pred)
        targets = self._flat_targets(y, n)
        weights = self._flat_targets(sample_weight, n, "sample_weight")
        for metric, i, weighted in self._compile_metrics:
            metric.update_state(targets[i], flat_pred[i],
                                sample_weight=weights[i] if weighted else None)
        return self.get_metrics_result()

    def _build_metrics(self, y, y_pred):
        """[(metric, output index, weighted)]: each metric named as Keras 3 logs it
        ("<output>_<name>" with several outputs; "weighted_<name>" when a weighted metric
        would take an unweighted one's name)."""
        flat_pred = self._flat_outputs(y_pred)
        n = len(flat_pred)
        names = self._names_for(n)
        targets = self._flat_targets(y, n)
        built, taken = [], set()
        for specs, weighted in ((self._metric_specs, False),
                                (self._weighted_metric_specs, True)):
            if not specs:
                continue
            what = "weighted_metrics" if weighted else "metrics"
            for i, per_output in enumerate(self._per_output(specs, n, what)):
                per_output = [] if per_output is None else per_output if isinstance(
                    per_output, (list, tuple)) else [per_output]
                for metric in _build_metrics(per_output, targets[i], flat_pred[i]):
                    base = metric.name
                    name = f"{names[i]}_{base}" if n > 1 else base
                    if name in taken and weighted:
                        name = f"{names[i]}_weighted_{base}" if n > 1 else f"weighted_{base}"
                    k, unique = 1, name
                    while unique in taken:
                        unique, k = f"{name}_{k}", k + 1
                    metric.name = unique
                    taken.add(unique)
                    built.append((metric, i, weighted))
        return built

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
        return ([self._loss_tracker] + [m for m, _, _ in self._compile_metrics or []] +
                [t for *_, t in self._compiled_losses or [] if t is not None])

    @property
    def metrics_names(self):
        """Keras 3's names: "loss", "compile_metrics" (all compiled metrics, as one), then
        each output's loss tracker; the logs and evaluate(return_dict=True) name each metric."""
        if not self.compiled:
            return []
        return (["loss"] + (["compile_metrics"] if self._compile_metrics else []) +
                [t.name for *_, t in self._compiled_losses or [] if t is not None])

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
        needs_metrics = self._compile_metrics is None and (self._metric_specs or
                                                           self._weighted_metric_specs)
        needs_losses = self._compiled_losses is None and self.loss is not None
        if needs_metrics or needs_losses:
            batch = batches.first_batch()
            if batch is not None:
                x, y, _ = unpack_x_y_sample_weight(batch)
                y_pred = self(x, training=False)
                if needs_losses:
                    self._build_losses(y_pred)
                if needs_metrics:
                    self._compile_metrics = self._build_metrics(y, y_pred)


def _as_loss(loss):
    if loss is None or isinstance(loss, losses_module.Loss):
        return loss
    return LossFunctionWrapper(loss)


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
                # Keras names a function's metric in snake case, without symbols: "lambda"
                name = snake_case(re.sub(r"\W+", "", getattr(metric, "__name__", ""))) or None
                metric = metrics_module.MeanMetricWrapper(metric, name=name)
            if isinstance(spec, str):
                metric.name = spec
        built.append(metric)
    return built


def samples_in(x):
    """The number of samples in a batch: the first input's first axis."""
    return nest.flatten(x)[0].shape[0]
