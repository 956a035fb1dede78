"""Seeded random tensors (`tf.random`): normal, uniform, set_seed.

One NumPy Generator per process, reset by `set_seed`; an op-level `seed` gives a
stream of its own (derived from the global seed and the op seed), so a notebook
that calls `tk.random.set_seed(0)` first prints the same numbers every run.

Sampling is a registered op with no tensor inputs and no gradient. That is what
lets `tk.function` see it: a traced function records the draw as a step and
draws again on every replay (a Dropout mask is new each call), instead of
baking the first call's numbers in as a constant.
"""
import numpy as np

from . import dtypes
from .ops.registry import defop, python_value

_global_seed = None
_generator = np.random.default_rng()
_op_streams = {}


def set_seed(seed):
    """Make every later random op deterministic.

    >>> tk.random.set_seed(42)
    >>> a = tk.random.uniform([3])
    >>> tk.random.set_seed(42)
    >>> np.array_equal(a.numpy(), tk.random.uniform([3]).numpy())     # the same numbers again
    True
    """
    global _global_seed, _generator
    _global_seed = int(seed)
    _generator = np.random.default_rng(_global_seed)
    _op_streams.clear()


def _rng(seed):
    # Looked up at every draw (not captured), so a replayed draw uses the current stream.
    if seed is None:
        return _generator
    key = int(seed)
    if key not in _op_streams:
        _op_streams[key] = np.random.default_rng([0 if _global_seed is None else _global_seed, key])
    return _op_streams[key]


def _shape(shape):
    shape = python_value(shape)
    return tuple(int(s) for s in np.atleast_1d(np.asarray(shape)).tolist()) if np.ndim(shape) or shape != () else ()


def _normal(shape, mean, stddev, dtype, seed):
    sample = _rng(seed).standard_normal(shape, dtype=np.float64)
    return (sample * stddev + mean).astype(dtype)


def _uniform(shape, minval, maxval, dtype, seed):
    rng = _rng(seed)
    if dtype.kind in "iu":
        return rng.integers(minval, maxval, size=shape).astype(dtype)
    sample = rng.random(shape, dtype=np.float64)
    return (minval + sample * (maxval - minval)).astype(dtype)


# No inputs, no vjp: tapes never record them, tracers (tk.function) do.
random_normal = defop("random_normal", _normal, args="",
                      doc="Samples from N(mean, stddev**2); attrs shape, mean, stddev, dtype, seed.")
random_uniform = defop("random_uniform", _uniform, args="",
                       doc="Samples from [minval, maxval); attrs shape, minval, maxval, dtype, seed.")


def _plain(v):
    v = python_value(v)
    return v[()] if isinstance(v, np.ndarray) else v


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples from a normal distribution.

    >>> tk.random.set_seed(0)
    >>> tk.random.normal((2,)).shape
    (2,)
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"random.normal: dtype must be floating, got {dtype.name}")
    return random_normal(shape=_shape(shape), mean=_plain(mean), stddev=_plain(stddev),
                         dtype=dtype, seed=seed)


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples from [minval, maxval) (maxval defaults to 1 for floats; required for ints).

    >>> tk.random.set_seed(0)
    >>> tk.random.uniform([3]).shape
    (3,)
    >>> x = tk.random.uniform([1000], minval=-1.0, maxval=1.0)
    >>> bool(tk.reduce_min(x) >= -1.0) and bool(tk.reduce_max(x) < 1.0)
    True
    >>> tk.random.uniform([4], maxval=10, dtype=tk.int32).dtype
    dtype('int32')
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind in "iu":
        if maxval is None:
            raise ValueError("random.uniform: integer dtypes need maxval")
    else:
        maxval = 1 if maxval is None else maxval
    return random_uniform(shape=_shape(shape), minval=_plain(minval), maxval=_plain(maxval),
                          dtype=dtype, seed=seed)
