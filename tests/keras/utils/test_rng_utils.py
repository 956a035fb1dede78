"""set_random_seed (utils/rng_utils.py): Python, NumPy and tapekit seeded by one call."""
import random

import numpy as np
import pytest

import tapekit as tk


def draws():
    layer = tk.layers.Dense(3)
    layer.build((None, 2))
    return (random.random(), np.random.rand(), float(tk.random.normal([])),
            layer.kernel.numpy().tolist())


def test_one_seed_repeats_python_numpy_and_tapekit():
    tk.utils.set_random_seed(11)
    first = draws()
    tk.utils.set_random_seed(11)
    assert draws() == first
    tk.utils.set_random_seed(12)
    assert all(a != b for a, b in zip(draws(), first))


@pytest.mark.parametrize("seed", [1.5, "1", True, None])
def test_a_seed_that_is_not_an_integer_is_refused(seed):
    # Keras 3.15: "Expected `seed` argument to be an integer. Received: seed=1.5 (of type ...)"
    with pytest.raises(ValueError, match="Expected `seed` argument to be an integer"):
        tk.utils.set_random_seed(seed)
