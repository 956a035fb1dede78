"""tk.random: SeedGenerator and Keras 3's seeded ops (randint, truncated_normal, shuffle, dropout)."""
import numpy as np
import pytest

import tapekit as tk


def test_seed_generator_advances_and_repeats():
    gen = tk.random.SeedGenerator(7)
    a = tk.random.normal((5,), seed=gen).numpy()
    b = tk.random.normal((5,), seed=gen).numpy()
    assert not np.allclose(a, b)                                # each draw: the next stream
    assert gen.state.numpy().tolist() == [7, 2]
    again = tk.random.SeedGenerator(7)
    np.testing.assert_array_equal(tk.random.normal((5,), seed=again).numpy(), a)
    u = tk.random.uniform((1000,), minval=2.0, maxval=3.0, seed=again).numpy()
    assert u.min() >= 2.0 and u.max() < 3.0 and abs(u.mean() - 2.5) < 0.05
    with pytest.raises(TypeError, match="seed must be an integer or None"):
        tk.random.SeedGenerator(1.5)


def test_randint_and_truncated_normal():
    tk.random.set_seed(0)
    x = tk.random.randint((2000,), 3, 7).numpy()
    assert x.dtype == np.int32 and set(x.tolist()) == {3, 4, 5, 6}
    with pytest.raises(TypeError, match="randint: dtype must be an integer dtype"):
        tk.random.randint((2,), 0, 3, dtype="float32")
    t = tk.random.truncated_normal((5000,), mean=1.0, stddev=0.5).numpy()
    assert np.abs(t - 1.0).max() <= 1.0                       # within 2 stddev
    assert abs(t.std() - 0.5 * 0.8796) < 0.02                  # a truncated normal's spread


def test_shuffle_permutes_the_first_axis_without_gradient():
    tk.random.set_seed(1)
    x = tk.constant(np.arange(12.0).reshape(6, 2))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.random.shuffle(x)
        total = tk.reduce_sum(y)
    rows = sorted(map(tuple, y.numpy().tolist()))
    assert rows == sorted(map(tuple, x.numpy().tolist()))     # the same rows, reordered
    assert tape.gradient(total, x) is None                     # no gradient, as TensorFlow
    with pytest.raises(ValueError, match="at least one axis"):
        tk.random.shuffle(tk.constant(1.0))


def test_dropout_keeps_and_scales_with_its_gradient():
    x = tk.ones((4000,))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.random.dropout(x, 0.25, seed=tk.random.SeedGenerator(3))
        total = tk.reduce_sum(y)
    values = y.numpy()
    assert set(np.unique(values).tolist()) == {0.0, float(np.float32(1 / 0.75))}
    assert abs((values == 0).mean() - 0.25) < 0.03
    np.testing.assert_allclose(tape.gradient(total, x).numpy(), values)   # dy/dx = mask/0.75
    with pytest.raises(ValueError, match=r"rate must be in \[0, 1\)"):
        tk.random.dropout(x, 1.0)


def test_restore_state_puts_every_stream_back_that_save_state_saw():
    # tk.function's dry traces and undone replays rely on it: the global stream and each
    # op seed's stream draw the same numbers again after restore_state.
    tk.random.set_seed(11)
    tk.random.normal([2], seed=5)                 # the op-seed stream 5 exists from here
    saved = tk.random.save_state()
    first = [tk.random.normal([3]).numpy(), tk.random.normal([3], seed=5).numpy()]
    moved = [tk.random.normal([3]).numpy(), tk.random.normal([3], seed=5).numpy()]
    tk.random.restore_state(saved)
    again = [tk.random.normal([3]).numpy(), tk.random.normal([3], seed=5).numpy()]
    for a, b, c in zip(first, again, moved):
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


# --- categorical -----------------------------------------------------------------------------------
def test_categorical_shape_dtype_and_seeding_are_tensorflows():
    logits = tk.math.log([[0.5, 0.5], [0.1, 0.9]])
    draws = tk.random.categorical(logits, 5)
    assert draws.shape == (2, 5) and draws.dtype == tk.int64          # TF: int64 by default
    assert tk.random.categorical(logits, 5, dtype=tk.int32).dtype == tk.int32
    assert tk.random.categorical(logits, 0).shape == (2, 0)
    tk.random.set_seed(3)
    a = tk.random.categorical(logits, 20, seed=7).numpy()
    tk.random.set_seed(3)
    assert np.array_equal(a, tk.random.categorical(logits, 20, seed=7).numpy())   # the same draws
    # a class of logit -inf (probability 0) is never drawn (TF: [[1 1 1 1 1 1]])
    assert tk.random.categorical([[-np.inf, 0.0]], 6).numpy().tolist() == [[1] * 6]


def test_categorical_draws_with_softmax_probabilities():
    # TensorFlow's stream cannot be matched; its distribution can. 40,000 draws per row, fixed
    # seed: each class's frequency within 4 standard errors of softmax(logits).
    tk.random.set_seed(0)
    logits = tk.constant([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]])
    n = 40_000
    draws = tk.random.categorical(logits, n, seed=11).numpy()
    p = np.exp(logits.numpy()) / np.exp(logits.numpy()).sum(axis=1, keepdims=True)
    freq = np.stack([np.bincount(row, minlength=3) / n for row in draws])
    np.testing.assert_array_less(np.abs(freq - p), 4 * np.sqrt(p * (1 - p) / n))
    # and a chi-square test of each row (2 degrees of freedom: 13.8 is the 0.1% point)
    chi2 = ((freq - p) ** 2 / p).sum(axis=1) * n
    assert (chi2 < 13.8).all(), chi2


def test_categorical_refuses_what_tensorflow_refuses():
    IAE = tk.errors.InvalidArgumentError
    with pytest.raises(IAE, match=r"must be a matrix \[batch_size, num_classes\], got shape \(2,\)"):
        tk.random.categorical([0.5, 0.5], 3)
    with pytest.raises(IAE, match="num_samples must be >= 0"):
        tk.random.categorical([[0.5, 0.5]], -1)
    with pytest.raises(ValueError, match="dtype must be tk.int32 or tk.int64"):
        tk.random.categorical([[0.5, 0.5]], 2, dtype=tk.float32)
    with pytest.raises(IAE, match="no classes"):
        tk.random.categorical(tk.zeros((2, 0)), 2)
    with pytest.raises(IAE, match="must be floating"):
        tk.random.categorical([[1, 2]], 2)


def test_categorical_has_no_gradient():
    logits = tk.Variable([[0.0, 1.0]])
    with tk.GradientTape() as tape:
        draws = tk.cast(tk.random.categorical(logits, 3), tk.float32)
    assert tape.gradient(tk.reduce_sum(draws), logits) is None


# --- tk.random.Generator: TF 2.21's signatures and rules (checked on TF); NumPy's numbers ------
def test_generator_same_seed_same_numbers_and_the_state_moves_on():
    g = tk.random.Generator.from_seed(1)
    assert g.state.shape == (3,) and g.state.dtype == np.int64      # as TF's Philox state
    a, b = g.normal([4]).numpy(), g.normal([4]).numpy()
    assert not np.allclose(a, b)
    again = tk.random.Generator.from_seed(1)
    np.testing.assert_array_equal(again.normal([4]).numpy(), a)
    np.testing.assert_array_equal(again.normal([4]).numpy(), b)
    assert not np.allclose(tk.random.Generator.from_seed(2).normal([4]).numpy(), a)
    copy = tk.random.Generator(copy_from=g)
    np.testing.assert_array_equal(copy.uniform([3]).numpy(), g.uniform([3]).numpy())
    assert int(g.key.numpy()) == int(g.state.numpy()[-1])
    g.reset_from_seed(1)
    np.testing.assert_array_equal(g.normal([4]).numpy(), a)
    other = tk.random.Generator.from_non_deterministic_state()
    assert not np.allclose(other.normal([4]).numpy(), a)


def test_generator_distributions():
    g = tk.random.Generator.from_seed(1234)
    n = g.normal([200_000], mean=2.0, stddev=3.0).numpy()
    assert n.dtype == np.float32 and abs(n.mean() - 2.0) < 0.03 and abs(n.std() - 3.0) < 0.03
    u = g.uniform([200_000], minval=-1.0, maxval=3.0, dtype=tk.float64).numpy()
    assert u.dtype == np.float64 and u.min() >= -1.0 and u.max() < 3.0
    assert abs(u.mean() - 1.0) < 0.02 and abs(u.var() - 16 / 12) < 0.02
    # Kolmogorov-Smirnov distance to the uniform CDF: about 1.36/sqrt(n) at the 5% level
    s = np.sort((u + 1) / 4)
    assert np.abs(s - np.arange(1, s.size + 1) / s.size).max() < 1.36 / np.sqrt(s.size) * 1.5
    t = g.truncated_normal([200_000], stddev=2.0, dtype=tk.float16).numpy()
    assert t.dtype == np.float16 and np.abs(t).max() <= 4.0
    assert abs(float(t.astype(np.float64).std()) - 2.0 * 0.8796) < 0.02    # truncated at 2 stddev
    i = g.uniform([60_000], minval=-2, maxval=3, dtype=tk.int64).numpy()
    assert i.dtype == np.int64 and sorted(set(i.tolist())) == [-2, -1, 0, 1, 2]
    assert np.abs(np.bincount(i + 2) / i.size - 0.2).max() < 0.01
    full = g.uniform([1000], minval=None, maxval=None, dtype=tk.uint64).numpy()
    assert full.dtype == np.uint64 and full.max() > 2**63                 # the whole range
    assert g.uniform_full_int([5], dtype=tk.int32).dtype == np.int32
    assert g.uniform([2, 3], minval=2.0, maxval=1.0).numpy().min() >= 1.0   # TF: no check


def test_generator_uniform_integer_rules_are_tensorflows():
    g = tk.random.Generator.from_seed(0)
    for kwargs in ({}, {"minval": 2}, {"minval": None, "maxval": 3}):
        with pytest.raises(ValueError, match="minval and maxval must be both None or both given"):
            g.uniform([3], dtype=tk.int32, **kwargs)
    for low, high in ((5, 5), (5, 2)):
        with pytest.raises(tk.errors.InvalidArgumentError, match="need minval < maxval"):
            g.uniform([3], minval=low, maxval=high, dtype=tk.int32)
    for dtype in (tk.int16, tk.uint8):
        with pytest.raises(tk.errors.InvalidArgumentError, match="int32, int64, uint32 or uint64"):
            g.uniform([3], maxval=3, minval=0, dtype=dtype)
    with pytest.raises(TypeError, match="dtype must be floating"):
        g.normal([2], dtype=tk.int32)
    with pytest.raises(TypeError, match="seed must be an integer"):
        tk.random.Generator.from_seed(1.5)


def test_generator_split_and_global_generator():
    g = tk.random.Generator.from_seed(7)
    children = g.split(3)
    assert len(children) == 3 and g.split(0) == []
    draws = [c.normal([1000]).numpy() for c in children]
    assert abs(np.corrcoef(draws[0], draws[1])[0, 1]) < 0.1
    again = tk.random.Generator.from_seed(7).split(3)
    np.testing.assert_array_equal(again[2].normal([1000]).numpy(), draws[2])
    assert tk.random.get_global_generator() is tk.random.get_global_generator()
    before = tk.random.get_global_generator()
    try:
        tk.random.set_global_generator(g)
        assert tk.random.get_global_generator() is g
        with pytest.raises(TypeError, match="expected a tk.random.Generator"):
            tk.random.set_global_generator(3)
    finally:
        tk.random.set_global_generator(before)


def test_generator_state_in_a_checkpoint(tmp_path):
    g = tk.random.Generator.from_seed(3)
    ckpt = tk.train.Checkpoint(generator=g)
    path = ckpt.save(str(tmp_path / "ck"))
    first = g.normal([3]).numpy()
    ckpt.restore(path).assert_consumed()
    np.testing.assert_array_equal(g.normal([3]).numpy(), first)       # the same draw again


def test_generator_draws_anew_at_every_replay_of_a_tk_function():
    g = tk.random.Generator.from_seed(0)

    @tk.function
    def draw():
        return g.normal([2])
    traced = [draw().numpy() for _ in range(3)]
    eager = tk.random.Generator.from_seed(0)
    for got in traced:                                   # the same numbers as eagerly, in turn
        np.testing.assert_array_equal(got, eager.normal([2]).numpy())
    assert g.state.numpy()[0] == 3


def test_a_seed_generator_draws_anew_at_every_replay_of_a_tk_function():
    # A recorded assign of its counter wrote the first trace's count back at each replay, so
    # every call after the first drew the same numbers (a custom layer's dropout mask in fit).
    traced, eager = tk.random.SeedGenerator(1), tk.random.SeedGenerator(1)
    f = tk.function(lambda: tk.random.uniform([3], seed=traced))
    got = [f().numpy() for _ in range(4)]
    want = [tk.random.uniform([3], seed=eager).numpy() for _ in range(4)]
    np.testing.assert_array_equal(np.array(got), np.array(want))
    assert len({tuple(g) for g in got}) == 4
    assert traced.state.numpy().tolist() == [1, 4] == eager.state.numpy().tolist()
