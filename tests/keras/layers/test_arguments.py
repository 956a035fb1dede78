"""The size arguments of layers (layers/arguments.py): ints, pairs, and errors naming the layer
and the argument."""
import numpy as np
import pytest

from tapekit import layers
from tapekit.keras.layers.arguments import is_int, pair, positive_int


def test_is_int_takes_python_and_numpy_ints_not_bools_or_floats():
    assert is_int(3) and is_int(np.int64(3)) and is_int(-1)
    assert not any(is_int(v) for v in (True, np.bool_(True), 3.0, "3", None))


def test_pair_repeats_an_int_and_checks_a_pair():
    assert pair(3, "kernel_size", "Conv2D") == (3, 3)
    assert pair([2, np.int32(5)], "strides", "Conv2D") == (2, 5)
    assert all(type(v) is int for v in pair((np.int64(1), 2), "strides", "Conv2D"))
    for bad in (0, -1, 2.5, (2,), (2, 3, 4), (2, 0), "3", None, True):
        with pytest.raises(ValueError, match=rf"Conv2D: kernel_size must be a positive integer "
                                             rf"or a pair of positive integers, got "):
            pair(bad, "kernel_size", "Conv2D")


def test_positive_int():
    assert positive_int(np.int16(4), "units", "Dense") == 4
    for bad in (0, -3, 1.0, True, None):
        with pytest.raises(ValueError, match=rf"Dense: units must be a positive integer, got "
                                             rf"{bad!r}"):
            positive_int(bad, "units", "Dense")


def test_layers_check_their_sizes_when_made():
    with pytest.raises(ValueError, match="Dense: units must be a positive integer, got 0"):
        layers.Dense(0)
    with pytest.raises(ValueError, match=r"MaxPooling2D: pool_size must be .* got \(2, 0\)"):
        layers.MaxPooling2D((2, 0))
