"""tapekit/ops/gather_scatter.py: slice, boolean_mask, gather_nd, scatter_nd,
tensor_scatter_nd_add and embedding_lookup. Values and errors checked against TensorFlow 2.21;
gradients by hand and against finite differences (they are getitem's and scatter_add's)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapekit as tk
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def x34():
    return tk.reshape(tk.range(12.0), (3, 4))


# --- gather_nd -----------------------------------------------------------------------------------
def test_gather_nd_matches_tensorflow():
    x = x34()
    assert tk.gather_nd(x, [[0, 1], [2, 3]]).numpy().tolist() == [1, 11]      # TF: [1. 11.]
    rows = tk.gather_nd(x, [[1], [0]])                                       # TF: rows 1 and 0
    assert rows.shape == (2, 4) and rows.numpy()[0].tolist() == [4, 5, 6, 7]
    one = tk.gather_nd(x, [1, 0])                                            # TF: 4.0, shape ()
    assert one.shape == () and one.numpy() == 4.0 and one.dtype == tk.float32
    batch = tk.gather_nd(tk.reshape(tk.range(12.0), (2, 3, 2)), [[1], [0]], batch_dims=1)
    assert batch.numpy().tolist() == [[2, 3], [6, 7]]                        # TF: [[2 3] [6 7]]
    assert tk.gather_nd(x, np.zeros((0, 2), np.int32)).shape == (0,)
    assert tk.gather_nd(tk.constant([[1, 2], [3, 4]]), [[1, 1]]).dtype == tk.int32


def test_gather_nd_refuses_what_tensorflow_refuses():
    x = x34()
    with pytest.raises(IAE, match=r"indices\[0\] = \[3, 0\] does not index into param shape \[3, 4\]"):
        tk.gather_nd(x, [[3, 0]])
    with pytest.raises(IAE, match=r"indices\[0\] = \[-1, 0\] does not index"):
        tk.gather_nd(x, [[-1, 0]])                  # TF does not wrap negative indices either
    with pytest.raises(IAE, match="each index has 3 coordinates"):
        tk.gather_nd(x, [[1, 0, 0]])
    with pytest.raises(IAE, match="indices must be integers, got dtype float"):
        tk.gather_nd(x, [[1.0, 0.0]])
    with pytest.raises(NotImplementedError, match="bad_indices_policy='IGNORE'"):
        tk.gather_nd(x, [[0, 0]], bad_indices_policy="IGNORE")


def test_gather_nd_gradient_adds_into_the_places_picked():
    x = tk.Variable(x34())
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.gather_nd(x, [[0, 1], [2, 3], [0, 1]]) * tk.constant([1.0, 2.0, 3.0]))
    expected = np.zeros((3, 4))
    expected[0, 1], expected[2, 3] = 1 + 3, 2      # picked twice: both cotangents added
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), expected)


# --- scatter_nd and tensor_scatter_nd_add --------------------------------------------------------
def test_scatter_nd_matches_tensorflow():
    got = tk.scatter_nd([[4], [3], [1], [7]], [9.0, 10.0, 11.0, 12.0], [8])
    assert got.numpy().tolist() == [0, 11, 0, 10, 9, 0, 0, 12] and got.dtype == tk.float32
    assert tk.scatter_nd([[1], [1]], [1.0, 2.0], [3]).numpy().tolist() == [0, 3, 0]   # added
    rows = tk.scatter_nd([[0], [2]], [[5.0, 5.0], [6.0, 6.0]], [4, 2])
    assert rows.numpy().tolist() == [[5, 5], [0, 0], [6, 6], [0, 0]]


def test_tensor_scatter_nd_add_matches_tensorflow():
    x = x34()
    got = tk.tensor_scatter_nd_add(x, [[0, 0], [2, 3], [0, 0]], [100.0, 200.0, 300.0])
    assert got.numpy()[0, 0] == 400 and got.numpy()[2, 3] == 211 and got.numpy()[1, 1] == 5
    assert x.numpy()[0, 0] == 0                                           # the input is unchanged
    row = tk.tensor_scatter_nd_add(x, [[1]], [[1, 1, 1, 1]])              # ints take x's dtype
    assert row.dtype == tk.float32 and row.numpy()[1].tolist() == [5, 6, 7, 8]


def test_scatters_refuse_what_tensorflow_refuses():
    with pytest.raises(IAE, match=r"indices\[0\] = \[5\] does not index into shape \[3\]"):
        tk.scatter_nd([[5]], [1.0], [3])
    with pytest.raises(IAE, match=r"updates have shape \[3\], but indices of shape \[2, 1\] .* need "
                                  r"updates of shape \[2\]"):
        tk.scatter_nd([[0], [1]], [1.0, 2.0, 3.0], [3])
    with pytest.raises(IAE, match=r"indices\[0\] = \[3\] does not index into tensor of shape \[3, 4\]"):
        tk.tensor_scatter_nd_add(x34(), [[3]], [[1.0, 1.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match="scatter_nd: shape"):
        tk.scatter_nd([[0]], [1.0], [-2])


def test_scatter_gradients_gather_the_cotangent():
    u = tk.Variable([1.0, 2.0, 3.0])
    t = tk.Variable(tk.zeros([4]))
    w = tk.constant([10.0, 20.0, 30.0, 40.0])
    with tk.GradientTape(persistent=True) as tape:
        y = tk.reduce_sum(tk.tensor_scatter_nd_add(t, [[3], [0], [3]], u) * w)
        z = tk.reduce_sum(tk.scatter_nd([[3], [0], [3]], u, [4]) * w)
    # by hand: update k lands at index[k], where w is 40, 10, 40; the tensor's gradient is w
    np.testing.assert_array_equal(tape.gradient(y, u).numpy(), [40, 10, 40])
    np.testing.assert_array_equal(tape.gradient(y, t).numpy(), w.numpy())
    np.testing.assert_array_equal(tape.gradient(z, u).numpy(), [40, 10, 40])


# --- slice ---------------------------------------------------------------------------------------
def test_slice_matches_tensorflow():
    got = tk.slice(x34(), [1, 0], [2, -1])                   # TF: rows 1-2, all columns
    assert got.numpy().tolist() == [[4, 5, 6, 7], [8, 9, 10, 11]]
    assert tk.slice(x34(), tk.constant([0, 3]), [3, 1]).numpy().tolist() == [[3], [7], [11]]
    assert tk.slice(x34(), [3, 4], [0, 0]).shape == (0, 0)
    assert tk.slice(tk.constant([1, 2, 3]), [1], [1]).dtype == tk.int32
    assert slice(1, 2) == slice(1, 2)        # tk.slice is not Python's slice, nor hides it


def test_slice_refuses_what_tensorflow_refuses():
    with pytest.raises(IAE, match=r"size\[0\] = 3 is outside \[0, 2\]"):
        tk.slice(x34(), [1, 0], [3, 2])
    with pytest.raises(IAE, match="one number per axis of the input"):
        tk.slice(x34(), [1], [2])
    with pytest.raises(IAE, match=r"begin\[0\] = -1 is outside \[0, 3\]"):
        tk.slice(x34(), [-1, 0], [1, 1])


def test_slice_gradient():
    x = tk.Variable(x34())
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.slice(x, [1, 1], [2, 2]) ** 2)
    expected = np.zeros((3, 4))
    expected[1:3, 1:3] = 2 * x34().numpy()[1:3, 1:3]          # 2 x inside the block, 0 outside
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), expected)


# --- boolean_mask --------------------------------------------------------------------------------
def test_boolean_mask_matches_tensorflow():
    x = x34()
    assert tk.boolean_mask(x, [True, False, True]).numpy().tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert tk.boolean_mask(x, x > 5).numpy().tolist() == [6, 7, 8, 9, 10, 11]
    got = tk.boolean_mask(x, [True, False, True, False], axis=1)
    assert got.numpy().tolist() == [[0, 2], [4, 6], [8, 10]]
    # integer masks count as nonzero, as in TensorFlow
    assert tk.boolean_mask(x, [1, 0, 1]).shape == (2, 4)
    assert tk.boolean_mask(x, [False, False, False]).shape == (0, 4)


def test_boolean_mask_refuses_what_tensorflow_refuses():
    x = x34()
    with pytest.raises(ValueError, match=r"a mask of shape \(2,\) does not fit"):
        tk.boolean_mask(x, [True, False])
    with pytest.raises(ValueError, match="mask cannot be a scalar"):
        tk.boolean_mask(x, True)
    # TF 2.21 raises ValueError for a negative axis too; tapekit says what to give instead
    with pytest.raises(ValueError, match="axis = -1 is negative.*axis=1"):
        tk.boolean_mask(x, [True, False, True, False], axis=-1)


def test_boolean_mask_gradient_is_zero_where_masked_out():
    x = tk.Variable([[1.0, -2.0], [3.0, -4.0]])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.boolean_mask(x, x > 0) * 5.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[5, 0], [5, 0]])


# --- embedding_lookup ----------------------------------------------------------------------------
def test_embedding_lookup_matches_tensorflow():
    x = x34()
    got = tk.nn.embedding_lookup(x, [[2, 0], [1, 1]])
    assert got.shape == (2, 2, 4) and got.numpy()[0, 0].tolist() == [8, 9, 10, 11]
    clipped = tk.nn.embedding_lookup(x, [2, 0], max_norm=5.0)
    # TF: row 2 (norm sqrt(366)) scaled to norm 5; row 0 (norm sqrt(14) < 5) unchanged
    np.testing.assert_allclose(clipped.numpy(), [[2.0908334, 2.3521876, 2.6135418, 2.874896],
                                                 [0.0, 1.0, 2.0, 3.0]], rtol=1e-6)
    shards = tk.nn.embedding_lookup([x[:2], x[2:]], [2, 0])    # "div" shards: consecutive rows
    np.testing.assert_array_equal(shards.numpy(), tk.gather(x, [2, 0]).numpy())
    with pytest.raises(IAE, match=r"id 3 is not in \[0, 3\)"):
        tk.nn.embedding_lookup(x, [3])


def test_embedding_lookup_gradient_adds_into_each_row():
    table = tk.Variable(tk.zeros((3, 2)))
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.nn.embedding_lookup(table, [[0, 2], [2, 2]]))
    np.testing.assert_array_equal(tape.gradient(y, table).numpy(), [[1, 1], [0, 0], [3, 3]])


# --- every one against finite differences --------------------------------------------------------
@given(seed=st.integers(0, 2**16))
@settings(max_examples=15, deadline=None)
def test_gradients_match_finite_differences(seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (3, 4))
    idx = np.stack([rng.integers(0, 3, 5), rng.integers(0, 4, 5)], axis=-1)
    rows = rng.integers(0, 3, (2, 2))
    mask = rng.uniform(size=(3, 4)) > 0.5
    u = rng.uniform(-1, 1, 5)
    check_grads(lambda a: tk.gather_nd(a * a, idx), x, order=2)
    check_grads(lambda a: tk.gather_nd(a, rows[..., :1]) * a[0, 0], x, order=2)
    check_grads(lambda a, b: tk.tensor_scatter_nd_add(a * a, idx, b * b), x, u, order=2)
    check_grads(lambda b: tk.scatter_nd(idx, b * b, [3, 4]), u, order=2)
    check_grads(lambda a: tk.slice(a * a, [1, 1], [-1, 2]), x, order=2)
    check_grads(lambda a: tk.boolean_mask(a * a, mask), x, order=2)
    check_grads(lambda a: tk.nn.embedding_lookup(a * a, rows, max_norm=0.8), x, order=2)


# --- tensor_scatter_nd_update and tensor_scatter_nd_sub ----------------------------------------
def test_tensor_scatter_nd_update_and_sub_match_tensorflow_with_their_gradients():
    x = tk.Variable(tk.reshape(tk.range(12.0), (3, 4)))
    u = tk.Variable([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    w = tk.reshape(tk.range(12.0) + 1, (3, 4))
    with tk.GradientTape(persistent=True) as tape:
        written = tk.tensor_scatter_nd_update(x, [[2], [0]], u)
        y = tk.reduce_sum(written * w)
        z = tk.reduce_sum(tk.tensor_scatter_nd_sub(x, [[2], [0]], u) * w)
    # TensorFlow 2.21's values and gradients for the same code
    assert written.numpy().tolist() == [[5, 6, 7, 8], [4, 5, 6, 7], [1, 2, 3, 4]]
    assert tape.gradient(y, x).numpy().tolist() == [[0, 0, 0, 0], [5, 6, 7, 8], [0, 0, 0, 0]]
    assert tape.gradient(y, u).numpy().tolist() == [[9, 10, 11, 12], [1, 2, 3, 4]]
    assert tape.gradient(z, x).numpy().tolist() == w.numpy().tolist()
    assert tape.gradient(z, u).numpy().tolist() == [[-9, -10, -11, -12], [-1, -2, -3, -4]]
    assert tk.tensor_scatter_nd_sub(x, [[1, 1], [1, 1]], [1.0, 2.0]).numpy()[1, 1] == 2   # both
    with tk.autodiff.ForwardAccumulator(u, tk.ones_like(u)) as acc:
        out = tk.tensor_scatter_nd_update(x, [[2], [0]], u * u)
    assert acc.jvp(out).numpy().tolist() == [[10, 12, 14, 16], [0, 0, 0, 0], [2, 4, 6, 8]]


def test_tensor_scatter_nd_update_gradient_against_finite_differences():
    rng = np.random.default_rng(3)
    x0, u0 = rng.normal(size=(4, 3)), rng.normal(size=(2, 3))
    w = rng.normal(size=(4, 3))

    def f(x, u):
        return tk.reduce_sum(tk.sin(tk.tensor_scatter_nd_update(x, [[3], [1]], u * x[:2])) * w)

    theoretical, numerical = tk.test.compute_gradient(f, [x0, u0])
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=1e-6, atol=1e-8)


def test_tensor_scatter_nd_update_refuses_what_tensorflow_refuses():
    with pytest.raises(IAE, match=r"updates have shape \[3\], but indices of shape \[1, 1\]"):
        tk.tensor_scatter_nd_update(tk.zeros([3, 4]), [[1]], [1.0, 2.0, 3.0])
    with pytest.raises(IAE, match=r"indices\[0\] = \[-1\] does not index"):
        tk.tensor_scatter_nd_update(tk.zeros([3]), [[-1]], [1.0])
