"""tapekit/ops/creation.py: one_hot with the float indices TensorFlow accepts (a NumPy float array),
and those it refuses; range and linspace refuse arguments that give nothing; fill against TF 2.21."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def test_one_hot_of_a_numpy_float_array_truncates_as_tensorflow():
    got = tk.one_hot(np.array([1.0, 2.0, 0.7]), 3).numpy()
    np.testing.assert_array_equal(got, np.eye(3)[[1, 2, 0]])       # 0.7 -> 0, as TF's conversion
    got = tk.one_hot(np.array([[1.0], [2.0]], np.float32), 3, dtype=tk.int32).numpy()
    np.testing.assert_array_equal(got, np.eye(3, dtype=np.int32)[[[1], [2]]])


def test_one_hot_refuses_float_tensors_and_python_floats():
    with pytest.raises(TypeError, match=r"one_hot: indices must be integers, got a float tensor.*tk.cast"):
        tk.one_hot(tk.constant([1.0]), 3)
    with pytest.raises(TypeError, match="got Python floats"):
        tk.one_hot([1.0, 2.0], 3)


def test_range_with_a_zero_step():
    with pytest.raises(IAE, match=r"range: delta=0.*limit=5"):
        tk.range(0, 5, 0)


def test_linspace_of_no_values_is_empty_and_of_fewer_raises():
    # TF 2.21: linspace(0.0, 1.0, 0) is an empty float32 tensor; num=-1 raises
    empty = tk.linspace(0.0, 1.0, 0)
    assert empty.shape == (0,) and empty.dtype == tk.float32
    with pytest.raises(IAE, match=r"linspace: num must be at least 0.*num=-1"):
        tk.linspace(0.0, 1.0, -1)
    assert tk.linspace(0.0, 1.0, 1).numpy().tolist() == [0.0]


def test_zeros_like_and_ones_like_are_recorded_only_for_their_own_dtype():
    # As TensorFlow 2.21: ZerosLike/OnesLike are ops on the tape; another dtype gives a constant.
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        a, b = tk.zeros_like(x), tk.ones_like(x)
        c = tk.ones_like(x, dtype=tk.float64)
    assert [r.op.name for r in tape.records] == ["zeros_like", "ones_like"]
    assert a.numpy().tolist() == [0.0, 0.0] and b.numpy().tolist() == [1.0, 1.0]
    assert c.dtype == np.float64 and c.numpy().tolist() == [1.0, 1.0]
    assert tk.zeros_like([[1, 2]]).dtype == np.int32 and tk.ones_like(3.0).numpy() == 1.0


def test_range_refuses_float_arguments_with_an_integer_dtype():
    # TF 2.21 raises "Cannot convert 0.0 to EagerTensor of dtype int32"; tapekit counted in
    # floats and truncated each value: range(0., 2.5, 0.5, dtype=int32) gave [0 0 1 1 2]
    with pytest.raises(TypeError, match=r"range: .*include a float but dtype is int32"):
        tk.range(0.0, 2.5, 0.5, dtype=tk.int32)
    out = tk.range(0, 6, 2, dtype=tk.int64)                     # integers stay fine
    assert out.dtype == np.int64 and out.numpy().tolist() == [0, 2, 4]


def test_linspace_dtype_follows_tensorflow():
    # TF 2.21: integer start and stop give float64 (it divides integers), float64 start gives
    # float64, Python floats float32; tapekit gave float32 for all three
    ints = tk.linspace(0, 4, 3)
    assert ints.dtype == np.float64 and ints.numpy().tolist() == [0.0, 2.0, 4.0]   # steps of 4/2
    assert tk.linspace(np.float64(0), 4, 3).dtype == np.float64
    assert tk.linspace(0.0, 1.0, 3).dtype == np.float32
    with pytest.raises(TypeError, match="linspace: start=0 is an integer and stop=1.0 a float"):
        tk.linspace(0, 1.0, 3)                                  # TF 2.21 raises too


def test_fill_values_and_dtypes_match_tensorflow():
    n = tk.fill([2, 3], 9)                        # TF: [[9 9 9] [9 9 9]], int32
    assert n.dtype == tk.int32 and n.numpy().tolist() == [[9, 9, 9], [9, 9, 9]]
    f = tk.fill([2, 3], 1.5)                      # TF: 1.5 everywhere, float32
    assert f.dtype == tk.float32 and f.numpy().tolist() == [[1.5] * 3] * 2
    assert tk.fill([2], [1.0]).numpy().tolist() == [1.0, 1.0]     # TF 2.21: [1. 1.]
    assert tk.fill([2], True).numpy().tolist() == [True, True]    # TF: [ True  True]
    assert tk.fill([], 2.0).shape == ()
    with pytest.raises(IAE, match="fill: value must be a scalar"):
        tk.fill([2, 2], [1.0, 2.0])
    with pytest.raises(TypeError, match="fill: shape"):
        tk.fill([2.5], 1.0)
    with pytest.raises(NotImplementedError, match="layout"):
        tk.fill([2], 1.0, layout="sharded")


def test_fill_gradient_is_the_sum_of_the_cotangent():
    s = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.fill([2, 3], s) * tk.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert tape.gradient(y, s).numpy() == 21.0         # TF: 21.0
    check_grads(lambda v: tk.fill([2, 3], v) * tk.fill([3], v * v), np.array(0.7), order=2)
