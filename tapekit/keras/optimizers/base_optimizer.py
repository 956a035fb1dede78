"""The optimizer base class: state in Variables, clipping, weight decay, config (Keras 3's keys).

Every update is written with tapekit ops and `assign*`, never with Python numbers read from
that state (the learning rate, `iterations`, each variable's slots). That is what lets
`tk.function` record an optimizer step once and replay it: a replay reads the current slots
and step count, just as the eager step does. Each update rule is a subclass in a module of
its own (sgd.py, adam.py, rmsprop.py), as in Keras 3.
"""
import math
import numbers
import threading
import warnings

import numpy as np

from ...compiler.trace import hold_in_traces
from ...convert import convert_to_tensor
from ...namespaces import no_attribute
from ...ops import cast, clip_by_global_norm, clip_by_norm, clip_by_value
from ...tensor import Tensor, Variable
from ... import restoring
from ..utils.naming import check_name, join_path, snake_name
from ..saving.serialization_lib import deserialize_keras_object, serialize_keras_object
from .schedules import LearningRateSchedule


_NO_SLOTS = {}  # the slots of every variable of an optimizer that keeps none (plain SGD)


class Optimizer:
    """Base class: subclasses define `_slot_names` and `_update(grad, var, slots, lr)`, and
    `_slot_groups` where Keras 3 makes the slots in more than one group (see `variables`).

    >>> class SignSGD(tk.optimizers.Optimizer):
    ...     _slot_names = ()
    ...     def _update(self, g, var, slots, lr):
    ...         var.assign_sub(tk.sign(g) * lr)
    >>> w = tk.Variable([1.0, 1.0])
    >>> _ = SignSGD(0.5, "SignSGD").apply_gradients([(tk.constant([3.0, -0.1]), w)])
    >>> w.numpy()
    array([0.5, 1.5], dtype=float32)
    """

    _slot_names = ()
    # Keras 3's build makes the slots by groups, one add_optimizer_variables call each, which
    # interleaves a group's slots variable by variable: Adam's ("momentum", "velocity"), then
    # ("velocity_hat",); RMSprop's ("velocity",), ("momentum",), ("average_gradient",). None:
    # one group of all the slots.
    _slot_groups = None
    # The value each slot starts at, where it is not 0 (Adagrad's accumulator).
    _slot_initial = {}

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, learning_rate, name, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None):
        cls = type(self).__name__
        if sum(c is not None for c in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(f"{cls}: only one of clipnorm, clipvalue and global_clipnorm can be "
                             f"set, got clipnorm={clipnorm}, clipvalue={clipvalue}, "
                             f"global_clipnorm={global_clipnorm}")
        # Keras 3's: grads clipped, then each variable decays by w * weight_decay * lr, then the step
        self.weight_decay, self.clipnorm, self.clipvalue, self.global_clipnorm = (
            None if v is None else checked_hyperparameter(cls, k, v, 0) for k, v in (
                ("weight_decay", weight_decay), ("clipnorm", clipnorm), ("clipvalue", clipvalue),
                ("global_clipnorm", global_clipnorm)))
        # Keras 3's rule for a name: any string without "/"; None for the class's snake name
        self.name = snake_name(cls) if name is None else check_name(name, f"{cls}(name=...)")
        self._schedule = learning_rate if isinstance(learning_rate, LearningRateSchedule) else None
        initial = 0.0 if self._schedule else checked_hyperparameter(
            type(self).__name__, "learning_rate", learning_rate, 0)
        self._learning_rate = Variable(initial, trainable=False, dtype="float32",
                                       name=join_path(self.name, "learning_rate"))
        self.iterations = Variable(0, trainable=False, dtype="int64",
                                   name=join_path(self.name, "iteration"))
        self._slots = {}  # id(variable) -> (variable, {slot name: Variable})
        # One apply_gradients at a time: threads sharing an optimizer each get a whole step
        # (slots, variables, iterations), as if their calls ran one after another.
        self._lock = threading.RLock()

    @property
    def learning_rate(self):
        """The rate the next step uses: a Variable, or the schedule's value at `iterations`."""
        return self._learning_rate if self._schedule is None else self._schedule(self.iterations)

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(value, LearningRateSchedule):
            self._schedule = value
            return
        self._schedule = None
        # Assigned, not replaced: a tk.function that reads it sees the new value.
        self._learning_rate.assign(checked_hyperparameter(type(self).__name__, "learning_rate", value, 0))

    def _current_learning_rate(self):
        """The learning-rate Variable, first set from the schedule (if any) at this step."""
        if self._schedule is not None:
            self._learning_rate.assign(cast(self._schedule(self.iterations), "float32"))
        return self._learning_rate

    def build(self, variables):
        """Create the slots of `variables` now (else at their first update); `apply` then
        may omit them (Keras 3's `optimizer.build(model.trainable_variables)`)."""
        self._built_variables = list(variables)
        for v in self._built_variables:
            if self._slot_names:
                self._slots_for(v)

    def apply(self, grads, trainable_variables=None):
        """Keras 3's form: `optimizer.apply(grads, model.trainable_variables)`.

        The same update as `apply_gradients(zip(grads, trainable_variables))`; without
        `trainable_variables`, the variables given to `build`.
        """
        if trainable_variables is None:
            trainable_variables = getattr(self, "_built_variables", None)
            if trainable_variables is None:
                raise ValueError(f"{type(self).__name__}.apply: no trainable_variables given and "
                                 f"the optimizer is not built; pass them, e.g. "
                                 f"optimizer.apply(grads, model.trainable_variables)")
        grads, trainable_variables = list(grads), list(trainable_variables)
        if len(grads) != len(trainable_variables):
            raise ValueError(f"{type(self).__name__}.apply: {len(grads)} gradients for "
                             f"{len(trainable_variables)} variables; pass one gradient per "
                             f"variable, in the same order")
        return self.apply_gradients(zip(grads, trainable_variables))

    # --- Keras 3's helpers for an optimizer's own update rules ------------------------------
    def assign(self, variable, value):
        """`variable.assign(value)` (Keras 3's `optimizer.assign`, for update rules written
        in a subclass).

        >>> w = tk.Variable(1.0)
        >>> opt = tk.optimizers.SGD()
        >>> opt.assign(w, 3.0); opt.assign_add(w, 2.0); opt.assign_sub(w, 0.5); w.numpy()
        np.float32(4.5)
        """
        variable.assign(value)

    def assign_add(self, variable, value):
        """`variable.assign_add(value)` (Keras 3's `optimizer.assign_add`)."""
        variable.assign_add(value)

    def assign_sub(self, variable, value):
        """`variable.assign_sub(value)` (Keras 3's `optimizer.assign_sub`)."""
        variable.assign_sub(value)

    @property
    def variables(self):
        """Keras 3's `optimizer.variables`, in its order (a saved file's optimizer/vars):
        iterations, the learning rate (no variable when a schedule gives it), then the slots of
        the variables it updates, a group at a time (`_keras_slot_order`).

        >>> opt = tk.optimizers.RMSprop(momentum=0.5)
        >>> a, b = tk.Variable([1.0], name="a"), tk.Variable([2.0, 3.0], name="b")
        >>> _ = opt.apply_gradients([(tk.constant([0.1]), a), (tk.constant([0.2, 0.3]), b)])
        >>> [v.name for v in opt.variables]
        ['RMSprop/iteration:0', 'RMSprop/learning_rate:0', 'RMSprop/a/velocity:0', 'RMSprop/b/velocity:0', 'RMSprop/a/momentum:0', 'RMSprop/b/momentum:0']
        """
        order = self._keras_slot_order([var for var, _ in self._slots.values()])
        tail = [v for _, v in self._keras_tail()] if self._slots else []
        return [v for _, v in self._keras_head()] + [self._slots[id(var)][1][slot]
                                                    for slot, var in order] + tail

    def _keras_head(self):
        """[(name, Variable)] before the slots in Keras 3's optimizer.variables: iterations,
        and the learning rate unless a schedule sets it (Keras 3 then keeps no variable)."""
        head = [("iterations", self.iterations)]
        if self._schedule is None:
            head.append(("learning_rate", self._learning_rate))
        return head

    def _keras_tail(self):
        """[(name, Variable)] after the slots in Keras 3's optimizer.variables, made by its
        build beside the slots (Nadam's product of momentum decays); none by default."""
        return []

    def _begin_step(self):
        """Called once per apply_gradients, before the variables' updates (Nadam moves its
        product of momentum decays there, as Keras 3 does)."""

    def _keras_slot_order(self, variables):
        """[(slot name, variable)] in the order Keras 3 keeps the slots of an optimizer built on
        `variables`: each group of slots in turn, and within a group each variable's slots
        (Adam: momentum, velocity of the first variable, of the second, ...; then velocity_hat
        of each, with amsgrad). A file's optimizer state is read and written in this order."""
        return [(slot, var) for group in self._groups() for var in variables for slot in group]

    def _describe_slot_order(self):
        """_keras_head and _keras_slot_order in words, for error messages."""
        return ", then ".join([name for name, _ in self._keras_head()] + [
            f"{' and '.join(group)} of each trainable variable" for group in self._groups()]
            + [name for name, _ in self._keras_tail()])

    def _groups(self):
        if self._slot_groups is not None:
            return self._slot_groups
        return (self._slot_names,) if self._slot_names else ()

    def apply_gradients(self, grads_and_vars):
        """Update each variable from its gradient, then project it by its `constraint` if it has
        one; skip (with a warning) None gradients."""
        pairs = _pairs(type(self).__name__, grads_and_vars)
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in pairs]}. "
                             f"Does the loss depend on them? Was it computed inside the "
                             f"GradientTape's `with` block?")
        if len(kept) < len(pairs):
            missing = [v.name for g, v in pairs if g is None]
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the "
                          f"loss; they are not updated.", stacklevel=2)
        lr32 = self._current_learning_rate()
        has_slots = bool(self._slot_names)
        checked = []
        for g, v in kept:
            dtype = v._value.dtype
            g = g if isinstance(g, Tensor) else convert_to_tensor(g, dtype=dtype)
            if g._value.shape != v._value.shape:
                # Adam's (g - m) would broadcast a () or (1,) gradient over every weight.
                raise ValueError(f"{type(self).__name__}.apply_gradients: the gradient for "
                                 f"{v.name!r} has shape {g.shape}, the variable {v.shape}; a "
                                 f"gradient must have its variable's shape (is the pair order "
                                 f"(gradient, variable)?)")
            if g._value.dtype != dtype and g._value.dtype.kind not in "fc":
                raise TypeError(f"{type(self).__name__}.apply_gradients: the gradient for "
                                f"{v.name!r} ({dtype.name}) has dtype {g.dtype.name}; a gradient "
                                f"must be floating, like its variable (Keras 3 would cast it silently). "
                                f"Cast it on purpose: tk.cast(g, tk.{dtype.name})")
            checked.append((g if g._value.dtype == dtype else cast(g, dtype), v))
        checked = self._clip(checked)
        with self._lock:
            hold_in_traces(self._lock)   # a tk.function's replay of this step holds it too
            self._begin_step()
            for g, v in checked:
                dtype = v._value.dtype
                lr = lr32 if dtype == lr32._value.dtype else cast(lr32, dtype)
                if self.weight_decay:
                    v.assign_sub(v * cast(self.weight_decay, dtype) * lr)
                self._update(g, v, self._slots_for(v) if has_slots else _NO_SLOTS, lr)
                if v._constraint is not None:   # then its constraint projects it (Keras 3)
                    v.assign(v._constraint(v))
            self.iterations.assign_add(1)
        return self.iterations

    def _clip(self, pairs):
        """Keras 3's clipping of the gradients: clipnorm each, else global_clipnorm, else clipvalue."""
        if self.clipnorm:
            return [(clip_by_norm(g, self.clipnorm), v) for g, v in pairs]
        if self.global_clipnorm:
            grads = clip_by_global_norm([g for g, _ in pairs], self.global_clipnorm)[0]
            return list(zip(grads, [v for _, v in pairs]))
        if self.clipvalue:
            return [(clip_by_value(g, -self.clipvalue, self.clipvalue), v) for g, v in pairs]
        return pairs

    def _slots_for(self, var):
        entry = self._slots.get(id(var))
        if entry is None:
            base = var.path
            named = {s: Variable(np.full(var.shape, self._slot_initial.get(s, 0), var.dtype),
                                 trainable=False, name=join_path(self.name, base, s))
                     for s in self._slot_names}
            entry = self._slots[id(var)] = (var, named)  # keeps var alive: ids stay unique
            if restoring.waiting():     # a Checkpoint.restore kept values for these slots
                restoring.retry()
        return entry[1]

    def _step(self, dtype):
        """The 1-based number of this update, as a tensor computed from `iterations`."""
        return cast(self.iterations + 1, dtype)

    # --- config (Keras 3's keys) and pickling ----------------------------------------------
    # Keras 3's keys that tapekit's optimizers take only at these values.
    _keras_only = {"use_ema": False, "ema_momentum": 0.99,
                   "ema_overwrite_frequency": None, "loss_scale_factor": None,
                   "gradient_accumulation_steps": None}
    _hyperparameters = ()

    def get_config(self):
        """The constructor's arguments with Keras 3's keys (its compile config holds them).

        >>> tk.optimizers.SGD(0.1, momentum=0.9).get_config()["momentum"]
        0.9
        """
        lr = (serialize_keras_object(self._schedule) if self._schedule is not None
              else float(self._learning_rate.numpy()))
        name = self.name if self.name != type(self).__name__ else _keras_name(type(self).__name__)
        config = {"name": name, "learning_rate": lr, "weight_decay": self.weight_decay,
                  "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                  "clipvalue": self.clipvalue, **self._keras_only}
        config.update({k: getattr(self, k) for k in self._hyperparameters})
        return config

    @classmethod
    def from_config(cls, config):
        """An optimizer from get_config's dict or Keras 3's (whose extra keys must keep
        Keras's defaults: tapekit has no EMA or loss scaling)."""
        config = dict(config)
        for key, default in cls._keras_only.items():
            if key in config and config.pop(key) != default:
                raise ValueError(f"{cls.__name__}.from_config: tapekit's {cls.__name__} does not "
                                 f"support {key} (the config sets it); load the model with "
                                 f"compile=False and compile it again")
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = deserialize_keras_object(config["learning_rate"])
        if config.get("name") == _keras_name(cls.__name__):
            config["name"] = cls.__name__       # Keras's default name: tapekit's default
        return cls(**config)

    def __getstate__(self):
        """pickle/copy: everything but the lock; slots keyed by variable, not by id."""
        state = {k: v for k, v in self.__dict__.items() if k != "_lock"}
        state["_slots"] = list(self._slots.values())
        return state

    def __setstate__(self, state):
        state = dict(state)
        state["_slots"] = {id(var): (var, named) for var, named in state["_slots"]}
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def __repr__(self):
        lr = (type(self._schedule).__name__ if self._schedule is not None
              else f"{float(self._learning_rate):g}")
        return f"<{type(self).__name__} learning_rate={lr}, iterations={int(self.iterations)}>"


def _keras_name(class_name):
    """Keras 3's default optimizer name: Adam -> adam, RMSprop -> rm_sprop."""
    return snake_name(class_name)


def checked_hyperparameter(optimizer, name, value, low, high=None, high_open=True):
    """`value` checked as a finite real number in [low, high) (or [low, high]), as a float.

    Adam(None), a negative learning rate, beta_1 = 1.5 or epsilon = -1 would otherwise run
    and turn the weights into NaN (or climb the loss) a few steps later.
    """
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.kind in "fiu":
        value = value._value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{optimizer}: {name} must be a number, got {value!r}"
                        + (" (a schedule must subclass "
                           "tk.optimizers.schedules.LearningRateSchedule)" if callable(value) else ""))
    value = float(value)
    below_high = high is None or (value < high if high_open else value <= high)
    if not math.isfinite(value) or value < low or not below_high:
        valid = f"in [{low}, {high}{')' if high_open else ']'}" if high is not None else f">= {low}"
        raise ValueError(f"{optimizer}: {name} must be {valid}, got {value!r}")
    return value


def _pairs(optimizer, grads_and_vars):
    """`grads_and_vars` as a list of (gradient, Variable) pairs, or a clear error."""
    if isinstance(grads_and_vars, Tensor):
        raise TypeError(f"{optimizer}.apply_gradients: expected (gradient, variable) pairs, got "
                        f"one tensor of shape {grads_and_vars.shape}; pass zip(grads, variables)")
    pairs = list(grads_and_vars)
    for k, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            got = (f"a tensor of shape {pair.shape}" if isinstance(pair, Tensor)
                   else f"{type(pair).__name__} {pair!r:.60}")
            raise TypeError(f"{optimizer}.apply_gradients: expected (gradient, variable) pairs, "
                            f"e.g. zip(grads, model.trainable_variables); item {k} is {got}")
        if not isinstance(pair[1], Variable):
            raise TypeError(f"{optimizer}.apply_gradients: expected (gradient, tk.Variable) "
                            f"pairs, got a {type(pair[1]).__name__} in place of the variable of "
                            f"item {k} (is the pair order (gradient, variable)?)")
    return pairs
