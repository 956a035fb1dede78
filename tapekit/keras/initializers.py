"""Weight initializers, as `keras.initializers`: objects called as `init(shape, dtype)`.

    tk.layers.Dense(3, kernel_initializer="he_normal")
    tk.layers.Dense(3, kernel_initializer=tk.initializers.RandomNormal(stddev=0.01, seed=1))

Without a seed, an initializer draws from tk.random's global stream, so
`tk.random.set_seed(0)` makes a whole model reproducible. With `seed=`, it gives the same
values on every call, as Keras 3's seeded initializers do ("a seeded initializer will
produce the same random values across multiple calls").

>>> tk.initializers.GlorotUniform(seed=1)((2, 2)).shape
(2, 2)
>>> tk.initializers.get("zeros")((3,))          # a tensor, as Keras 3 gives: init(shape).numpy()
tk.Tensor([0. 0. 0.], shape=(3,), dtype=float32)
"""
import math

import numpy as np

from .. import dtypes, random
from ..tensor import wrap_array
from .identifiers import resolve
from .saving.serialization_lib import deserialize_keras_object, serialize_keras_object
from ..namespaces import no_attribute, public_dir
from .saving import lookup

__all__ = ["Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Initializer",
           "Ones", "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal", "Zeros", "deserialize",
           "get", "serialize"]


def _fans(shape):
    """Keras's fans: (in, out) for Dense kernels; conv kernels (h, w, in, out) count each
    window position; a vector counts its length both ways."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: subclasses implement `__call__(shape, dtype=None)` returning an array or a
    tensor (the built-in ones return a tensor, as Keras 3's do).

    >>> class Halves(tk.initializers.Initializer):
    ...     def __call__(self, shape, dtype=None):
    ...         return np.full(shape, 0.5, dtype or np.float32)
    >>> tk.layers.Dense(1, kernel_initializer=Halves())(tk.ones((1, 2)))
    tk.Tensor([[1.]], shape=(1, 1), dtype=float32)
    """

    seed = None

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __call__(self, shape, dtype=None):
        """A tensor of `shape` (float32 unless `dtype` says otherwise), as Keras 3 gives."""
        return wrap_array(self._draw(shape, dtype))

    def _draw(self, shape, dtype=None):   # the built-in initializers' numbers, as an array
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(shape, dtype=None)")

    def _uniform(self, shape, limit, dtype):
        if self.seed is None:
            return random.uniform(shape, -limit, limit, dtype=dtype).numpy()
        rng = np.random.default_rng(self.seed)
        return rng.uniform(-limit, limit, shape).astype(dtype)

    def _normal(self, shape, mean, stddev, dtype, truncated=False):
        if self.seed is None:
            draw = lambda n: random.normal((n,), dtype=dtypes.float64).numpy()
        else:
            rng = np.random.default_rng(self.seed)
            draw = rng.standard_normal
        size = math.prod(shape)
        z = draw(size)
        while truncated and (bad := np.abs(z) > 2).any():   # redraw beyond 2 standard deviations
            z[bad] = draw(int(bad.sum()))
        return (mean + stddev * z).reshape(shape).astype(dtype)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"

    # Keys Keras 3 writes that tapekit takes only at these values (variance scaling's axes).
    _keras_only = {}

    def get_config(self):
        """The constructor's arguments, with Keras 3's keys (`keras.initializers`).

        >>> tk.initializers.RandomUniform(seed=2).get_config()
        {'seed': 2, 'minval': -0.05, 'maxval': 0.05}
        """
        config = {"seed": self.seed} if "seed" in vars(self) else {}
        config.update({k: v for k, v in vars(self).items() if k != "seed"})
        config.update(self._keras_only)
        return config

    @classmethod
    def from_config(cls, config):
        """An initializer from `get_config`'s dict, or from Keras 3's.

        >>> tk.initializers.GlorotUniform.from_config(
        ...     {"seed": 1, "input_axes": None, "output_axes": None})
        GlorotUniform(seed=1)
        """
        config = dict(config)
        for key, value in cls._keras_only.items():
            given = config.pop(key, value)
            if given != value:
                raise ValueError(f"{cls.__name__}.from_config: tapekit does not support {key}="
                                 f"{given!r} (only {value!r})")
        return cls(**config)


class Zeros(Initializer):
    """All zeros.

    >>> tk.initializers.Zeros()((2,))
    tk.Tensor([0. 0.], shape=(2,), dtype=float32)
    """

    def _draw(self, shape, dtype=None):
        return np.zeros(shape, dtypes.as_dtype(dtype or dtypes.float32))


class Ones(Initializer):
    """All ones.

    >>> tk.initializers.Ones()((2,))
    tk.Tensor([1. 1.], shape=(2,), dtype=float32)
    """

    def _draw(self, shape, dtype=None):
        return np.ones(shape, dtypes.as_dtype(dtype or dtypes.float32))


class Constant(Initializer):
    """Every entry `value`.

    >>> tk.initializers.Constant(0.5)((2,))
    tk.Tensor([0.5 0.5], shape=(2,), dtype=float32)
    """

    def __init__(self, value=0.0):
        self.value = value

    def _draw(self, shape, dtype=None):
        return np.full(shape, self.value, dtypes.as_dtype(dtype or dtypes.float32))


class RandomUniform(Initializer):
    """Uniform on [minval, maxval) (Keras's defaults: -0.05, 0.05).

    >>> w = tk.initializers.RandomUniform(-1.0, 1.0, seed=0)((1000,)).numpy()
    >>> bool(w.min() >= -1.0 and w.max() < 1.0)
    True
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def _draw(self, shape, dtype=None):
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        half = (self.maxval - self.minval) / 2
        return (self._uniform(shape, half, dtype) + (self.minval + half)).astype(dtype)


class RandomNormal(Initializer):
    """Normal with `mean` and `stddev` (Keras's defaults: 0, 0.05).

    >>> init = tk.initializers.RandomNormal(mean=1.0, stddev=0.1, seed=3)
    >>> bool((init((4,)).numpy() == init((4,)).numpy()).all())       # seeded: the same values on every call
    True
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def _draw(self, shape, dtype=None):
        return self._normal(shape, self.mean, self.stddev, dtypes.as_dtype(dtype or dtypes.float32))


class TruncatedNormal(RandomNormal):
    """Normal with `mean` and `stddev`, redrawn beyond two standard deviations.

    >>> w = tk.initializers.TruncatedNormal(stddev=1.0, seed=0)((1000,)).numpy()
    >>> bool(np.abs(w).max() <= 2.0)
    True
    """

    def _draw(self, shape, dtype=None):
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        return self._normal(shape, self.mean, self.stddev, dtype, truncated=True)


class GlorotUniform(Initializer):
    """Uniform on ±sqrt(6 / (fan_in + fan_out)): Keras's default for kernels and `add_weight`.

    >>> w = tk.initializers.GlorotUniform(seed=0)((20, 30)).numpy()
    >>> bool(np.abs(w).max() <= (6 / 50) ** 0.5)
    True
    """

    _keras_only = {"input_axes": None, "output_axes": None}

    def __init__(self, seed=None):
        self.seed = seed

    def _draw(self, shape, dtype=None):
        fan_in, fan_out = _fans(shape)
        return self._uniform(shape, math.sqrt(6.0 / (fan_in + fan_out)),
                             dtypes.as_dtype(dtype or dtypes.float32))


class GlorotNormal(GlorotUniform):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out)) (corrected for the truncation).

    >>> tk.initializers.GlorotNormal(seed=0)((3, 4)).shape
    (3, 4)
    """

    def _draw(self, shape, dtype=None):
        fan_in, fan_out = _fans(shape)
        stddev = math.sqrt(2.0 / (fan_in + fan_out)) / 0.87962566103423978
        return self._normal(shape, 0.0, stddev, dtypes.as_dtype(dtype or dtypes.float32), True)


class HeUniform(GlorotUniform):
    """Uniform on ±sqrt(6 / fan_in), for ReLU layers.

    >>> w = tk.initializers.HeUniform(seed=0)((8, 4)).numpy()
    >>> bool(np.abs(w).max() <= (6 / 8) ** 0.5)
    True
    """

    def _draw(self, shape, dtype=None):
        return self._uniform(shape, math.sqrt(6.0 / _fans(shape)[0]),
                             dtypes.as_dtype(dtype or dtypes.float32))


class HeNormal(GlorotUniform):
    """Truncated normal with stddev sqrt(2 / fan_in) (corrected for the truncation).

    >>> tk.initializers.HeNormal(seed=0)((3, 4)).shape
    (3, 4)
    """

    def _draw(self, shape, dtype=None):
        stddev = math.sqrt(2.0 / _fans(shape)[0]) / 0.87962566103423978
        return self._normal(shape, 0.0, stddev, dtypes.as_dtype(dtype or dtypes.float32), True)


class Orthogonal(Initializer):
    """A (scaled) orthogonal matrix, Keras's default for recurrent kernels: the QR
    decomposition of a normal sample, with the signs of R's diagonal moved into Q.

    >>> w = tk.initializers.Orthogonal(seed=0)((4, 4)).numpy()
    >>> bool(np.allclose(w.T @ w, np.eye(4), atol=1e-5))
    True
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = float(gain), seed

    def _draw(self, shape, dtype=None):
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the shape needs at least 2 dimensions, got {tuple(shape)}")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = self._normal((max(rows, cols), min(rows, cols)), 0.0, 1.0, np.float64)
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape).astype(dtype)


INITIALIZERS = {"zeros": Zeros, "ones": Ones, "constant": Constant,
                "random_uniform": RandomUniform, "uniform": RandomUniform, "random_normal": RandomNormal,
                "truncated_normal": TruncatedNormal, "glorot_uniform": GlorotUniform,
                "glorot_normal": GlorotNormal, "he_uniform": HeUniform, "he_normal": HeNormal,
                "orthogonal": Orthogonal}


# --- TensorFlow's own initializers, tf.zeros_initializer and tf.random_normal_initializer ---------
# (TensorFlow's init_ops_v2, not Keras's): the same numbers as Zeros and RandomNormal, given as
# a tensor, float32 unless `dtype` says otherwise, and accepted by layers as Keras's are.
class ZerosInitializer(Zeros):
    """`tf.zeros_initializer()`: called as `init(shape, dtype=tk.float32)`, a tensor of zeros.

    >>> tk.zeros_initializer()([2])
    tk.Tensor([0. 0.], shape=(2,), dtype=float32)
    """

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        return wrap_array(super()._draw(shape, dtypes.as_dtype(dtype)))


class RandomNormalInitializer(RandomNormal):
    """`tf.random_normal_initializer(mean=0.0, stddev=0.05, seed=None)`: called as
    `init(shape, dtype=tk.float32)`, a tensor of normal samples. Seeded, it gives the same
    values on every call, as TensorFlow's does (NumPy's numbers, not TensorFlow's).

    >>> init = tk.random_normal_initializer(mean=1.0, stddev=0.5, seed=3)
    >>> bool((init([3]).numpy() == init([3]).numpy()).all()), init([3]).dtype
    (True, dtype('float32'))
    """

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        dtype = dtypes.as_dtype(dtype)
        if dtype.kind != "f":
            raise ValueError(f"random_normal_initializer: dtype must be floating, got {dtype.name}")
        return wrap_array(super()._draw(tuple(int(d) for d in shape), dtype))


def get(identifier):
    """An initializer from a name ("glorot_uniform"), an Initializer object, or a callable
    `(shape, dtype) -> array`; the class names work too ("GlorotUniform").

    >>> tk.initializers.get("he_normal")
    HeNormal(seed=None)
    """
    return resolve(identifier, INITIALIZERS, "initializer", base=Initializer,
                   configs=deserialize_keras_object,   # a config, as a layer's config holds it
                   accepts="an object such as tk.initializers.RandomNormal(stddev=0.1), or a "
                           "callable (shape, dtype) -> array")


def serialize(initializer):
    """An initializer as Keras 3 writes it in a layer's config.

    >>> tk.initializers.serialize("zeros")
    {'module': 'keras.initializers', 'class_name': 'Zeros', 'config': {}, 'registered_name': None}
    """
    return serialize_keras_object(get(initializer))


def deserialize(config, custom_objects=None):
    """The initializer a config describes (serialize's inverse)."""
    return get(deserialize_keras_object(config, custom_objects=custom_objects))


# A Keras config names these as keras.initializers (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.initializers", {name: globals()[name] for name in __all__})

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
