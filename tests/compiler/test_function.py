"""tk.function (function.py): one trace per signature and per path through the Python,
then replays; retracing, its warnings, methods, variables created on the first call only,
and the functions it refuses. Eager and traced calls give the same numbers (issue 24).
"""
import gc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapekit as tk
from tapekit import layers, models, optimizers


def both(fn):
    return fn, tk.function(fn)


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
    # TF 2.21 counts 2 traces for this step (SGD's momentum slots are made inside it) and
    # iterations 31; each call stepped once
    assert last < first * 0.8 and step.trace_count == 2 and opt.iterations.numpy() == 31


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


def test_a_branch_on_a_traced_value_takes_the_eager_path():
    def f(x):
        if x > 0:
            return x * 10.0
        return -x
    eager, traced = both(f)
    for x in (3.0, -3.0, 2.0, -1.0, 0.0):
        assert float(traced(tk.constant(x))) == float(eager(tk.constant(x)))
    assert traced.experimental_get_tracing_count() == 2    # one trace per path, then replays


def test_a_while_loop_on_a_traced_value_runs_its_own_count():
    def f(x):
        while tk.reduce_sum(x) > 1:
            x = tk.tanh(x)
        return x
    eager, traced = both(f)
    for x in (3.0, 0.1, 30.0, 3.0, 0.1):
        assert float(traced(tk.constant(x))) == float(eager(tk.constant(x)))
    assert float(traced(tk.constant(0.1))) == np.float32(0.1)


def test_creating_a_variable_on_every_call_raises_as_tf_does():
    # TF 2.21: the first call raises its ValueError (its second trace made another variable),
    # the Python ran twice, the write of the first trace never happened, and the count is 1
    w = tk.Variable(1.0)
    runs = []

    @tk.function
    def f(x):
        runs.append(x)
        w.assign_add(x)
        v = tk.Variable(0.0)
        v.assign_add(x)
        return v.read_value()
    with pytest.raises(ValueError, match="only supports variables created on the first call"):
        f(tk.constant(1.0))
    assert len(runs) == 2 and float(w) == 1.0 and f.experimental_get_tracing_count() == 1
    with pytest.raises(ValueError, match="only supports variables created on the first call"):
        f(tk.constant(1.0))                          # and again: nothing was kept
    assert float(w) == 1.0


def test_a_first_call_that_creates_variables_traces_twice_then_replays_as_tf():
    # issue 43: traced on call 1, again on call 2, compiled on call 3, and trace_count said 1.
    # TF 2.21, this function: the Python runs twice in call 1, experimental_get_tracing_count()
    # is 2 from then on, v is 3.0, 5.0, 7.0, 9.0 after calls 1-4
    class Holder:
        v = None
    holder, runs = Holder(), []

    @tk.function
    def f(x):
        runs.append(x)
        if holder.v is None:
            holder.v = tk.Variable(1.0)
        holder.v.assign_add(x)
        return holder.v * x
    got = []
    for _ in range(4):
        f(tk.constant(2.0))
        got.append((len(runs), f.experimental_get_tracing_count(), float(holder.v)))
    assert got == [(2, 2, 3.0), (2, 2, 5.0), (2, 2, 7.0), (2, 2, 9.0)]
    assert f.trace_count == 2 and "2 trace(s)" in repr(f)
    [programs] = f.programs.values()
    assert len(programs) == 1 and "assign_add" in programs[0].code   # call 2 replayed it


def test_a_call_that_raises_while_tracing_changes_nothing_as_tf():
    # TF 2.21: a tf.function whose trace raises leaves w at 1.0 and counts no trace (its trace
    # runs nothing); tapekit's trace runs the Python for real, and undoes the writes and draws
    w = tk.Variable(1.0)
    tk.random.set_seed(3)
    expected = tk.random.uniform([2]).numpy()
    tk.random.set_seed(3)

    @tk.function
    def g(x):
        w.assign_add(x)
        tk.random.uniform([2])
        raise RuntimeError("trace boom")
    with pytest.raises(RuntimeError, match="trace boom"):
        g(tk.constant(5.0))
    assert float(w) == 1.0 and g.experimental_get_tracing_count() == 0
    np.testing.assert_array_equal(tk.random.uniform([2]).numpy(), expected)


def test_the_singleton_pattern_creates_once_and_replays():
    class Counter:
        def __init__(self):
            self.v = None

        @tk.function
        def __call__(self, x):
            if self.v is None:
                self.v = tk.Variable(0.0)
            self.v.assign_add(x)
            return self.v.read_value()
    c, d = Counter(), Counter()
    assert [float(c(tk.constant(2.0))) for _ in range(4)] == [2.0, 4.0, 6.0, 8.0]
    assert [float(d(tk.constant(1.0))) for _ in range(2)] == [1.0, 2.0]   # its own first call
    del d
    gc.collect()
    assert len(Counter.__call__._bound) == 1          # a bound tk.function dies with its instance


def test_a_python_float_changing_every_call_warns_once_and_stays_bounded():
    @tk.function
    def step(x, lr):
        return x * lr
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(300):
            assert float(step(tk.constant(2.0), float(k))) == 2.0 * k
    retrace = [w for w in caught if "traced it again" in str(w.message)]
    assert len(retrace) == 1
    message = str(retrace[0].message)
    assert "5 out of the last 5 calls" in message and "step" in message and "'lr'" in message
    assert "reduce_retracing" in message and "input_signature" in message
    assert len(step.programs) <= 64                      # programs kept: bounded


def test_reduce_retracing_does_not_warn_about_changing_shapes():
    @tk.function(reduce_retracing=True)
    def f(x):
        return tk.reduce_sum(x * 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in range(1, 10):
            assert float(f(tk.ones([n]))) == 2.0 * n


def test_too_many_paths_run_eagerly_with_one_warning():
    def f(x):
        return x * float(x)                 # a path per value
    eager, traced = both(f)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(20):
            assert float(traced(tk.constant(float(k)))) == float(eager(tk.constant(float(k))))
    assert sum("runs eagerly" in str(w.message) for w in caught) == 1
    assert traced.experimental_get_tracing_count() == 8


def test_the_retracing_warning_points_at_the_callers_line():
    @tk.function
    def f(x, p):
        return x * p
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(7):
            f(tk.constant(1.0), float(i))
    assert len(caught) == 1 and caught[0].filename == __file__, caught[0].filename


_OPS = st.lists(st.tuples(st.sampled_from(["if", "while", "sin", "float", "index"]),
                          st.floats(-2.0, 2.0, allow_nan=False).map(lambda t: round(t, 2))),
                min_size=1, max_size=5)


def _program(ops):
    def f(x):
        for kind, t in ops:
            if kind == "if":
                if tk.reduce_sum(x) > t:
                    x = x * 0.5
                else:
                    x = x + 1.0
            elif kind == "while":
                n = 0
                while tk.reduce_max(x) > t and n < 4:
                    x = tk.tanh(x) - 0.25
                    n += 1
            elif kind == "sin":
                x = tk.sin(x) * 2.0
            elif kind == "float":
                x = x * float(tk.reduce_mean(x) > t) + t
            else:
                k = int(tk.cast(tk.reduce_sum(x) > t, tk.int32))
                x = x * x[k]
        return x
    return f


@settings(max_examples=40, deadline=None)
@given(ops=_OPS, inputs=st.lists(st.lists(st.floats(-3.0, 3.0, width=32), min_size=2,
                                          max_size=2), min_size=2, max_size=6))
def test_random_programs_with_data_dependent_control_flow_match_eager(ops, inputs):
    eager, traced = both(_program(ops))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for values in inputs + inputs[:2]:
            x = tk.constant(np.array(values, np.float32))
            np.testing.assert_array_equal(traced(x).numpy(), eager(x).numpy())


def _program_with_variables(ops, scale, count):
    """_program's decisions, plus a variable read live and one updated inside."""
    inner = _program(ops)

    def f(x):
        count.assign_add(1.0)
        x = inner(x * scale)
        if tk.reduce_sum(x) > count:          # a decision on a value just written
            x = x - count
        return x * scale.read_value()
    return f


@settings(max_examples=30, deadline=None)
@given(ops=_OPS, calls=st.lists(st.tuples(st.lists(st.floats(-3.0, 3.0, width=32), min_size=2,
                                                    max_size=2),
                                           st.floats(-2.0, 2.0, width=32)),
                                 min_size=2, max_size=6))
def test_random_programs_with_variables_assigned_between_calls_match_eager(ops, calls):
    # Each side has its own variables; between calls both are assigned the same new scale.
    eager_vars = tk.Variable(1.0), tk.Variable(0.0)
    traced_vars = tk.Variable(1.0), tk.Variable(0.0)
    eager = _program_with_variables(ops, *eager_vars)
    traced = tk.function(_program_with_variables(ops, *traced_vars))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for values, new_scale in calls + calls[:2]:
            eager_vars[0].assign(new_scale)
            traced_vars[0].assign(new_scale)
            x = tk.constant(np.array(values, np.float32))
            np.testing.assert_array_equal(traced(x).numpy(), eager(x).numpy())
            assert float(traced_vars[1]) == float(eager_vars[1])    # every update, once


def test_recursion_on_python_values_traces_each_depth_as_tf_does():
    # TF 2.21: 1.0 and 3 traces (n = 2, 1, 0), then 5.0 with no new trace.
    @tk.function
    def rec(x, n):
        return x if n == 0 else rec(x, n - 1)
    assert rec(tk.constant(1.0), 2).numpy() == 1.0 and rec.experimental_get_tracing_count() == 3
    assert rec(tk.constant(5.0), 2).numpy() == 5.0 and rec.experimental_get_tracing_count() == 3


def test_recursion_on_a_tensor_gives_eagers_numbers_by_guards():
    # By design: TF 2.21's AutoGraph raises StagingError here (it converts `if x > 0` into a
    # graph conditional holding the recursive call, endlessly); tapekit's trace runs the
    # Python, a guard per decision, and gives what eager Python gives.
    @tk.function
    def down(x):
        if x > 0:
            return down(x - 1.0)
        return x
    assert [down(tk.constant(v)).numpy() for v in (2.0, 3.0, 2.0, -1.5)] == [0.0, 0.0, 0.0, -1.5]


def test_run_functions_eagerly_calls_the_python_every_time():
    calls = []

    @tk.function
    def f(x):
        calls.append(x.shape)       # not its value: reading one would guard it
        return x * 2

    f(tk.constant(1.0))
    f(tk.constant(2.0))                              # replayed: the Python does not run
    assert len(calls) == 1
    try:
        tk.config.run_functions_eagerly(True)        # tf.config.run_functions_eagerly
        assert tk.config.functions_run_eagerly() is True
        assert float(f(tk.constant(3.0))) == 6.0 and float(f(tk.constant(4.0))) == 8.0
        assert len(calls) == 3                       # each call ran the Python, as eager code
        x = tk.Variable(3.0)
        with tk.GradientTape() as tape:
            y = f(x) * x
        assert float(tape.gradient(y, x)) == 12.0    # recorded as eager code: d(2 x^2) = 4 x
        assert len(calls) == 4
    finally:
        tk.config.run_functions_eagerly(False)
    assert tk.config.functions_run_eagerly() is False
    f(tk.constant(5.0))
    assert len(calls) == 4                           # the programs again
