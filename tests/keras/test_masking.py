"""Masks (keras/masking.py): reading and carrying them, checking them for a layer."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.keras import masking


def test_with_mask_carries_a_mask_without_touching_the_callers_tensor():
    x = tk.constant([[1.0, 2.0]])
    m = tk.constant([[True, False]])
    y = masking.with_mask(x, m)
    assert masking.keras_mask(y) is m and masking.keras_mask(x) is None
    assert y._tid == x._tid and y._value is x._value       # the same tensor to every tape
    with tk.GradientTape() as tape:
        tape.watch(x)
        z = tk.reduce_sum(masking.with_mask(x, m) * 3.0)
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [[3.0, 3.0]])
    v = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        z = tk.reduce_sum(masking.with_mask(v, m) * 2.0)     # a variable: read, then carried
    np.testing.assert_array_equal(tape.gradient(z, v).numpy(), [2.0, 2.0])
    assert masking.keras_mask(v) is None


def test_masks_of_a_structure_and_as_tensor_mask():
    a = masking.with_mask(tk.constant([1.0]), tk.constant([True]))
    b = tk.constant([2.0])
    assert masking.masks_of([a, b])[1] is None and masking.any_mask(masking.masks_of([a, b]))
    assert not masking.any_mask(masking.masks_of([b, b]))
    layer = tk.layers.Layer(name="here")
    one = masking.as_tensor_mask([[True, False]], layer)            # nested lists: one mask
    assert isinstance(one, tk.Tensor) and one.shape == (1, 2)
    two = masking.as_tensor_mask([np.array([True]), None], layer)   # one per input
    assert isinstance(two, list) and isinstance(two[0], tk.Tensor) and two[1] is None
    with pytest.raises(TypeError, match=r"Layer 'here': a mask must be bool"):
        masking.as_tensor_mask([["x"]], layer)


def test_step_mask_checks_shape_and_dtype_and_reads_numbers_as_keras_does():
    layer = tk.layers.Layer(name="rnn")
    x = tk.zeros((2, 3, 4))
    np.testing.assert_array_equal(masking.step_mask(layer, np.array([[1, 0, 2], [0, 0, 1]]), x).numpy(),
                                  [[True, False, True], [False, False, True]])
    assert masking.step_mask(layer, [None], x) is None
    assert masking.step_mask(layer, np.ones((2, 3, 1)), x, trailing_one=True).shape == (2, 3)
    with pytest.raises(ValueError, match=r"Layer 'rnn': the mask must have shape \(batch, steps\) = "
                                         r"\(2, 3\) for inputs of shape \(2, 3, 4\), got a mask of "
                                         r"shape \(2, 3, 1\)"):
        masking.step_mask(layer, np.ones((2, 3, 1)), x)
