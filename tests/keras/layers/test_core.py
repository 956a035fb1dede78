"""Embedding as Keras 3 has it: uniform(-0.05, 0.05) table, rows by index (float indices cast),
output shape, and a gradient that adds up in the rows used (twice used: twice the gradient)."""
import numpy as np
import pytest

import tapekit as tk


def test_embedding_rows_init_and_shapes():
    tk.random.set_seed(0)
    emb = tk.layers.Embedding(5, 3)
    out = emb(np.array([[1, 4], [0, 2]]))
    table = emb.embeddings.numpy()
    assert out.shape == (2, 2, 3) and table.shape == (5, 3)
    assert table.min() >= -0.05 and table.max() <= 0.05 and table.std() > 0.01
    emb.set_weights([np.arange(15.0).reshape(5, 3)])
    np.testing.assert_array_equal(emb(np.array([[1.0, 4.0]])).numpy(), [[[3, 4, 5], [12, 13, 14]]])
    assert emb.compute_output_shape((None, None)) == (None, None, 3)
    assert tk.layers.Embedding(10, 4)(tk.Input(shape=(None,), dtype="int32")).shape == (None, None, 4)
    with pytest.raises(IndexError, match="index 5 is out of range"):
        emb(np.array([[5]]))


def test_embedding_gradient_adds_in_the_rows_used():
    emb = tk.layers.Embedding(4, 2)
    emb(np.array([[0]]))
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(emb(np.array([[1, 3, 1]])) * np.array([1.0, 2.0]))
    grad = tk.convert_to_tensor(tape.gradient(y, emb.embeddings)).numpy()
    np.testing.assert_array_equal(grad, [[0, 0], [2, 4], [0, 0], [1, 2]])
