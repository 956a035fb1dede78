"""Variable.scatter_nd_* and Variable.scatter_* (tapekit/ops/variable_scatter.py): TensorFlow
2.21's values, the variable returned, duplicates, errors, unseen by tapes, replayed by tk.function."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.errors import InvalidArgumentError as IAE


def rows(values, indices):
    return tk.IndexedSlices(tk.constant(values), tk.constant(indices))


def test_scatter_nd_writes_match_tensorflow():
    v = tk.Variable([1.0, 2.0, 3.0, 4.0])
    assert v.scatter_nd_update([[1], [3]], [10.0, 20.0]) is v
    assert v.numpy().tolist() == [1, 10, 3, 20]
    assert v.scatter_nd_add([[1], [1]], [1.0, 1.0]).numpy().tolist() == [1, 12, 3, 20]  # both
    assert v.scatter_nd_sub([[0]], [5.0]).numpy().tolist() == [-4, 12, 3, 20]
    assert v.scatter_nd_max([[0], [1]], [0.0, 0.0]).numpy().tolist() == [0, 12, 3, 20]
    assert v.scatter_nd_min([[3]], [7.0]).numpy().tolist() == [0, 12, 3, 7]
    m = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert m.scatter_nd_update([[0, 1]], [9.0]).numpy().tolist() == [[1, 9], [3, 4]]
    assert m.scatter_nd_update([[1]], [[7.0, 8.0]]).numpy().tolist() == [[1, 9], [7, 8]]


def test_row_writes_match_tensorflow():
    v = tk.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    # TensorFlow 2.21: a row given twice is multiplied by both values, 1 * 2 * 3
    assert v.scatter_mul(rows([[2.0, 2.0], [3.0, 3.0]], [0, 0])).numpy().tolist() == \
        [[6, 12], [3, 4], [5, 6]]
    assert v.scatter_div(rows([[2.0, 2.0]], [2])).numpy().tolist() == [[6, 12], [3, 4], [2.5, 3]]
    assert v.scatter_update(rows([[0.0, 0.0]], [1])).numpy().tolist() == [[6, 12], [0, 0], [2.5, 3]]
    assert v.scatter_add(rows([[1.0, 1.0], [1.0, 1.0]], [2, 2])).numpy().tolist() == \
        [[6, 12], [0, 0], [4.5, 5]]
    assert v.scatter_sub(rows(1.0, [0])).numpy().tolist() == [[5, 11], [0, 0], [4.5, 5]]  # a scalar
    assert v.scatter_max(rows([[100.0, 0.0]], [1])).numpy().tolist() == [[5, 11], [100, 0], [4.5, 5]]
    assert v.scatter_min(rows([[0.0, 0.0]], [0])).numpy().tolist() == [[0, 0], [100, 0], [4.5, 5]]


def test_bad_writes_say_what_is_wrong_and_leave_the_variable_unchanged():
    v = tk.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    before = v.numpy().copy()
    with pytest.raises(IAE, match=r"the values have shape \[1, 3\]; indices of shape \[1\] into "
                                  r"a variable of shape \[3, 2\] need values of shape \[1, 2\]"):
        v.scatter_sub(rows([[1.0, 1.0, 1.0]], [1]))
    with pytest.raises(ValueError, match="one index per row of values"):
        rows([1.0, 1.0], [1])
    with pytest.raises(TypeError, match="sparse_delta must be a tk.IndexedSlices"):
        v.scatter_update([1, 2])
    with pytest.raises(IAE, match=r"indices\[0\] = \[3\] does not index into a variable of shape"):
        v.scatter_update(rows([[1.0, 1.0]], [3]))
    with pytest.raises(IAE, match=r"indices\[0\] = \[9\] does not index"):
        v.scatter_nd_update([[9]], [[1.0, 1.0]])
    with pytest.raises(TypeError, match="updates have dtype float64, the variable float32"):
        v.scatter_nd_add([[0]], tk.constant([[1.0, 1.0]], dtype=tk.float64))
    with pytest.raises(TypeError, match="divides floating variables only"):
        tk.Variable([4, 6]).scatter_div(rows([2], [0]))
    np.testing.assert_array_equal(v.numpy(), before)


def test_a_write_is_not_recorded_and_later_reads_see_the_new_value():
    u = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        r = u.scatter_nd_update([[0]], [5.0])
        y = tk.reduce_sum(r * r)
    # TensorFlow 2.21 gives [10, 4]: the read after the write, 2 * [5, 2]
    assert tape.gradient(y, u).numpy().tolist() == [10, 4]
    with tk.GradientTape() as tape:
        u.scatter_nd_add([[1]], [1.0])
    assert tape.watched_variables() == ()


def test_a_tk_function_replays_the_write_with_each_calls_values():
    w = tk.Variable([0.0, 0.0, 0.0])

    @tk.function
    def step(x):
        w.scatter_nd_add([[0], [2]], x)
        return w.read_value()

    step(tk.constant([1.0, 2.0]))
    out = step(tk.constant([10.0, 20.0]))
    assert out.numpy().tolist() == [11, 0, 22] and w.numpy().tolist() == [11, 0, 22]
    assert step.experimental_get_tracing_count() == 1
