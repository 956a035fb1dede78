"""The tracer (trace.py) records what a call did, so a replay does it again: variable
reads and writes in order, values that decide attributes (indices, masks, pool
positions), random draws, the kernel an op chose for its shapes, and a guard on each
tensor Python read as a size, shape, axis or loop count.
"""
import io

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers


def both(fn):
    return fn, tk.function(fn)


def test_variable_reads_and_writes_keep_their_order():
    v = tk.Variable(2.0)

    def f(x):
        before = v * x
        v.assign_add(1.0)
        after = v * x
        v.assign(after)
        return {"before": before, "after": after, "n": 3, "nothing": None}
    traced = tk.function(f)
    x = tk.constant(3.0)
    for expected_v in (9.0, 30.0, 93.0):
        out = traced(x)
        assert v.numpy() == expected_v and out["n"] == 3 and out["nothing"] is None
    v.assign(30.0)
    eager = f(x)
    assert (out["before"].numpy(), out["after"].numpy()) == (eager["before"].numpy(), eager["after"].numpy())
    with tk.GradientTape() as tape:                           # op-by-op replay, same values
        v.assign(30.0)
        out = traced(x)
    assert (out["before"].numpy(), out["after"].numpy(), v.numpy()) == (90.0, 93.0, 93.0)


def test_assign_add_then_read_value_counts_every_call():
    v = tk.Variable(0.0)

    @tk.function
    def f():
        v.assign_add(1.0)
        return v.read_value()
    assert [float(f()) for _ in range(4)] == [1.0, 2.0, 3.0, 4.0] and float(v) == 4.0


def test_a_variable_assigned_outside_is_read_at_the_call():
    w = tk.Variable(5.0)

    @tk.function
    def f(x):
        return x * w.read_value() + w
    assert float(f(tk.constant(1.0))) == 10.0
    w.assign(7.0)
    assert float(f(tk.constant(1.0))) == 14.0


def test_a_write_inside_is_seen_by_later_reads_of_the_same_program():
    v = tk.Variable(1.0)

    def f(x):
        a = v.read_value()
        v.assign(a * x)
        b = v.read_value()
        v.assign_sub(1.0)
        return a, b, v * 1.0
    eager, traced = both(f)
    for x in (2.0, 3.0, 0.5):
        v.assign(1.0)
        want = [float(t) for t in eager(tk.constant(x))]
        v.assign(1.0)
        assert [float(t) for t in traced(tk.constant(x))] == want


def test_changing_indices_are_followed():
    # tk.gather's gradient and x[i] pass the index tensor's array on as an attribute.
    p = tk.Variable([1.0, 2.0, 3.0])

    def f(idx):
        with tk.GradientTape() as tape:
            y = tk.reduce_sum(tk.gather(p, idx) * tk.cast(idx, tk.float32)) + tk.reduce_sum(p[idx])
        return y, tape.gradient(y, p)
    traced = tk.function(f)
    for idx in ([0, 0], [2, 1], [1, 1]):
        (y1, g1), (y2, g2) = f(tk.constant(idx)), traced(tk.constant(idx))
        assert y1.numpy() == y2.numpy()
        np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    assert traced.trace_count == 1


def test_max_pool_positions_are_recomputed_on_replay():
    @tk.function
    def pool(x):
        return tk.nn.max_pool2d(x, 2, 2, "VALID")
    a = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    np.testing.assert_array_equal(pool(a).numpy().ravel(), [5, 7, 13, 15])
    np.testing.assert_array_equal(pool(a[:, ::-1].copy()).numpy().ravel(), [13, 15, 5, 7])
    assert pool.trace_count == 1


def test_labels_and_masks_that_change_between_calls_are_followed():
    # one_hot, boolean masks and the sparse cross-entropy's gradient depend on input values;
    # a replay must recompute them, not reuse the first call's.
    @tk.function
    def hot(labels):
        return tk.one_hot(labels, 4)

    @tk.function
    def masked_sum(x, mask):
        return tk.reduce_sum(x[mask])

    @tk.function
    def xent_grad(logits, labels):
        with tk.GradientTape() as tape:
            tape.watch(logits)
            loss = tk.reduce_mean(tk.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        return tape.gradient(loss, logits)

    logits = tk.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    for labels in ([0, 1, 2], [3, 3, 0], [1, 0, 1]):
        lab = tk.constant(labels)
        np.testing.assert_array_equal(hot(lab).numpy(), np.eye(4, dtype=np.float32)[labels])
        with tk.GradientTape() as tape:
            tape.watch(logits)
            loss = tk.reduce_mean(tk.nn.sparse_softmax_cross_entropy_with_logits(lab, logits))
        np.testing.assert_array_equal(xent_grad(logits, lab).numpy(), tape.gradient(loss, logits).numpy())
    x = tk.constant([1.0, 2.0, 3.0, 4.0])
    for mask in ([True, False, True, False], [False, True, True, True]):
        assert masked_sum(x, tk.constant(mask)).numpy() == np.sum(x.numpy()[mask])
    assert hot.trace_count == 1 and masked_sum.trace_count == 1 and xent_grad.trace_count == 1


def test_random_ops_draw_again_on_every_replay():
    drop = layers.Dropout(0.5)

    def f(x):
        return drop(x, training=True)
    traced = tk.function(f)
    x = tk.ones((64,))
    tk.random.set_seed(7)
    eager = [f(x).numpy() for _ in range(3)]
    tk.random.set_seed(7)
    replayed = [traced(x).numpy() for _ in range(3)]
    np.testing.assert_array_equal(eager, replayed)             # same draws, in the same order
    assert not np.array_equal(replayed[1], replayed[2])


def test_add_calls_the_ufunc_unless_its_shapes_may_tile():
    # The bias add of a conv layer (a short vector over a large NHWC array) keeps the tiled
    # forward; a small add calls np.add itself. Both give eager's numbers.
    f = tk.function(lambda x, b: x + b)
    big = np.random.default_rng(0).standard_normal((32, 26, 26, 8)).astype(np.float32)
    bias = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(f(big, bias).numpy(), big + bias)
    np.testing.assert_array_equal(f(big[:1, :2, :2], bias).numpy(), big[:1, :2, :2] + bias)
    programs = [p for ps in f.programs.values() for p in ps]
    by_size = {p.code and p._globals["add"] is np.add: p for p in programs}
    assert len(programs) == 2 and set(by_size) == {True, False}   # one np.add, one tiled forward


@pytest.mark.parametrize("f, calls", [
    (lambda n: tk.reduce_sum(tk.range(n)), [(3,), (4,), (3,)]),
    (lambda n: tk.zeros(tk.stack([n])), [(2,), (5,)]),
    (lambda x, n: tk.reshape(x, tk.stack([n, -1])), [(np.ones(12, np.float32), 3), (np.ones(12, np.float32), 4)]),
    (lambda x, a: tk.reduce_sum(x, axis=a), [(np.arange(6.0, dtype=np.float32).reshape(2, 3), 0),
                                            (np.arange(6.0, dtype=np.float32).reshape(2, 3), 1)]),
    (lambda i, d: tk.one_hot(i, d), [(1, 3), (1, 4)]),
    (lambda n: tk.random.normal(tk.stack([n]), seed=1), [(2,), (3,)]),
])
def test_a_tensor_used_as_a_size_shape_or_axis_is_guarded(f, calls):
    # tapekit read these tensors' values directly (as_int, shape_argument, range's bounds),
    # so no guard was recorded and a replay gave the first call's shape: a silent wrong result.
    traced = tk.function(f)
    for args in calls:
        args = [tk.constant(a) for a in args]
        want, got = f(*args), traced(*args)
        assert got.shape == want.shape
        if "random" not in repr(f.__code__.co_names):
            np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_loop_over_tk_range_of_a_tensor_follows_the_count():
    def f(x, n):
        for _ in tk.range(n):
            x = x * 1.5
        return x
    traced = tk.function(f)
    for n in (3, 4, 2):
        assert float(traced(tk.constant(2.0), tk.constant(n))) == float(f(tk.constant(2.0), tk.constant(n)))


def test_a_call_is_recorded_as_one_record_per_step_in_the_order_it_ran():
    v = tk.Variable(1.0, name="v")
    out = io.StringIO()

    def f(x):
        v.assign_add(x)
        tk.debugging.check_numerics(x, "x")
        if x > 0:                                          # the guard's site: this line
            tk.print("x", x, output_stream=out)
        return v * x
    traced = tk.function(f)
    traced(tk.constant(2.0))
    ((program,),) = traced.programs.values()
    kinds = [type(s).__name__ for s in program.steps]
    assert kinds == ["Update", "Check", "Op", "Guard", "Print", "Read", "Op"]
    update, check, greater, guard, printed, read, times = program.steps
    assert (update.variable, update.ufunc, update.delta) == (v, np.add, 0)
    assert check.value == 0 and greater.op.name == "greater" and greater.inputs[0] == 0
    assert (guard.kind, guard.value, guard.outcome) == ("bool", greater.result, True)
    assert guard.site == (__file__, f.__code__.co_firstlineno + 3)
    assert printed.values == (0,) and printed.template == ((False, "x"), (True, 0))
    assert read.variable is v and times.inputs == (read.result, 0) and times.result in [
        s for is_slot, s in program.outputs if is_slot]


# --- what a tk.function returns (Tracer.finish): tensors, as tf.function returns ----------

@pytest.mark.parametrize("value, dtype", [
    (3, tk.int32), (3.5, tk.float32), (True, tk.bool), (2**40, tk.int64),
    (np.float64(2.0), tk.float64), (complex(1, 2), tk.complex128)])
def test_python_numbers_returned_are_tensors_of_tfs_dtype(value, dtype):
    # The dtypes tf.function gives in TF 2.21 (int32 for 3, int64 for 2**40, ...).
    f = tk.function(lambda x: value)
    for _ in range(2):      # the trace and a replay
        out = f(tk.constant(1.0))
        assert type(out) is tk.Tensor and out.dtype == dtype
        assert out.numpy() == value
    assert f.trace_count == 1


def test_nested_returns_convert_each_leaf_and_keep_none():
    f = tk.function(lambda x: ([1, (2.0, {"a": x * 2.0, "b": None})], True))
    for _ in range(2):
        (one, (two, d)), flag = f(tk.constant(1.5))
        assert (one.dtype, two.dtype, flag.dtype) == (tk.int32, tk.float32, tk.bool)
        assert d["b"] is None and d["a"].numpy() == 3.0
    assert tk.function(lambda x: None)(tk.constant(1.0)) is None


def test_a_returned_array_is_a_tensor():
    f = tk.function(lambda x: np.array([1, 2]))
    out = f(tk.constant(1.0))
    assert type(out) is tk.Tensor and out.dtype == tk.int64 and out.numpy().tolist() == [1, 2]


@pytest.mark.parametrize("value, words", [("abc", "no string tensors"), (object(), "type object")])
def test_other_returns_are_tfs_type_error_and_change_nothing(value, words):
    v = tk.Variable(1.0)

    def f(x):
        v.assign_add(1.0)
        return value
    with pytest.raises(TypeError, match=words):
        tk.function(f)(tk.constant(1.0))
    assert v.numpy() == 1.0     # the refused call wrote nothing


def test_assign_add_and_a_variable_return_its_value_as_a_tensor():
    # TF 2.21: `return v.assign_add(1.0)` in a tf.function gives an EagerTensor (2.0, then
    # 3.0), and `return v` the value at the end of the call, a Tensor.
    v = tk.Variable(1.0)
    g = tk.function(lambda: v.assign_add(1.0))
    first, second = g(), g()
    assert type(first) is tk.Tensor and (first.numpy(), second.numpy()) == (2.0, 3.0)
    h = tk.function(lambda: v)
    assert type(h()) is tk.Tensor and h().numpy() == 3.0
    v.assign(10.0)
    assert h().numpy() == 10.0            # read at each call, not frozen
    with tk.GradientTape() as tape:
        y = h() * 2.0
    assert tape.gradient(y, v).numpy() == 2.0



def test_a_tensor_kept_outside_the_trace_is_out_of_scope_as_in_tf():
    # TF 2.21: using `leak[0]` after the call raises TypeError ("... is out of scope and
    # cannot be used here. Use return values ..."); a replay would never update it.
    leak = []

    @tk.function
    def f(x):
        leak.append(x * 2.0)
        return x + 1.0
    assert f(tk.constant(1.0)).numpy() == 2.0          # what it returns is a tensor as ever
    for use in (lambda: leak[0] + 1.0, lambda: leak[0].numpy(), lambda: float(leak[0]),
                lambda: tk.function(lambda y: y + leak[0])(tk.constant(1.0))):
        with pytest.raises(TypeError, match="out of scope.*Return it from the function"):
            use()
    assert "out of scope" in repr(leak[0])
    assert f(tk.constant(3.0)).numpy() == 4.0          # the function itself is unharmed


def test_a_forward_accumulators_tangents_from_the_tracing_call_stay_in_scope():
    # The tangents an accumulator computed while the first call traced are that call's
    # forward-mode result, not the Python's leaks: acc.jvp(y) is d/dx 2 sin(x) = 2 cos(x)
    # at every call, the tracing one included (it raised "out of scope" before).
    @tk.function
    def f(x):
        return tk.sin(x) * 2.0

    x = tk.constant([0.5, 1.5])
    for call in range(3):
        with tk.autodiff.ForwardAccumulator(x, tk.constant([1.0, 1.0])) as acc:
            y = f(x)
        np.testing.assert_allclose(acc.jvp(y).numpy(), 2.0 * np.cos([0.5, 1.5]), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
