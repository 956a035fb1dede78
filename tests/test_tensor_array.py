"""tk.TensorArray (tensor_array.py), eagerly and inside tk.function."""
import numpy as np
import pytest

import tapekit as tk


def both(fn):
    return fn, tk.function(fn)


def test_tensor_array_eagerly_and_in_a_function():
    def squares(x, n):
        ta = tk.TensorArray(tk.float32, size=0, dynamic_size=True, element_shape=[2])
        i = 0
        while i < n:
            ta = ta.write(i, x * float(i))
            i += 1
        return ta.stack(), ta.size(), ta.read(1)
    eager, traced = both(squares)
    x = tk.constant([1.0, 2.0])
    for n in (3, 4):
        for got, want in zip(traced(x, n), eager(x, n)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    ta = tk.TensorArray(tk.float32, size=2)
    with pytest.raises(IndexError, match="dynamic_size=True"):
        ta.write(2, 1.0)
    ta = ta.unstack(tk.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(ta.read(1).numpy(), [3.0, 4.0])
    with tk.GradientTape() as tape:       # reads are the very tensors written: differentiable
        tape.watch(x)
        y = tk.reduce_sum(tk.TensorArray(tk.float32, size=1).write(0, x * x).stack())
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])
