"""compile's losses and metrics, as two objects the model holds (Keras 3's
keras/src/trainers/compile_utils.py): `CompileLoss` (`model._compile_loss`) makes
compile(loss=..., loss_weights=...) one loss per output and sums them; `CompileMetrics`
(`model._compile_metrics`) makes metrics= and weighted_metrics= metric objects per output and
updates them.

Each of loss=, metrics=, weighted_metrics= and loss_weights= may be one item, a list (one per
output) or a dict keyed by the output layers' names. The names are checked by compile; the
objects are made at the first batch ("build"), when the shapes of y and y_pred are known
("accuracy" picks binary, sparse or categorical), and named as Keras 3 logs them: "loss",
"<output>_loss", "<output>_<metric>".

    loss = CompileLoss("mse")                 # compile(loss="mse")
    total = loss(y, y_pred, sample_weight)    # mean_squared_error through LossFunctionWrapper
"""
import re

from ... import nest
from ...module import snake_case
from .. import losses as losses_module
from .. import metrics as metrics_module
from ..losses.loss import LossFunctionWrapper


class CompileLoss:
    """compile's loss= and loss_weights=: `compile_loss(y, y_pred, sample_weight)` is the sum
    of each output's loss times its weight, or None when no output has a loss.

    >>> from tapekit.keras.trainers.compile_utils import CompileLoss
    >>> loss = CompileLoss("mse")
    >>> loss(tk.constant([[1.0], [2.0]]), tk.constant([[1.0], [4.0]]))      # (0 + 4) / 2
    tk.Tensor(2.0, shape=(), dtype=float32)
    """

    def __init__(self, loss, loss_weights=None, output_names=None):
        for one in _leaves(loss):                 # unknown names fail at compile, not in fit
            losses_module.get(one)
        self.loss, self.loss_weights, self.output_names = loss, loss_weights, output_names
        self.built = False
        self._losses = []      # [(output index, name, loss, weight, tracker)] once built

    def build(self, y_true, y_pred):
        """One Loss per output that has one, from the number of outputs in y_pred; with
        several, each gets a tracker (a Mean named "<output>_loss") of its unweighted value."""
        names = _names_for(self.output_names, len(_flat_outputs(y_pred)))
        losses = _per_output(self.loss, names, "loss")
        weights = ([None] * len(names) if self.loss_weights is None else
                   _per_output(self.loss_weights, names, "loss_weights"))
        built = [(i, names[i], get_loss(loss), w)
                 for i, (loss, w) in enumerate(zip(losses, weights)) if loss is not None]
        trackers = len(built) > 1
        self._losses = [(i, name, fn, 1.0 if w is None else float(w),
                         metrics_module.Mean(name=f"{name}_loss") if trackers else None)
                        for i, name, fn, w in built]
        self.built = True

    @property
    def metrics(self):
        """Each output's loss tracker, when there are several losses (Keras 3's)."""
        return [tracker for *_, tracker in self._losses if tracker is not None]

    def __call__(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        flat_pred = _flat_outputs(y_pred)
        names = _names_for(self.output_names, len(flat_pred))
        targets = _flat_targets(y_true, names)
        weights = _flat_targets(sample_weight, names, "sample_weight")
        total = None
        for i, name, fn, w, tracker in self._losses:
            if targets[i] is None:
                raise ValueError(f"compile gave output {name!r} a loss, but the data has "
                                 f"no target for it; pass y with one target per output")
            value = fn(targets[i], flat_pred[i], sample_weight=weights[i])
            if tracker is not None:
                tracker.update_state(value, sample_weight=samples_in(flat_pred[i]))
            value = value if w == 1.0 else value * w
            total = value if total is None else total + value
        return total


class CompileMetrics:
    """compile's metrics= (which see no sample weights) and weighted_metrics= (which do):
    `update_state(y, y_pred, sample_weight)` updates each with its output's target and
    prediction; `metrics` lists them, each named as Keras 3 logs it.

    >>> from tapekit.keras.trainers.compile_utils import CompileMetrics
    >>> metrics = CompileMetrics(["mae"], None)
    >>> metrics.update_state(tk.constant([[1.0], [2.0]]), tk.constant([[1.0], [4.0]]))
    >>> {name: float(value) for name, value in metrics.result().items()}
    {'mae': 1.0}
    """

    def __init__(self, metrics, weighted_metrics, output_names=None):
        for one in _leaves(metrics) + _leaves(weighted_metrics):
            if not (isinstance(one, str) and one.lower() in ("accuracy", "acc")):
                metrics_module.get(one)           # unknown names fail at compile, not in fit
        self._user_metrics, self._user_weighted_metrics = metrics, weighted_metrics
        self.output_names = output_names
        self.built = False
        self._metrics = []     # [(metric, output index, weighted)] once built

    def build(self, y_true, y_pred):
        """The metric objects, each named as Keras 3 logs it ("<output>_<name>" with several
        outputs; "weighted_<name>" when a weighted metric would take an unweighted one's
        name; "_1", "_2", ... for the same name again)."""
        flat_pred = _flat_outputs(y_pred)
        names = _names_for(self.output_names, len(flat_pred))
        several = len(names) > 1
        targets = _flat_targets(y_true, names)
        built, taken = [], set()
        for specs, weighted in ((self._user_metrics, False), (self._user_weighted_metrics, True)):
            if not specs:
                continue
            what = "weighted_metrics" if weighted else "metrics"
            for i, per_output in enumerate(_per_output(specs, names, what)):
                per_output = [] if per_output is None else per_output if isinstance(
                    per_output, (list, tuple)) else [per_output]
                for spec in per_output:
                    metric = get_metric(spec, targets[i], flat_pred[i])
                    base = metric.name
                    name = f"{names[i]}_{base}" if several else base
                    if name in taken and weighted:
                        name = f"{names[i]}_weighted_{base}" if several else f"weighted_{base}"
                    k, unique = 1, name
                    while unique in taken:
                        unique, k = f"{name}_{k}", k + 1
                    metric.name = unique
                    taken.add(unique)
                    built.append((metric, i, weighted))
        self._metrics = built
        self.built = True

    @property
    def metrics(self):
        return [metric for metric, _, _ in self._metrics]

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        flat_pred = _flat_outputs(y_pred)
        names = _names_for(self.output_names, len(flat_pred))
        targets = _flat_targets(y_true, names)
        weights = _flat_targets(sample_weight, names, "sample_weight")
        for metric, i, weighted in self._metrics:
            metric.update_state(targets[i], flat_pred[i],
                                sample_weight=weights[i] if weighted else None)

    def reset_state(self):
        for metric in self.metrics:
            metric.reset_state()

    def result(self):
        return {metric.name: metric.result() for metric in self.metrics}


# --- one loss, one metric -----------------------------------------------------------------
def get_loss(identifier):
    """The Loss for one output: a Loss as it is; a name ("mse") or a function, wrapped in a
    LossFunctionWrapper (Keras 3's get_loss)."""
    loss = losses_module.get(identifier)
    if loss is None or isinstance(loss, losses_module.Loss):
        return loss
    return LossFunctionWrapper(loss)


def get_metric(spec, y_true, y_pred):
    """The Metric for one output (Keras 3's get_metric): "accuracy" picks binary, sparse or
    categorical accuracy from the shapes of y and y_pred; a function becomes a
    MeanMetricWrapper; a name given as a string is the metric's name."""
    if isinstance(spec, str) and spec.lower() in ("accuracy", "acc"):
        binary = y_pred.shape[-1] == 1
        sparse = y_true is not None and (len(y_true.shape) < len(y_pred.shape) or
                                         (y_true.shape[-1] == 1 and y_pred.shape[-1] > 1))
        cls = (metrics_module.BinaryAccuracy if binary else
               metrics_module.SparseCategoricalAccuracy if sparse else
               metrics_module.CategoricalAccuracy)
        return cls(name=spec)
    metric = metrics_module.get(spec)
    if not isinstance(metric, metrics_module.Metric):
        # Keras names a function's metric in snake case, without symbols: "lambda"
        name = snake_case(re.sub(r"\W+", "", getattr(metric, "__name__", ""))) or None
        metric = metrics_module.MeanMetricWrapper(metric, name=name)
    if isinstance(spec, str):
        metric.name = spec
    return metric


def samples_in(x):
    """The number of samples in a batch: the first input's first axis."""
    return nest.flatten(x)[0].shape[0]


# --- compile's arguments, one entry per output --------------------------------------------
def _leaves(spec):
    """The items of a (nested) list/dict of losses or metrics, without the Nones."""
    if spec is None:
        return []
    if isinstance(spec, dict):
        return [x for v in spec.values() for x in _leaves(v)]
    if isinstance(spec, (list, tuple)):
        return [x for v in spec for x in _leaves(v)]
    return [spec]


def _flat_outputs(y_pred):
    return nest.flatten(y_pred) if isinstance(y_pred, (list, tuple, dict)) else [y_pred]


def _names_for(output_names, n):
    """The names of n outputs: the model's (its output layers'), else "output" for one and
    "output_0", ... for several (tapekit's names; Keras 3.15 logs a subclassed model's
    per-output losses by loss ("mse_loss") and its metrics without a prefix)."""
    if output_names is not None and len(output_names) == n:
        return list(output_names)
    return ["output"] if n == 1 else [f"output_{i}" for i in range(n)]


def _flat_targets(y, names, what="y"):
    """y as one target per output: a list/tuple in output order, a dict by output name,
    or one array for a single output (or the same for every output: sample_weight)."""
    n = len(names)
    if y is None:
        return [None] * n
    if isinstance(y, dict):
        unknown = sorted(set(y) - set(names))
        if unknown:
            raise ValueError(f"{what} is a dict with keys {unknown} that are not output "
                             f"names; the model's outputs are {names}")
        return [y.get(name) for name in names]
    if isinstance(y, (list, tuple)) and n > 1:
        if len(y) != n:
            raise ValueError(f"{what} has {len(y)} items for a model with {n} outputs "
                             f"{names}; give one per output")
        return list(y)
    if n > 1 and what == "sample_weight":
        return [y] * n
    if n > 1:
        raise ValueError(f"the model has {n} outputs {names}, but {what} is "
                         f"one array; pass a list (one per output) or a dict by name")
    return [y[0] if isinstance(y, (list, tuple)) and len(y) == 1 else y]


def _per_output(spec, names, what):
    """compile's loss / metrics / loss_weights as one entry per output."""
    n = len(names)
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(names))
        if unknown:
            raise ValueError(f"compile({what}=...): the keys {unknown} are not names of "
                             f"the model's outputs {names}")
        return [spec.get(name) for name in names]
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


# --- pickles made before issue 44 ---------------------------------------------------------
# Such a pickle names the function wrapper of a compiled loss by its old path,
# tapekit.keras.loss_and_metrics._FunctionLoss: keras/__init__.py makes that module an alias
# of this one, and this is the class it finds there.
_FunctionLoss = LossFunctionWrapper

# What a model kept itself before issue 44, in place of its CompileLoss and CompileMetrics.
OLD_STATE = ("_compiled_losses", "_metric_specs", "_weighted_metric_specs", "_compile_metrics")


def from_old_state(old, loss, loss_weights, output_names):
    """(CompileLoss or None, CompileMetrics or None) from the OLD_STATE entries of a model
    pickled before issue 44: the metric specs, and `_compiled_losses` [(output, name, loss,
    weight, tracker)] and `_compile_metrics` [(metric, output, weighted)] once built (None
    before). The objects keep what was built, the metrics' counts with it."""
    compile_loss = None if loss is None else CompileLoss(loss, loss_weights, output_names)
    if compile_loss is not None and old.get("_compiled_losses") is not None:
        compile_loss._losses, compile_loss.built = list(old["_compiled_losses"]), True
    metrics, weighted = old.get("_metric_specs"), old.get("_weighted_metric_specs")
    compile_metrics = CompileMetrics(metrics, weighted, output_names) if metrics or weighted \
        else None
    if compile_metrics is not None and old.get("_compile_metrics") is not None:
        compile_metrics._metrics, compile_metrics.built = list(old["_compile_metrics"]), True
    return compile_loss, compile_metrics
