"""tf.image's random functions: a draw from tapekit.random, then one of ops/image.py's.

    tk.random.set_seed(0)
    tk.image.random_flip_left_right(images)       # each image of a batch mirrored or not

Their `seed` is an op seed as in TensorFlow (with tk.random.set_seed, the same draws on every
run); TensorFlow's own random stream is not reproduced, so the draws differ from
TensorFlow's, while what is drawn (a flip with probability 1/2, an offset uniform over the
places that fit, a delta uniform in [-max_delta, max_delta)) is TensorFlow's. The draw takes
no gradient; the pixels it keeps do (a flip or a crop is a slice of them).
"""
import numpy as np

from . import random
from .convert import convert_to_tensor
from .errors import InvalidArgumentError
from .namespaces import public_dir
from .ops import reshape, where
from .ops.image import adjust_brightness, flip_left_right, flip_up_down, image_tensor
from .ops.inputs import python_value
from .tensor import Tensor

__all__ = ["random_brightness", "random_crop", "random_flip_left_right", "random_flip_up_down"]


def _random_flip(image, seed, flip, op):
    image = image_tensor(image, op)
    if image.ndim == 3:
        return flip(image) if float(random.uniform([], seed=seed)) < 0.5 else image
    coin = random.uniform([image.shape[0]], seed=seed) < 0.5    # one draw per image
    return where(reshape(coin, [-1, 1, 1, 1]), flip(image), image)


def random_flip_left_right(image, seed=None):
    """Mirror each image left to right with probability 1/2 (`tf.image.random_flip_left_right`).

    >>> tk.random.set_seed(1)
    >>> image = tk.reshape(tk.range(4.0), [1, 2, 2, 1])
    >>> flips = [tk.image.random_flip_left_right(image)[0, 0, 0, 0].numpy() for _ in range(200)]
    >>> sorted(set(map(float, flips))), bool(60 < sum(f == 1.0 for f in flips) < 140)
    ([0.0, 1.0], True)
    """
    return _random_flip(image, seed, flip_left_right, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Mirror each image top to bottom with probability 1/2 (`tf.image.random_flip_up_down`).

    >>> tk.image.random_flip_up_down(tk.zeros([4, 2, 2, 1])).shape
    (4, 2, 2, 1)
    """
    return _random_flip(image, seed, flip_up_down, "random_flip_up_down")


def random_crop(value, size, seed=None, name=None):
    """A slice of `value` of shape `size` at a random offset, uniform over the offsets where it
    fits (`tf.image.random_crop`: any rank; `size` has one entry per axis).

    >>> tk.random.set_seed(0)
    >>> tk.image.random_crop(tk.zeros([5, 6, 3]), [2, 3, 3]).shape
    (2, 3, 3)
    """
    value = value if isinstance(value, Tensor) else convert_to_tensor(value)
    size = [int(s) for s in np.atleast_1d(np.asarray(python_value(size)))]
    shape = tuple(value.shape)
    if len(size) != len(shape) or any(s < 0 or s > n for s, n in zip(size, shape)):
        raise InvalidArgumentError(f"random_crop: size must have one entry per axis of value, each "
                                   f"at most that axis's length: value.shape {shape}, size "
                                   f"{tuple(size)} (TensorFlow: need value.shape >= size)")
    limits = [n - s + 1 for s, n in zip(size, shape)]
    offsets = random.uniform([len(shape)], minval=0, maxval=2**31 - 1, dtype="int64", seed=seed)
    starts = [int(o) % lim for o, lim in zip(offsets.numpy(), limits)]
    return value[tuple(slice(b, b + s) for b, s in zip(starts, size))]


def random_brightness(image, max_delta, seed=None):
    """Add one delta, uniform in [-max_delta, max_delta), to the image
    (`tf.image.random_brightness`; integer pixels as in adjust_brightness).

    >>> delta = tk.image.random_brightness(tk.zeros([2, 2, 1]), 0.2)
    >>> bool(tk.reduce_max(tk.abs(delta)) <= 0.2)
    True
    """
    max_delta = float(python_value(max_delta))
    if max_delta < 0:
        raise ValueError(f"random_brightness: max_delta must be non-negative, got {max_delta}")
    delta = random.uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


__dir__ = public_dir(globals())
