"""Initializers (keras/initializers.py): Keras's fans and distributions, seeds, configs."""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_seeded_initializers_repeat_and_match_their_distributions():
    g = tk.initializers.GlorotUniform(seed=3)
    np.testing.assert_array_equal(g((5, 4)), g((5, 4)))
    normal = tk.initializers.RandomNormal(mean=2.0, stddev=0.5, seed=1)((200, 100))
    assert abs(normal.mean() - 2.0) < 0.01 and abs(normal.std() - 0.5) < 0.01
    he = tk.initializers.HeNormal(seed=0)((400, 300))
    stddev = math.sqrt(2 / 400) / 0.87962566103423978
    assert np.abs(he).max() <= 2 * stddev + 1e-7
    assert abs(he.std() - math.sqrt(2 / 400)) < 0.02 * math.sqrt(2 / 400)
    u = tk.initializers.HeUniform(seed=0)((50, 10))
    assert np.abs(u).max() <= math.sqrt(6 / 50)
    with pytest.raises(ValueError, match="Could not interpret initializer identifier: 'gloro'. Known names: 'constant', "):
        tk.initializers.get("gloro")
