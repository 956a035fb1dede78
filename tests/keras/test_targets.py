"""Labels and predictions made comparable (keras/targets.py), as losses and metrics need them."""
import numpy as np

import tapekit as tk
from tapekit.keras.targets import as_float, prepare, squeeze_or_expand


def test_as_float_casts_ints_and_keeps_floats():
    assert as_float(np.array([1, 2])).dtype == tk.float32
    assert as_float(np.array([1.0], np.float64)).dtype == tk.float64


def test_prepare_casts_the_labels_to_the_predictions_dtype():
    y_true, y_pred = prepare(np.array([1, 0]), np.array([0.5, 0.25], np.float64))
    assert y_true.dtype == y_pred.dtype == tk.float64
    np.testing.assert_array_equal(y_true.numpy(), [1.0, 0.0])


def test_squeeze_or_expand_matches_ranks_one_apart_with_a_trailing_one():
    a, b = squeeze_or_expand(tk.ones((4, 1)), tk.ones((4,)))        # a vector grows an axis
    assert (a.shape, b.shape) == ((4, 1), (4, 1))
    a, b = squeeze_or_expand(tk.ones((2, 3)), tk.ones((2, 3, 1)))    # else the 1 goes
    assert (a.shape, b.shape) == ((2, 3), (2, 3))
    a, b = squeeze_or_expand(tk.ones((2, 3)), tk.ones((2,)))         # no trailing 1: unchanged
    assert (a.shape, b.shape) == ((2, 3), (2,))


def test_prepare_leaves_the_ranks_when_asked():
    y_true, y_pred = prepare(np.array([1, 2]), np.ones((2, 1)), same_rank=False)
    assert (y_true.shape, y_pred.shape) == ((2,), (2, 1))
    y_true, y_pred = prepare(np.array([1, 2]), np.ones((2, 1)))
    assert (y_true.shape, y_pred.shape) == ((2, 1), (2, 1))
