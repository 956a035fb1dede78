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
