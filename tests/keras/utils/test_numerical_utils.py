"""tk.utils.to_categorical and normalize, against NumPy and Keras 3's rules."""
import numpy as np
import pytest

import tapekit as tk


def test_to_categorical_rows_and_shapes():
    np.testing.assert_array_equal(tk.utils.to_categorical([2, 0, 1]), np.eye(3)[[2, 0, 1]])
    assert tk.utils.to_categorical([2, 0, 1]).dtype == np.float64        # Keras 3's dtype
    out = tk.utils.to_categorical(np.array([[1], [3]]), num_classes=5)     # (N, 1) -> (N, 5)
    np.testing.assert_array_equal(out, np.eye(5)[[1, 3]])
    grid = tk.utils.to_categorical(np.array([[0, 1], [1, 0]]), 2)
    assert grid.shape == (2, 2, 2) and grid[0, 1, 1] == 1
    np.testing.assert_array_equal(tk.utils.to_categorical(np.array([1.0, 0.0])), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(tk.utils.to_categorical(tk.constant([1, 0])), [[0, 1], [1, 0]])


def test_to_categorical_bad_labels():
    with pytest.raises(ValueError, match="label 3 is out of range for num_classes=3"):
        tk.utils.to_categorical([0, 3], 3)
    with pytest.raises(ValueError, match="labels must be >= 0"):
        tk.utils.to_categorical([-1, 0])
    with pytest.raises(ValueError, match="whole numbers"):
        tk.utils.to_categorical([0.5])


def test_normalize():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(tk.utils.normalize(x), [[0.6, 0.8], [0, 0]])
    np.testing.assert_allclose(tk.utils.normalize(x, order=1), [[3 / 7, 4 / 7], [0, 0]])
