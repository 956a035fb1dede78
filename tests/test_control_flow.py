"""tapekit/control_flow.py: tk.map_fn and tk.while_loop, eager loops whose ops the tape
records. Values, structures and errors checked against TensorFlow 2.21 (eager); gradients by
hand and against finite differences."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


# --- map_fn --------------------------------------------------------------------------------------
def test_map_fn_matches_tensorflow():
    got = tk.map_fn(lambda x: x * 2, tk.constant([1, 2, 3]))
    assert got.dtype == tk.int32 and got.numpy().tolist() == [2, 4, 6]
    cast = tk.map_fn(lambda x: tk.cast(x, tk.float32), tk.constant([1, 2, 3]), fn_output_signature=tk.float32)
    assert cast.dtype == tk.float32
    pair = tk.map_fn(lambda x: (x, x * 2), tk.constant([1.0, 2.0]), fn_output_signature=(tk.float32, tk.float32))
    assert isinstance(pair, tuple) and pair[1].numpy().tolist() == [2, 4]
    zipped = tk.map_fn(lambda t: t[0] * t[1], (tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0])),
                       fn_output_signature=tk.float32)
    assert zipped.numpy().tolist() == [3, 8]
    spec = tk.map_fn(lambda x: x * 2, tk.constant([[1.0, 2.0]]),
                     fn_output_signature=tk.TensorSpec([2], tk.float32))
    assert spec.numpy().tolist() == [[2, 4]]
    assert tk.map_fn(lambda x: x * 2, tk.constant([[1.0, 2.0]]), dtype=tk.float32).shape == (1, 2)
    d = tk.map_fn(lambda d: {"a": d["a"] + 1}, {"a": tk.constant([1.0, 2.0])})
    assert list(d) == ["a"] and d["a"].numpy().tolist() == [2, 3]
    empty = tk.map_fn(lambda x: tk.reduce_sum(x), tk.zeros((0, 3)), fn_output_signature=tk.float32)
    assert empty.shape == (0,) and empty.dtype == tk.float32


def test_map_fn_refuses_what_tensorflow_refuses():
    with pytest.raises(IAE, match="returned a int32 tensor for output 0, but fn_output_signature says float32"):
        tk.map_fn(lambda x: x * 2, tk.constant([1, 2, 3]), fn_output_signature=tk.float32)
    with pytest.raises(IAE, match="give fn_output_signature=tk.float32"):
        tk.map_fn(lambda x: tk.cast(x, tk.float32), tk.constant([1, 2, 3]))
    with pytest.raises(ValueError, match="fn returned one tensor, but map_fn expects a tuple of 2"):
        tk.map_fn(lambda t: t[0] * t[1], (tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0])))
    with pytest.raises(ValueError, match="fn returned a tuple of 2 tensors, but map_fn expects one"):
        tk.map_fn(lambda x: (x, x * 2), tk.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"one length along axis 0, got lengths \[2, 3\]"):
        tk.map_fn(lambda t: t[0], (tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0, 5.0])))
    with pytest.raises(ValueError, match="rank 1 or more"):
        tk.map_fn(lambda x: x, tk.constant(1.0))
    with pytest.raises(ValueError, match=r"got shapes \(1,\) and \(2,\)"):
        tk.map_fn(lambda x: x[:int(x[0])], tk.constant([[1.0, 2.0], [2.0, 3.0]]))
    with pytest.raises(TypeError, match="fn must be callable"):
        tk.map_fn(None, tk.constant([1.0]))


def test_map_fn_gradient_flows_through_every_call():
    v = tk.Variable([1.0, 2.0, 3.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.map_fn(lambda x: x * x, v))
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [2, 4, 6])     # TF: [2 4 6]
    w = np.random.default_rng(0).uniform(-1, 1, (3, 2))
    check_grads(lambda a: tk.map_fn(lambda row: tk.reduce_sum(row * row) * row, a), w, order=2)


# --- while_loop ----------------------------------------------------------------------------------
def test_while_loop_matches_tensorflow():
    i0 = tk.constant(0)
    tup = tk.while_loop(lambda i: i < 10, lambda i: (i + 1,), [i0])
    assert isinstance(tup, tuple) and tup[0].numpy() == 10              # TF: the body's tuple
    lst = tk.while_loop(lambda i: i < 10, lambda i: [i + 1], [i0])
    assert isinstance(lst, list) and lst[0].numpy() == 10
    i, x = tk.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [0, tk.constant(1.0)])
    assert (i.dtype, int(i), float(x)) == (tk.int32, 3, 8.0)           # TF: 3, 8.0
    assert int(tk.while_loop(lambda i: True, lambda i: [i + 1], [i0], maximum_iterations=5)[0]) == 5
    not_run = tk.while_loop(lambda i: i < 2, lambda i: (i + 1,), [i0], maximum_iterations=0)
    assert isinstance(not_run, list) and isinstance(not_run[0], tk.Tensor) and int(not_run[0]) == 0
    assert float(tk.while_loop(lambda i: i < 3, lambda i: [i + 1.5], [0.0])[0]) == 3.0
    nested = tk.while_loop(lambda d: d["i"] < 3, lambda d: [{"i": d["i"] + 1}], [{"i": i0}])
    assert int(nested[0]["i"]) == 3
    i, (a, b) = tk.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, (t[0] * 2, t[1])),
                              (i0, (tk.constant(1.0), tk.constant(2.0))))
    assert (float(a), float(b)) == (8.0, 2.0)
    grown = tk.while_loop(lambda x: tk.size(x) < 4, lambda x: [tk.concat([x, x], 0)], [tk.constant([1.0])])
    assert grown[0].shape == (4,)                                         # shapes may change, eagerly


def test_while_loop_refuses_what_tensorflow_refuses():
    i0 = tk.constant(0)
    with pytest.raises(TypeError, match="body must return a list or tuple.*return \\(x,\\)"):
        tk.while_loop(lambda i: i < 10, lambda i: i + 1, [i0])          # TF: TypeError too
    with pytest.raises(ValueError, match="'loop_vars' must be a non-empty list or tuple"):
        tk.while_loop(lambda i: i < 10, lambda i: (i + 1,), i0)
    with pytest.raises(ValueError, match="body returned 2 loop variables"):
        tk.while_loop(lambda i: i < 3, lambda i: [i + 1, 1], [i0])
    with pytest.raises(ValueError, match=r"cond must return one boolean, got a tensor of shape \(2,\)"):
        tk.while_loop(lambda x: x < 4.0, lambda x: [x + 1], [tk.constant([1.0, 2.0])])
    with pytest.raises(TypeError, match="'cond' must be callable"):
        tk.while_loop(True, lambda x: [x + 1], [i0])
    with pytest.raises(ValueError, match="maximum_iterations must be >= 0"):
        tk.while_loop(lambda x: True, lambda x: [x + 1], [i0], maximum_iterations=-1)


def test_while_loop_is_recorded_so_gradients_flow():
    x = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        i, y = tk.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, tk.constant(1.0)])
    assert float(y) == 8.0
    assert float(tape.gradient(y, x)) == 12.0                 # d x^3 / dx = 3 x^2; TF: 12.0

    def newton_sqrt(a):        # 6 Newton steps for sqrt(a): its derivative is 1 / (2 sqrt(a))
        _, r = tk.while_loop(lambda k, r: k < 6, lambda k, r: (k + 1, (r + a / r) / 2), [0, a])
        return r
    check_grads(newton_sqrt, np.array([1.5, 2.0, 3.0]), order=2)
    a = tk.Variable(4.0)
    with tk.GradientTape() as tape:
        r = newton_sqrt(a)
    assert float(r) == pytest.approx(2.0) and float(tape.gradient(r, a)) == pytest.approx(0.25)
