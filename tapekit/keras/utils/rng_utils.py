"""set_random_seed: one call that makes a notebook's randomness repeat (Keras 3's utility)."""
import random as _python_random

import numpy as np

from ... import random

__all__ = ["set_random_seed"]


def set_random_seed(seed):
    """Seed Python's `random`, NumPy's global generator (`np.random`) and tapekit's random
    streams (`tk.random.set_seed`: initializers, Dropout, the Random* layers, shuffling in
    fit) with one integer, as `keras.utils.set_random_seed` seeds Python, NumPy and the
    backend.

    >>> tk.utils.set_random_seed(3)
    >>> a = (np.random.rand(), tk.random.uniform([]).numpy())
    >>> tk.utils.set_random_seed(3)
    >>> a == (np.random.rand(), tk.random.uniform([]).numpy())
    True
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} "
                         f"(of type {type(seed)})")
    _python_random.seed(seed)
    np.random.seed(seed)
    random.set_seed(seed)
