"""tk.constant and tk.convert_to_tensor (tapekit/ops/conversion.py): values into tensors."""
import numpy as np
import pytest

import tapekit as tk


def test_constant_copies_the_callers_array():
    arr = np.array([[1.0], [2.0]], np.float32)
    c = tk.constant(arr)
    arr[:] = 0
    assert c.numpy().tolist() == [[1.0], [2.0]]
    for make in (tk.convert_to_tensor, tk.Variable, lambda a: tk.constant(a, shape=(2, 1))):
        arr = np.array([[1.0], [2.0]], np.float32)
        t = make(arr)
        arr[:] = 0
        assert t.numpy().tolist() == [[1.0], [2.0]]


def test_convert_to_tensor_of_a_variable_is_a_tensor_snapshot():
    v = tk.Variable([1.0, 2.0])
    t = tk.convert_to_tensor(v)
    assert type(t) is tk.Tensor and t is not v
    v.assign_add([1.0, 1.0])
    assert t.numpy().tolist() == [1.0, 2.0]
    c = tk.constant(v)
    v.assign_add([1.0, 1.0])
    assert type(c) is tk.Tensor and c.numpy().tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match="convert_to_tensor: the tensor has dtype float32"):
        tk.convert_to_tensor(v, dtype=tk.float64)


def test_gradients_flow_through_convert_to_tensor_to_the_variable():
    v = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        y = tk.convert_to_tensor(v) ** 3
    assert float(tape.gradient(y, v)) == 12.0              # 3 v^2
    w = tk.Variable([1.0, -2.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.clip_by_norm(w, 10.0) * 3.0)   # clip_by_norm converts its input
    assert tape.gradient(y, w).numpy().tolist() == [3.0, 3.0]


def test_ragged_lists_and_none_values():
    with pytest.raises(ValueError, match="ragged list"):
        tk.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match="ragged list"):
        tk.Variable([[1.0], [2.0, 3.0]])
    v = tk.Variable(1.0)
    for update in (v.assign, v.assign_add, v.assign_sub):
        with pytest.raises(TypeError, match="the value is None"):
            update(None)
    assert float(v) == 1.0


def test_constant_with_a_shape_fills_or_reshapes():
    assert tk.constant(2.0, shape=(2, 2)).numpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert tk.constant([1, 2, 3, 4], shape=[2, 2]).numpy().tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match=r"shape \(3,\) \(3 elements\) cannot take shape \(2, 2\)"):
        tk.constant([1.0, 2.0, 3.0], shape=(2, 2))
    assert tk.constant(1.0, name="c").name == "c"


def test_a_list_of_tensors_is_stacked_and_differentiable():
    # y = sum(3 * stack([x, x^2])) = 3x + 3x^2: dy/dx = 3 + 6x = 15 at x = 2
    x = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        t = tk.convert_to_tensor([x, x * x])
        y = tk.reduce_sum(t * 3.0)
    assert t.numpy().tolist() == [2.0, 4.0]
    assert float(tape.gradient(y, x)) == 15.0
    assert tk.convert_to_tensor([[tk.constant(1.0)], [2.0]]).shape == (2, 1)
