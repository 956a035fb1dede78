"""Weight initializers by name, as `keras.initializers`: each is `(shape, dtype) -> array`."""
import math

import numpy as np

from .. import random


def _fans(shape):
    # Dense kernels are (in, out); conv kernels (h, w, in, out) count each window position.
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


def _glorot_uniform(shape, dtype):
    fan_in, fan_out = _fans(shape)
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return random.uniform(shape, -limit, limit, dtype=dtype)


def _he_uniform(shape, dtype):
    limit = math.sqrt(6.0 / _fans(shape)[0])
    return random.uniform(shape, -limit, limit, dtype=dtype)


INITIALIZERS = {"glorot_uniform": _glorot_uniform, "he_uniform": _he_uniform,
                "zeros": lambda shape, dtype: np.zeros(shape, dtype),
                "ones": lambda shape, dtype: np.ones(shape, dtype)}


def _initializer(init):
    if callable(init):
        return init
    if init in INITIALIZERS:
        return INITIALIZERS[init]
    raise ValueError(f"unknown initializer {init!r}; use one of {sorted(INITIALIZERS)} or a "
                     f"callable (shape, dtype) -> array")


get = _initializer
