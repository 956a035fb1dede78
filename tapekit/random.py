"""Seeded random tensors (`tf.random`, and Keras 3's `keras.random`): normal, uniform,
truncated_normal, randint, shuffle, categorical, dropout, set_seed, SeedGenerator, and
TensorFlow's stateful Generator (get_global_generator, set_global_generator).

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
from .convert import convert_to_tensor
from .errors import InvalidArgumentError
from .ops import cast
from .errors import InvalidArgumentError
from .ops.inputs import as_int, python_value
from .ops.registry import defop
from .tensor import Variable
from .namespaces import missing, no_attribute, public_dir

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


def save_state():
    """The position of every random stream (the global one and each op seed's), for
    `restore_state`. tk.function uses the pair to leave the streams as it found them: a
    get_concrete_function trace, or a replay undone at a guard, draws nothing for good.

    >>> saved = tk.random.save_state()
    >>> a = tk.random.uniform([2])
    >>> tk.random.restore_state(saved)
    >>> np.array_equal(a.numpy(), tk.random.uniform([2]).numpy())     # the same draw again
    True
    """
    return (_generator, _generator.bit_generator.state,
            {k: (g, g.bit_generator.state) for k, g in _op_streams.items()})


def restore_state(saved):
    """Put every stream `save_state` saw back where it was. A stream made since (a new op
    seed) is left as it is; `set_seed` in between is not undone.

    >>> tk.random.set_seed(1)
    >>> saved = tk.random.save_state()
    >>> first = tk.random.normal([3]).numpy()
    >>> second = tk.random.normal([3]).numpy()         # the stream moved on: other numbers
    >>> tk.random.restore_state(saved)
    >>> bool((tk.random.normal([3]).numpy() == first).all()), bool((first == second).all())
    (True, False)
    """
    generator, state, streams = saved
    generator.bit_generator.state = state
    for g, s in streams.values():
        g.bit_generator.state = s


class SeedGenerator:
    """Keras 3's seed state (`keras.random.SeedGenerator`): each random op given it draws
    from the next stream, so two draws differ, and the same seed repeats the sequence.

    The state is a Variable `[seed, counter]`, as in Keras; the numbers are NumPy's (they
    differ from TensorFlow's for the same seed).

    >>> gen = tk.random.SeedGenerator(42)
    >>> a = tk.random.normal((2,), seed=gen)
    >>> b = tk.random.normal((2,), seed=gen)             # the next stream: other numbers
    >>> bool((a.numpy() != b.numpy()).all())
    True
    >>> again = tk.random.SeedGenerator(42)
    >>> np.array_equal(a.numpy(), tk.random.normal((2,), seed=again).numpy())
    True
    >>> gen.state.numpy()
    array([42,  2])
    """

    def __init__(self, seed=None, name=None, **kwargs):
        if seed is None:
            seed = int(_generator.integers(0, 2**31 - 1))
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"SeedGenerator: seed must be an integer or None, got {seed!r}")
        self.name = name or "seed_generator"
        self.state = Variable(np.array([int(seed), 0], np.int64), trainable=False,
                              name=f"{self.name}_state")

    def next(self):
        """The seed of the next draw (a pair [seed, counter]); advances the counter."""
        var = self.state
        with var._lock:
            seed, counter = (int(v) for v in var._value)
            # In place, not by assign, as Generator._next_stream: a tk.function records the
            # draw and runs it again at each replay, which counts again; a recorded assign
            # would write the first trace's counter back, and every replay would draw the
            # same numbers (a layer's dropout mask repeated at every step of fit).
            var._value = np.array([seed, counter + 1], np.int64)
        return seed, counter

    def __repr__(self):
        return f"<SeedGenerator {self.name!r} state={self.state.numpy().tolist()}>"


def _rng(seed):
    # Looked up at every draw (not captured), so a replayed draw uses the current stream.
    if seed is None:
        return _generator
    if isinstance(seed, Generator):
        return seed._next_stream()
    if isinstance(seed, SeedGenerator):
        return np.random.default_rng(list(seed.next()))
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
        if maxval > np.iinfo(np.int64).max + 1:      # uint64's whole range: drawn as uint64
            return rng.integers(minval, maxval, size=shape, dtype=np.uint64)
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
    dtype = dtypes.as_dtype(dtype or dtypes.float32)
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
    dtype = dtypes.as_dtype(dtype or dtypes.float32)
    if dtype.kind in "iu":
        if maxval is None:
            raise ValueError("random.uniform: integer dtypes need maxval")
    else:
        maxval = 1 if maxval is None else maxval
    return random_uniform(shape=_shape(shape), minval=_plain(minval), maxval=_plain(maxval),
                          dtype=dtype, seed=seed)


def _truncated(shape, mean, stddev, dtype, seed):
    rng = _rng(seed)
    z = rng.standard_normal(shape)
    while (bad := np.abs(z) > 2).any():          # redraw beyond 2 standard deviations
        z[bad] = rng.standard_normal(int(bad.sum()))
    return (z * stddev + mean).astype(dtype)


random_truncated_normal = defop("random_truncated_normal", _truncated, args="",
                                doc="Normal samples redrawn beyond 2 stddev; attrs as random_normal.")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples from N(mean, stddev**2), each redrawn until within 2 stddev of the mean.

    >>> tk.random.set_seed(0)
    >>> x = tk.random.truncated_normal([1000])
    >>> bool(tk.reduce_max(tk.abs(x)) <= 2.0)
    True
    """
    dtype = dtypes.as_dtype(dtype or dtypes.float32)
    if dtype.kind != "f":
        raise TypeError(f"random.truncated_normal: dtype must be floating, got {dtype.name}")
    return random_truncated_normal(shape=_shape(shape), mean=_plain(mean), stddev=_plain(stddev),
                                   dtype=dtype, seed=seed)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniform in [minval, maxval) (Keras 3's `keras.random.randint`).

    >>> tk.random.set_seed(0)
    >>> x = tk.random.randint((100,), 0, 3)
    >>> x.dtype, sorted(set(x.numpy().tolist()))
    (dtype('int32'), [0, 1, 2])
    """
    dtype = dtypes.as_dtype(dtype or dtypes.float32)
    if dtype.kind not in "iu":
        raise TypeError(f"random.randint: dtype must be an integer dtype, got {dtype.name}")
    return uniform(shape, minval=minval, maxval=maxval, dtype=dtype, seed=seed)


def _shuffle(value, axis, seed):
    return _rng(seed).permutation(value, axis=axis)


random_shuffle = defop("random_shuffle", _shuffle, args="value", vjp=None,
                       doc="A random permutation along `axis`; no gradient (as TensorFlow).")


def shuffle(value, seed=None, name=None, axis=0):
    """`value` with its entries along `axis` (the first) in a random order.

    >>> tk.random.set_seed(0)
    >>> sorted(tk.random.shuffle(tk.range(5)).numpy().tolist())
    [0, 1, 2, 3, 4]
    """
    value = convert_to_tensor(value)
    if value.ndim == 0:
        raise ValueError("random.shuffle: value must have at least one axis, got a scalar")
    return random_shuffle(value, axis=int(axis), seed=seed)


def _categorical(logits, num_samples, dtype, seed):
    # The Gumbel-max trick: argmax(logits + Gumbel noise) is class j with probability
    # softmax(logits)_j. A class whose logit is -inf is never drawn.
    noise = _rng(seed).gumbel(size=logits.shape[:1] + (num_samples,) + logits.shape[1:])
    return np.argmax(logits[:, None, :].astype(np.float64) + noise, axis=-1).astype(dtype)


random_categorical = defop("random_categorical", _categorical, args="logits", vjp=None,
                           doc="Class ids drawn with probabilities softmax(logits), per row; "
                               "no gradient (as TensorFlow).")


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`num_samples` class ids for each row of `logits` (shape [batch, classes]), class j
    drawn with probability softmax(row)_j (`tf.random.categorical`): a [batch, num_samples]
    tensor of int64 (or `dtype`, int32). Seeded as every tk.random op (tk.random.set_seed,
    an op seed); the numbers are NumPy's, not TensorFlow's stream for the same seed, while
    the shape, the dtype and the distribution are TensorFlow's. No gradient.

    >>> tk.random.set_seed(0)
    >>> draws = tk.random.categorical(tk.constant([[0.0, 0.0], [-np.inf, 0.0]]), 4)
    >>> draws.shape, draws.dtype, draws.numpy()[1].tolist()     # row 2 can only give class 1
    ((2, 4), dtype('int64'), [1, 1, 1, 1])
    """
    logits = convert_to_tensor(logits)
    if logits.ndim != 2:
        raise InvalidArgumentError(f"random.categorical: logits must be a matrix [batch_size, "
                                   f"num_classes], got shape {tuple(logits.shape)}; one row: "
                                   f"logits[tk.newaxis]")
    if logits.dtype.kind != "f":
        raise InvalidArgumentError(f"random.categorical: logits must be floating (log "
                                   f"probabilities), got {logits.dtype.name}")
    n = as_int(num_samples, "random.categorical: num_samples")
    if n < 0:
        raise InvalidArgumentError(f"random.categorical: num_samples must be >= 0, got {n}")
    if logits.shape[1] == 0:
        raise InvalidArgumentError("random.categorical: logits has no classes (num_classes = 0); "
                                   "each row needs at least one")
    dtype = dtypes.as_dtype(dtype or dtypes.int64)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"random.categorical: dtype must be tk.int32 or tk.int64, got {dtype.name}")
    return random_categorical(logits, num_samples=n, dtype=dtype, seed=seed)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Keras 3's `keras.random.dropout`: each entry zeroed with probability `rate`, the
    others scaled by 1/(1 - rate); the gradient flows through the kept entries.

    >>> y = tk.random.dropout(tk.ones((1000,)), 0.5, seed=tk.random.SeedGenerator(0))
    >>> sorted(set(y.numpy().tolist()))
    [0.0, 2.0]
    """
    if not 0 <= rate < 1:
        raise ValueError(f"random.dropout: rate must be in [0, 1), got {rate!r}")
    inputs = convert_to_tensor(inputs)
    shape = inputs.shape if noise_shape is None else tuple(
        n if n is not None else inputs.shape[i] for i, n in enumerate(noise_shape))
    keep = uniform(shape, dtype=inputs.dtype, seed=seed) >= rate
    return inputs * (1.0 / (1.0 - rate)) * cast(keep, inputs.dtype)


# --- tf.random.Generator ------------------------------------------------------------------------
_UINT64 = np.iinfo(np.uint64).max


def _key_of(seed):
    """A 64-bit key from an integer seed (NumPy's SeedSequence, as the op seeds above)."""
    return int(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])


class Generator:
    """A random number generator whose state is a Variable (`tf.random.Generator`): each draw
    moves the state on, the same state gives the same numbers, and the state can be saved
    in a tk.train.Checkpoint.

    >>> g = tk.random.Generator.from_seed(1)
    >>> a = g.normal([3])
    >>> b = g.normal([3])                                    # the state moved on
    >>> bool((a.numpy() != b.numpy()).all())
    True
    >>> np.array_equal(a.numpy(), tk.random.Generator.from_seed(1).normal([3]).numpy())
    True
    >>> g.uniform([4], minval=0, maxval=10, dtype=tk.int32).dtype
    dtype('int32')

    The numbers are NumPy's Philox generator's, not TensorFlow's: TensorFlow's Philox stream
    (Philox4x32 with its own key schedule) is not reproduced bit for bit, so the same seed
    gives other numbers than in TensorFlow, with the same shapes, dtypes, ranges and
    distributions. `state` is a Variable of shape (3,) and dtype int64, as TensorFlow's:
    [draws counted (two words), key]; its values differ from TensorFlow's for the same seed.
    """

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if not isinstance(copy_from, Generator):
                raise TypeError(f"Generator: copy_from must be a Generator, got "
                                f"{type(copy_from).__name__}")
            state = copy_from.state.numpy()
        elif state is None:
            raise ValueError("Generator: give copy_from or state, or make one with "
                             "Generator.from_seed(seed) or Generator.from_non_deterministic_state()")
        state = np.asarray(python_value(state))
        if state.shape != (3,) or state.dtype.kind not in "iu":
            raise ValueError(f"Generator: state must be 3 integers (shape (3,), as TensorFlow's "
                             f"Philox state), got shape {state.shape} dtype {state.dtype.name}")
        self._state_var = Variable(state.astype(np.uint64).view(np.int64), trainable=False,
                                   name="StateVar")
        self._alg = 1 if alg is None else alg

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose numbers depend only on the integer `seed`."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"Generator.from_seed: seed must be an integer, got {seed!r}")
        return cls(state=np.array([0, 0, _key_of(int(seed) & _UINT64)], np.uint64), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy (other numbers every run)."""
        key = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        return cls(state=np.array([0, 0, key], np.uint64), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        """A generator that continues from `state` (another generator's `state`)."""
        return cls(state=state, alg=alg)

    @property
    def state(self):
        """The state Variable, int64 of shape (3,)."""
        return self._state_var

    @property
    def key(self):
        """The key part of the state (an int64 scalar tensor), as TensorFlow's `key`."""
        return convert_to_tensor(self._state_var.numpy()[-1])

    @property
    def algorithm(self):
        return self._alg

    def _checkpoint_children(self):          # a tk.train.Checkpoint saves the state
        return [("_state_var", self._state_var)]

    def _next_stream(self):
        """A NumPy generator for the next draw; counts the draw in the state."""
        low, high, key = (int(v) for v in self._state_var.numpy().view(np.uint64))
        stream = np.random.Generator(np.random.Philox(key=[key, 0], counter=[0, 0, low, high]))
        low = (low + 1) & _UINT64
        high = (high + (low == 0)) & _UINT64
        # Written in place, not by assign: a tk.function records the draw (this op) and runs it
        # again at each replay, which counts again; a recorded assign would write the first
        # trace's count back at every replay, and every replay would draw the same numbers.
        var = self._state_var
        with var._lock:
            var._value = np.array([low, high, key], np.uint64).view(np.int64)
        return stream

    def reset_from_seed(self, seed):
        """Start again as Generator.from_seed(seed) would."""
        self._state_var.assign(Generator.from_seed(seed).state.numpy())

    def reset(self, state):
        self._state_var.assign(np.asarray(python_value(state)).astype(np.uint64).view(np.int64))

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Samples from N(mean, stddev**2)."""
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        if dtype.kind != "f":
            raise TypeError(f"Generator.normal: dtype must be floating, got {dtype.name}")
        return random_normal(shape=_shape(shape), mean=_plain(mean), stddev=_plain(stddev),
                             dtype=dtype, seed=self)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Samples from N(mean, stddev**2), each redrawn until within 2 stddev of the mean."""
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        if dtype.kind != "f":
            raise TypeError(f"Generator.truncated_normal: dtype must be floating, got {dtype.name}")
        return random_truncated_normal(shape=_shape(shape), mean=_plain(mean),
                                       stddev=_plain(stddev), dtype=dtype, seed=self)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Samples from [minval, maxval): maxval defaults to 1 for floats; for integer dtypes
        (int32, int64, uint32, uint64) give both (minval < maxval) or neither (the whole range
        of the dtype), as TensorFlow.

        >>> g = tk.random.Generator.from_seed(0)
        >>> g.uniform([3], dtype=tk.int32)
        Traceback (most recent call last):
        ValueError: Generator.uniform: for integer dtype int32, minval and maxval must be both None or both given; got minval=0 and maxval=None
        """
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        if dtype.kind in "iu":
            if dtype.name not in ("int32", "int64", "uint32", "uint64"):
                raise InvalidArgumentError(f"Generator.uniform: integer dtype {dtype.name} is not "
                                           f"supported; use int32, int64, uint32 or uint64 (as "
                                           f"TensorFlow)")
            if (minval is None) != (maxval is None):
                raise ValueError(f"Generator.uniform: for integer dtype {dtype.name}, minval and "
                                 f"maxval must be both None or both given; got minval={minval!r} "
                                 f"and maxval={maxval!r}")
            if minval is None:
                return self.uniform_full_int(shape, dtype)
            low, high = _plain(minval), _plain(maxval)
            if not low < high:
                raise InvalidArgumentError(f"Generator.uniform: need minval < maxval, got "
                                           f"{low} >= {high}")
            info = np.iinfo(dtype)
            if low < info.min or high > info.max + 1:
                raise InvalidArgumentError(f"Generator.uniform: [{low}, {high}) does not fit in "
                                           f"{dtype.name}")
        elif dtype.kind != "f":
            raise TypeError(f"Generator.uniform: dtype must be floating or an integer dtype, got "
                            f"{dtype.name}")
        else:
            minval = 0 if minval is None else minval
            maxval = 1 if maxval is None else maxval
        return random_uniform(shape=_shape(shape), minval=_plain(minval), maxval=_plain(maxval),
                              dtype=dtype, seed=self)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers uniform over the whole range of `dtype`."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.name not in ("int32", "int64", "uint32", "uint64"):
            raise InvalidArgumentError(f"Generator.uniform_full_int: dtype {dtype.name} is not "
                                       f"supported; use int32, int64, uint32 or uint64")
        info = np.iinfo(dtype)
        return random_uniform(shape=_shape(shape), minval=int(info.min), maxval=int(info.max) + 1,
                              dtype=dtype, seed=self)

    def split(self, count=1):
        """`count` new generators, their keys drawn from this one (which moves on)."""
        if count < 0:
            raise ValueError(f"Generator.split: count must be at least 0, got {count}")
        keys = self._next_stream().integers(0, _UINT64, size=count, dtype=np.uint64, endpoint=True)
        return [Generator(state=np.array([0, 0, k], np.uint64), alg=self._alg) for k in keys]

    def __repr__(self):
        return f"<tk.random.Generator state={self._state_var.numpy().tolist()}>"


_global = None


def get_global_generator():
    """The generator shared by a program (made on first use from non-deterministic state, as
    TensorFlow's; `set_seed` does not reset it, as in TensorFlow).

    >>> tk.random.get_global_generator() is tk.random.get_global_generator()
    True
    """
    global _global
    if _global is None:
        _global = Generator.from_non_deterministic_state()
    return _global


def set_global_generator(generator):
    """Make `generator` the one get_global_generator returns.

    >>> g = tk.random.Generator.from_seed(3)
    >>> tk.random.set_global_generator(g)
    >>> tk.random.get_global_generator() is g
    True
    """
    global _global
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator: expected a tk.random.Generator, got "
                        f"{type(generator).__name__}")
    _global = generator


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
__getattr__ = missing(__name__)   # a TensorFlow name tapekit refuses says what to use instead
