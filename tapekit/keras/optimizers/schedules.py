"""Learning-rate schedules (`keras.optimizers.schedules`): the rate as a function of the step.

    lr = tk.optimizers.schedules.ExponentialDecay(0.1, decay_steps=100, decay_rate=0.5)
    optimizer = tk.optimizers.SGD(learning_rate=lr)   # 0.1, then halved every 100 steps

The optimizer calls the schedule with its `iterations` Variable before each update. A
schedule computes with ops on that step (never `int(step)`), so a `tk.function` training
step reads the current step at every replay and the rate keeps decaying.

>>> opt = tk.optimizers.SGD(tk.optimizers.schedules.PiecewiseConstantDecay([1], [0.5, 0.1]))
>>> w = tk.Variable(0.0)
>>> for _ in range(3):
...     _ = opt.apply([tk.constant(1.0)], [w])    # steps 0 and 1 at 0.5, step 2 at 0.1
>>> round(float(w), 6)
-1.1
"""
from ...namespaces import no_attribute, public_dir
from ...ops import cast, pow, where
from ..saving import lookup

__all__ = ["LearningRateSchedule", "ExponentialDecay", "InverseTimeDecay",
           "PiecewiseConstantDecay"]


class LearningRateSchedule:
    """Base class: `__call__(step)` returns the learning rate for that (0-based) step.

    >>> class Halving(tk.optimizers.schedules.LearningRateSchedule):
    ...     def __call__(self, step):
    ...         return 1.0 / (1.0 + tk.cast(step, "float32"))
    >>> Halving()(tk.constant(1))
    tk.Tensor(0.5, shape=(), dtype=float32)
    """

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __call__(self, step):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(step)")


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate * decay_rate ** (step / decay_steps), with the exponent rounded
    down to an integer when `staircase=True` (the rate changes every decay_steps steps).

    >>> lr = tk.optimizers.schedules.ExponentialDecay(1.0, decay_steps=2, decay_rate=0.5)
    >>> [float(lr(tk.constant(s))) for s in (0, 1, 2, 4)]
    [1.0, 0.7071067690849304, 0.5, 0.25]
    >>> lr = tk.optimizers.schedules.ExponentialDecay(1.0, 2, 0.5, staircase=True)
    >>> [float(lr(tk.constant(s))) for s in (0, 1, 2, 3)]
    [1.0, 1.0, 0.5, 0.5]
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        _init_decay(self, initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        p = _progress(self, step)
        return self.initial_learning_rate * pow(self.decay_rate, p)


class InverseTimeDecay(LearningRateSchedule):
    """initial_learning_rate / (1 + decay_rate * step / decay_steps), with step / decay_steps
    rounded down to an integer when `staircase=True`.

    >>> lr = tk.optimizers.schedules.InverseTimeDecay(0.1, decay_steps=10, decay_rate=0.5)
    >>> [round(float(lr(tk.constant(s))), 6) for s in (0, 5, 10, 25)]    # as Keras 3.15
    [0.1, 0.08, 0.066667, 0.044444]
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        _init_decay(self, initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        p = _progress(self, step)
        return self.initial_learning_rate / (1.0 + self.decay_rate * p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[0] up to boundaries[0] (inclusive), values[1] up to boundaries[1], ...,
    values[-1] after the last boundary.

    >>> lr = tk.optimizers.schedules.PiecewiseConstantDecay([2, 4], [1.0, 0.5, 0.1])
    >>> [round(float(lr(tk.constant(s))), 2) for s in (0, 2, 3, 4, 5)]
    [1.0, 1.0, 0.5, 0.5, 0.1]
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseConstantDecay: values must have one more entry than "
                             f"boundaries, got {len(boundaries)} boundaries and {len(values)} "
                             f"values")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step):
        step = cast(step, "float32")
        rate = cast(step * 0.0 + float(self.values[-1]), "float32")
        for boundary, value in reversed(list(zip(self.boundaries, self.values))):
            rate = where(step <= float(boundary), float(value), rate)
        return rate


# A Keras config names these as keras.optimizers.schedules (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.optimizers.schedules", {name: globals()[name] for name in __all__})

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only


def _init_decay(schedule, initial_learning_rate, decay_steps, decay_rate, staircase, name):
    """The arguments ExponentialDecay and InverseTimeDecay share, checked and kept."""
    if decay_steps <= 0:
        raise ValueError(f"{type(schedule).__name__}: decay_steps must be > 0, got {decay_steps!r}")
    schedule.initial_learning_rate = float(initial_learning_rate)
    schedule.decay_steps, schedule.decay_rate = decay_steps, float(decay_rate)
    schedule.staircase, schedule.name = staircase, name


def _progress(schedule, step):
    """step / decay_steps, rounded down when the schedule is a staircase."""
    p = cast(step, "float32") / float(schedule.decay_steps)
    if schedule.staircase:    # floor of a non-negative number: a cast to int truncates
        p = cast(cast(p, "int64"), "float32")
    return p
