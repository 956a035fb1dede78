"""tk.function: trace once per signature, replay without Python, same results as eager."""

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers, models, optimizers


def test_the_three_spellings_and_retracing():
    def f(x):
        return x * x + 1.0
    for g in (tk.function(f), tk.function()(f), tk.function(f, reduce_retracing=True)):
        assert g(tk.constant(2.0)).numpy() == 5.0
        assert g(tk.constant(3.0)).numpy() == 10.0            # replayed: same signature
        assert g.trace_count == 1
        g(tk.constant([1.0, 2.0]))                            # new shape: traced again
        g(tk.constant(2.0, dtype=tk.float64))                 # new dtype: traced again
        assert g.trace_count == 3 == g.experimental_get_tracing_count()
    assert tk.function(f).__name__ == "f"


def test_repeated_calls_find_the_program_of_their_own_shapes_and_dtypes():
    # Replays of f(x, y) with tensors or arrays look their program up by (type, shape,
    # dtype) alone: mixing those across calls must never replay another signature's program.
    def f(x, y):
        return x * y + 1.0
    traced = tk.function(f)
    calls = [(tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0])),
             (np.array([5.0, 6.0], np.float32), np.array([7.0, 8.0], np.float32)),
             (tk.constant([[1.0, 2.0]]), tk.constant([[3.0], [4.0]])),
             (tk.constant([1.0, 2.0], dtype=tk.float64), tk.constant([3.0, 4.0], dtype=tk.float64)),
             (tk.constant([1.0, 2.0]), np.array([3.0, 4.0], np.float32))]
    for _ in range(3):
        for x, y in calls:
            want, got = f(tk.constant(x), tk.constant(y)), traced(x, y)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert traced.trace_count == 3   # a Tensor and an array of one shape and dtype: one trace
    x, y = calls[0]
    np.testing.assert_array_equal(traced(x, y=y).numpy(), [4.0, 9.0])   # keywords: full lookup
    with tk.GradientTape() as tape:    # a watching tape still sees the replay op by op
        tape.watch(x)
        z = traced(x, y)
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [3.0, 4.0])


def test_python_values_are_part_of_the_signature_and_side_effects_run_once():
    calls = []

    @tk.function
    def scale(x, factor, training=False):
        calls.append(factor)                                  # Python: only while tracing
        return x * factor if training else x
    x = tk.constant([1.0, 2.0])
    assert scale(x, 3.0, training=True).numpy().tolist() == [3.0, 6.0]
    assert scale(tk.constant([5.0, 5.0]), 3.0, training=True).numpy().tolist() == [15.0, 15.0]
    assert scale(x, 4.0, training=True).numpy().tolist() == [4.0, 8.0]
    assert scale(x, 4.0).numpy().tolist() == [1.0, 2.0]
    assert calls == [3.0, 4.0, 4.0] and scale.trace_count == 3


def test_numpy_arguments_count_as_tensors():
    @tk.function
    def f(a):
        return tk.reduce_sum(a)
    assert f(np.ones(3, np.float32)).numpy() == 3.0
    assert f(np.full(3, 2.0, np.float32)).numpy() == 6.0 and f.trace_count == 1


def test_a_tape_inside_gives_the_eager_gradients_bitwise():
    w = tk.Variable(np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32))

    def grads(x, y):
        with tk.GradientTape() as tape:
            loss = tk.reduce_mean(tk.square(tk.tanh(x @ w) - y)) + tk.reduce_sum(tk.exp(-w * w))
        return loss, tape.gradient(loss, w)
    traced = tk.function(grads)
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = tk.constant(rng.normal(size=(5, 4)).astype(np.float32))
        y = tk.constant(rng.normal(size=(5, 3)).astype(np.float32))
        (l1, g1), (l2, g2) = grads(x, y), traced(x, y)
        np.testing.assert_array_equal(l1.numpy(), l2.numpy())
        np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    assert traced.trace_count == 1


def test_an_outer_tape_differentiates_through_a_replay_to_second_order():
    w = tk.Variable([1.0, -2.0, 0.5])

    def f(x):
        return tk.reduce_sum(tk.tanh(w * x) ** 2)
    traced = tk.function(f)
    x = tk.constant([0.3, 0.1, -0.7])
    traced(x)                                                   # trace; the next calls replay
    results = []
    for fn in (f, traced):
        with tk.GradientTape() as outer:
            outer.watch(x)
            with tk.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            dx, dw = inner.gradient(y, [x, w])
            s = tk.reduce_sum(dx)
        results.append([y, dx, dw, outer.gradient(s, x)])
    for eager, replayed in zip(*results):
        np.testing.assert_array_equal(eager.numpy(), replayed.numpy())
    with tk.ForwardAccumulator(x, tk.constant([1.0, 0.0, 0.0])) as acc:
        y = traced(x)
    with tk.ForwardAccumulator(x, tk.constant([1.0, 0.0, 0.0])) as acc2:
        y2 = f(x)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), acc2.jvp(y2).numpy())
    assert traced.trace_count == 1


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


def test_building_inside_the_first_call_does_not_draw_again():
    # The initializer's draw is dead code after tracing: replays must not consume randomness.
    def run(traced):
        tk.random.set_seed(1)
        layer = layers.Dense(3)
        fn = tk.function(lambda x: layers.Dropout(0.5)(layer(x), training=True)) if traced else \
            (lambda x: layers.Dropout(0.5)(layer(x), training=True))
        return [fn(tk.ones((2, 4))).numpy() for _ in range(3)]
    np.testing.assert_array_equal(run(False), run(True))


def test_the_same_tensor_twice_stays_two_inputs():
    @tk.function
    def diff(a, b):
        return a - b
    x = tk.constant(5.0)
    assert diff(x, x).numpy() == 0.0
    assert diff(tk.constant(7.0), tk.constant(2.0)).numpy() == 5.0


def test_methods_and_models_are_part_of_the_signature():
    class Scaler(tk.Module):
        def __init__(self, w):
            self.w = tk.Variable(w)

        @tk.function
        def __call__(self, x):
            return self.w * x
    a, b = Scaler(1.0), Scaler(5.0)
    assert (a(tk.constant(2.0)).numpy(), b(tk.constant(2.0)).numpy()) == (2.0, 10.0)
    b.w.assign(6.0)
    assert b(tk.constant(2.0)).numpy() == 12.0
    # One tk.function per instance, as in TF: each traced once.
    assert a.__call__.trace_count == 1 and b.__call__.trace_count == 1


def test_unreplayable_ops_fall_back_to_eager_with_a_warning():
    @tk.custom_gradient
    def clipped(x):
        return tk.identity(x), lambda dy: tk.clip_by_value(dy, -1.0, 1.0)

    @tk.function
    def f(x):
        return clipped(x) * 2.0
    with pytest.warns(UserWarning, match="runs eagerly"):
        assert f(tk.constant(3.0)).numpy() == 6.0
    assert f(tk.constant(4.0)).numpy() == 8.0                  # still right: runs the Python



def test_max_pool_positions_are_recomputed_on_replay():
    @tk.function
    def pool(x):
        return tk.nn.max_pool2d(x, 2, 2, "VALID")
    a = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    np.testing.assert_array_equal(pool(a).numpy().ravel(), [5, 7, 13, 15])
    np.testing.assert_array_equal(pool(a[:, ::-1].copy()).numpy().ravel(), [13, 15, 5, 7])
    assert pool.trace_count == 1


def test_the_program_is_printable():
    v = tk.Variable(1.0, name="v")

    @tk.function
    def f(x):
        v.assign_add(x)
        return v * 2.0
    f(tk.constant(1.0))
    ((program,),) = f.programs.values()   # one signature, one path
    # Straight-line Python, one line per step; the update is one step under v's lock; the
    # Python number 2.0 beside a float32 array is a float32 constant (codegen._typed_number).
    assert [line.split("#")[0].rstrip() for line in str(program).splitlines()] == [
        "def f(s0):", "    assign_add(v, s0)", "    del s0", "    s1 = v._value",
        "    s3 = multiply(s1, f32_2)", "    del s1", "    return s3"]


def test_steps_on_constants_are_computed_once():
    w = tk.Variable([1.0, -2.0, 3.0])

    @tk.function
    def grad(x):
        with tk.GradientTape() as tape:
            loss = tk.reduce_mean(w * x)
        return tape.gradient(loss, w)
    x = tk.constant([2.0, 4.0, 8.0])
    np.testing.assert_allclose(grad(x).numpy(), [2 / 3, 4 / 3, 8 / 3], rtol=1e-6)
    np.testing.assert_allclose(grad(x * 2).numpy(), [4 / 3, 8 / 3, 16 / 3], rtol=1e-6)  # replayed
    ((program,),) = grad.programs.values()
    # The seed (ones) spread over the mean's 3 inputs and divided by 3 is a constant, and
    # the loss itself is not returned: what is left is g * x.
    names = [line.split("= ")[-1].split("(")[0] for line in str(program).splitlines()[1:]
             if " = " in line]
    assert names == ["multiply"], str(program)


def test_a_replayed_update_never_changes_an_array_someone_holds():
    # (Fused in-place updates were removed: under 1% on the MLP step; docs/PERFORMANCE.md.)
    v = tk.Variable(np.ones(1000, np.float32))

    @tk.function
    def step(d):
        v.assign_sub(d * 0.5)
    d = tk.constant(np.full(1000, 2.0, np.float32))
    step(d)                                   # trace
    step(d)                                   # replay: v = v - d * 0.5
    assert v.numpy()[0] == -1.0
    held = np.asarray(v)                      # the user keeps the current array ...
    step(d)
    assert held[0] == -1.0                    # ... which keeps its numbers,
    assert v.numpy()[0] == -2.0 and v._value is not held   # and v gets a new array
    ((program,),) = step.programs.values()
    assert "assign_sub(Variable, s" in str(program)


def test_a_training_step_replays_and_is_faster_without_python():
    tk.random.set_seed(0)
    model = models.Sequential([layers.Dense(8, activation="relu", input_shape=(4,)), layers.Dense(1)])
    opt = optimizers.SGD(0.1, momentum=0.9)

    @tk.function
    def step(x, y):
        with tk.GradientTape() as tape:
            loss = tk.reduce_mean(tk.square(model(x, training=True) - y))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))
        return loss
    x, y = tk.random.normal((16, 4)), tk.random.normal((16, 1))
    first = step(x, y).numpy()
    for _ in range(30):
        last = step(x, y).numpy()
    assert last < first * 0.8 and step.trace_count == 1 and opt.iterations.numpy() == 31


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


def test_a_replay_never_overwrites_a_buffer_still_held():
    # The numbers must equal eager ones, and a buffer the caller gets back, an argument or
    # one read again later must never be overwritten. (Buffer donation, which wrote results
    # into dead inputs, was removed: about 2% on the MLP step; docs/PERFORMANCE.md.)
    rng = np.random.default_rng(5)
    w = tk.Variable(rng.standard_normal((64, 128)).astype(np.float32))
    b = tk.Variable(rng.standard_normal(128).astype(np.float32))

    def layer(x):
        h = tk.matmul(x, w) + b
        return tk.nn.relu(h), h * 2.0          # h is read again after the add: keep it

    traced = tk.function(layer)
    x = tk.constant(rng.standard_normal((64, 64)).astype(np.float32))
    x_before = x.numpy()
    for _ in range(3):                          # trace, then replays
        got, twice = traced(x)
        want, want_twice = layer(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(twice.numpy(), want_twice.numpy())
    np.testing.assert_array_equal(x.numpy(), x_before)


def test_a_replay_never_writes_into_a_buffer_a_view_still_reads():
    w = tk.Variable(np.random.default_rng(6).standard_normal((64, 128)).astype(np.float32))

    def f(x):
        a = tk.matmul(x, w)
        view = tk.reshape(a, (128, 64))      # shares a's buffer
        b = a + 1.0                          # the last read of a itself ...
        return b, view * 2.0                 # ... but the view is read after it

    traced = tk.function(f)
    x = tk.constant(np.ones((64, 64), np.float32))
    for _ in range(3):
        (b, v), (wb, wv) = traced(x), f(x)
        np.testing.assert_array_equal(b.numpy(), wb.numpy())
        np.testing.assert_array_equal(v.numpy(), wv.numpy())


@pytest.mark.filterwarnings("ignore:overflow encountered")   # 1e6 in float16, eager and replay alike
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_python_numbers_in_a_program_give_eager_bits(dtype):
    # codegen makes 0.1, 3 and 1e6 beside a float array 0-d arrays of its dtype; NumPy casts a
    # Python number to the array's dtype (NEP 50), so every bit must match eager's. 1e6 is
    # not finite in float16: it stays a Python number there.
    def g(x):
        return (x * 0.1 + 3) / 7.0 - x ** 2 + 1e6 * x
    f = tk.function(g)
    x = tk.constant(np.linspace(-2, 2, 8).astype(dtype))   # no 0: 0 * inf
    want = g(x).numpy()
    for _ in range(2):
        got = f(x).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    src = tk.autograph.to_code(f)
    tag = {np.float16: "f16", np.float32: "f32", np.float64: "f64"}[dtype]
    assert f"multiply(s0, {tag}_0_1)" in src and f"{tag}_3" in src
    assert ("1000000.0" in src) == (dtype is np.float16)


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


def _donations(f):
    return sum(p.code.count("written into") for ps in f.programs.values() for p in ps)


def test_a_step_writes_into_a_dead_input_only_when_nothing_else_can_see_it():
    # y is read by a reshape (its result may be a view of y) and returned: never written into.
    # Only the array made by the first multiply and read by nothing but ufuncs is reused.
    def g(x):
        y = tk.sin(x * 2.0)
        z = tk.reshape(y, (2, 2))
        return tk.tanh(y) + 1.0, z, x
    f = tk.function(g)
    x = tk.constant([0.1, 0.2, 0.3, 0.4])
    out = f(x)
    for _ in range(2):
        again = f(x)
        for a, b in zip(again, g(x)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert _donations(f) == 2   # sin into x * 2.0's array; add into tanh's
    np.testing.assert_array_equal(out[1].numpy(), np.sin(np.float32([0.2, 0.4, 0.6, 0.8])).reshape(2, 2))
    np.testing.assert_array_equal(x.numpy(), np.float32([0.1, 0.2, 0.3, 0.4]))   # the argument untouched
    arrays = [np.asarray(t) for t in again] + [np.asarray(t) for t in out]
    for i, a in enumerate(arrays):        # every call's results are arrays of their own
        for b in arrays[i + 1:]:
            assert a is b or not np.shares_memory(a, b) or (a.base is b or b.base is a)


def test_programs_that_write_variables_do_not_donate():
    v = tk.Variable([1.0, 2.0])

    @tk.function
    def f(x):
        v.assign(tk.sin(x * 2.0) + 1.0)
        return tk.exp(v * 3.0) - 1.0
    x = tk.constant([0.5, 0.25])
    got = f(x).numpy()
    want_v = np.sin(np.float32([1.0, 0.5])) + np.float32(1)
    np.testing.assert_array_equal(v.numpy(), want_v)
    np.testing.assert_array_equal(got, np.exp(want_v * np.float32(3)) - np.float32(1))
    assert _donations(f) == 0


def test_a_donating_replay_with_other_shapes_runs_again_without_donation():
    # Traced with shapes (1,) and (1,): add writes into x * 2's array. Programs are kept per
    # shape, but should a value's shape differ from the trace's at a replay (a data-dependent
    # shape), that array may be too small for the result: NumPy refuses the write and the
    # program runs again with new arrays, giving eager's numbers or eager's error.
    f = tk.function(lambda x, y: tk.sin(x * 2.0 + y))
    one = np.float32([0.5])
    np.testing.assert_array_equal(f(one, one).numpy(), np.sin(np.float32([1.5])))
    ((program,),) = f.programs.values()
    assert _donations(f) == 2
    three = np.float32([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(program.run_fast([one, three]).numpy(), np.sin(np.float32([2.0, 3.0, 4.0])))
    np.testing.assert_array_equal(program.run_fast([three, one]).numpy(), np.sin(np.float32([2.5, 4.5, 6.5])))
    with pytest.raises(ValueError, match="could not be broadcast together with shapes"):
        program.run_fast([np.float32([1.0, 2.0]), three])


def test_a_failed_guard_in_a_donating_program_traces_the_other_branch():
    @tk.function
    def f(x):
        y = tk.sin(x * 2.0)
        if tk.reduce_sum(y) > 0:
            return tk.tanh(y) * 3.0
        return tk.cos(y) * 3.0
    pos, neg = tk.constant([0.5, 0.25]), tk.constant([-0.5, -0.25])
    s = np.sin(np.float32([1.0, 0.5]))
    np.testing.assert_allclose(f(pos).numpy(), np.tanh(s) * 3, rtol=1e-6)
    np.testing.assert_allclose(f(neg).numpy(), np.cos(-s) * 3, rtol=1e-6)
    np.testing.assert_allclose(f(pos).numpy(), np.tanh(s) * 3, rtol=1e-6)
    assert _donations(f) > 0


def test_a_generator_function_is_refused_as_tensorflow_refuses_it():
    """Issue 29: the second call returned the first call's used-up generator ([], eager
    [4.0]); tf.function raises TypeError (a tf.function must return tensors)."""
    def gen(x):
        yield x * 2.0
    with pytest.raises(TypeError, match=r"tk.function 'gen'.*generator.*must return tensors.*"
                                        r"collect them in a list"):
        tk.function(gen)
    with pytest.raises(TypeError, match="generator"):
        tk.function()(gen)

    async def coro(x):
        return x
    with pytest.raises(TypeError, match="async"):
        tk.function(coro)
    # A plain function that returns a generator: refused at its first call, and again.
    fn = tk.function(lambda x: (v for v in [x * 2.0]))
    for _ in range(2):
        with pytest.raises(TypeError, match="returned a generator"):
            fn(tk.constant(2.0))
    # What the message suggests works, and replays.
    listed = tk.function(lambda x: [v for v in [x * 2.0]])
    assert [float(v) for v in listed(tk.constant(2.0))] == [4.0]
    assert [float(v) for v in listed(tk.constant(3.0))] == [6.0]
