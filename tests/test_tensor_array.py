"""tk.TensorArray (tapekit/tensor_array.py): tensors written by index, then stacked."""
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


def test_a_gradient_flows_through_written_and_stacked_elements():
    # stack([x, x^2, 3x]) summed: d/dx = 1 + 2x + 3 = 8 at x = 2
    x = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        ta = tk.TensorArray(tk.float32, size=0, dynamic_size=True)
        for k, f in enumerate((lambda v: v * 1.0, lambda v: v * v, lambda v: 3.0 * v)):
            ta = ta.write(k, f(x))
        y = tk.reduce_sum(ta.stack())
    assert ta.stack().numpy().tolist() == [2.0, 4.0, 6.0]
    assert float(tape.gradient(y, x)) == 8.0


def test_read_gather_unstack_and_scatter():
    ta = tk.TensorArray(tk.float32, size=3)
    ta = ta.unstack(tk.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    assert ta.read(1).numpy().tolist() == [3.0, 4.0] and ta.element_shape == (2,)
    assert ta.gather([2, 0]).numpy().tolist() == [[5.0, 6.0], [1.0, 2.0]]
    ta = ta.scatter([0], tk.constant([[9.0, 9.0]]))
    assert ta.stack().numpy()[:, 0].tolist() == [9.0, 3.0, 5.0] and int(ta.size()) == 3


def test_unwritten_elements_are_zeros_of_the_element_shape():
    ta = tk.TensorArray(tk.float32, size=2, element_shape=(2,))
    ta = ta.write(1, [1.0, 1.0])
    assert ta.stack().numpy().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert tk.TensorArray(tk.float32, size=0).stack().shape == (0,)


def test_wrong_writes_are_refused_with_the_reason():
    ta = tk.TensorArray(tk.float32, size=1)
    with pytest.raises(IndexError, match="out of bounds .* dynamic_size=True"):
        ta.write(1, 1.0)
    with pytest.raises(IndexError, match="negative"):
        ta.read(-1)
    with pytest.raises(ValueError, match="has dtype float64, requested float32"):
        ta.write(0, tk.constant(np.float64(1.0)))
    ta = ta.write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"element 0 has shape \(3,\)"):
        ta.write(0, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="never written"):
        tk.TensorArray(tk.float32, size=2).read(0)
