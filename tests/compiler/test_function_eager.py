"""tk.function gives the numbers eager code gives, always (issue 24).

Each test runs the same Python eagerly and through tk.function over several calls (new
branches, new loop counts, variables assigned between calls, threads) and compares.
"""
import gc
import io
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapekit as tk
from tapekit import optimizers


def both(fn):
    return fn, tk.function(fn)


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


def test_creating_a_variable_on_every_call_raises_as_tf_does():
    @tk.function
    def f(x):
        v = tk.Variable(0.0)
        v.assign_add(x)
        return v.read_value()
    assert float(f(tk.constant(1.0))) == 1.0
    with pytest.raises(ValueError, match="only supports variables created on the first call"):
        f(tk.constant(1.0))


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


def test_signed_zeros_are_two_signatures_and_nan_is_one():
    @tk.function
    def f(x, s):
        return x / s
    with np.errstate(divide="ignore", invalid="ignore"):
        assert float(f(tk.constant(1.0), 0.0)) == np.inf
        assert float(f(tk.constant(1.0), -0.0)) == -np.inf
        for _ in range(3):
            assert np.isnan(float(f(tk.constant(1.0), float("nan"))))
    assert f.experimental_get_tracing_count() == 3


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


def test_a_training_step_from_8_threads_makes_every_update():
    w = tk.Variable(0.0)
    count = tk.Variable(0, dtype=tk.int64)
    opt = optimizers.SGD(0.5)

    @tk.function
    def step(x):
        with tk.GradientTape() as tape:
            loss = w * x                  # d loss / dw = x = 1: each step moves w by -0.5
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        count.assign_add(1)
        return loss
    step(tk.constant(1.0))
    step(tk.constant(1.0))                # traced, checked, then replayed below
    w.assign(0.0)
    count.assign(0)
    start = int(opt.iterations)

    def worker():
        for _ in range(100):
            step(tk.constant(1.0))
    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(count) == 800 and int(opt.iterations) - start == 800
    assert float(w) == -400.0


def test_tk_print_prints_at_every_call_and_never_twice(capsys):
    @tk.function
    def f(x):
        tk.print("x:", x)
        if x > 0:
            return x
        return -x
    for x in (1.0, -2.0, 3.0, -4.0):
        f(tk.constant(x))
    assert capsys.readouterr().err.splitlines()   # stderr, as tf.print == ["x: 1", "x: -2", "x: 3", "x: -4"]


def test_a_guard_after_a_write_neither_repeats_nor_loses_the_write():
    v = tk.Variable(0.0)

    def f(x):
        v.assign_add(1.0)
        if v > 2.0:                         # decided on the value just written
            return x * 2.0
        return x
    eager, traced = both(f)
    got = [float(traced(tk.constant(1.0))) for _ in range(5)]
    assert float(v) == 5.0                  # every call added exactly 1
    v.assign(0.0)
    assert got == [float(eager(tk.constant(1.0))) for _ in range(5)] == [1, 1, 2, 2, 2]


def test_random_draws_before_a_guard_are_drawn_once_per_call():
    def f(x):
        r = tk.random.uniform([])
        if x > 0:
            return x + r
        return x - r
    eager, traced = both(f)
    xs = (1.0, -1.0, 2.0, -2.0, 3.0)
    tk.random.set_seed(3)
    want = [float(eager(tk.constant(x))) for x in xs]
    tk.random.set_seed(3)
    assert [float(traced(tk.constant(x))) for x in xs] == want


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


def test_input_signature_fixes_what_a_call_may_be():
    @tk.function(input_signature=[tk.TensorSpec(shape=[None], dtype=tk.float32)])
    def f(x):
        return tk.reduce_sum(x * x)
    assert float(f([1.0, 2.0])) == 5.0
    assert float(f(tk.constant([3.0]))) == 9.0
    with pytest.raises(ValueError, match=r"argument 0 has shape \(1, 1\)"):
        f(tk.constant([[1.0]]))
    with pytest.raises(TypeError, match="int32"):
        f(tk.constant([1, 2]))
    with pytest.raises(TypeError, match="lists 1 argument"):
        f(tk.constant([1.0]), tk.constant([1.0]))


def test_get_concrete_function_prints_the_program_and_runs_nothing():
    v = tk.Variable(1.0)

    @tk.function
    def f(x):
        v.assign_add(1.0)
        return x * 3.0 + v
    concrete = f.get_concrete_function(tk.TensorSpec([None], tk.float32))
    assert float(v) == 1.0                                      # traced, not run
    text = str(concrete)
    assert text.startswith("ConcreteFunction f(x: TensorSpec(shape=(None,)")
    assert "multiply(s0, f32_3)" in text and "assign_add(" in text   # 3.0 as a float32 constant
    assert concrete.code == tk.autograph.to_code(f)
    np.testing.assert_array_equal(concrete(tk.constant([1.0])).numpy(), [5.0])
    assert float(v) == 2.0
    with pytest.raises(ValueError, match="traced for TensorSpec"):
        concrete(tk.constant([[1.0]]))


def test_to_code_reads_as_python_with_guards():
    @tk.function
    def f(x):
        if x > 0:
            return tk.sin(x)
        return x
    f(tk.constant(1.0))
    code = tk.autograph.to_code(f)
    assert code.startswith("def f(s0):")
    assert "guard_0(" in code and "bool(" in code and "sin(" in code
    # a plain function: its own source under a comment header (tapekit converts nothing)
    plain = tk.autograph.to_code(f.python_function)
    assert plain.startswith("# tapekit does not convert this source")
    assert "    if x > 0:\n        return tk.sin(x)\n" in plain and "guard_0" not in plain
    with pytest.raises(TypeError, match="expected a Python function or a tk.function"):
        tk.autograph.to_code(3)
    with pytest.raises(ValueError, match="source of .* is not available"):
        tk.autograph.to_code(len)


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


def test_tk_print_formats_like_tf_print():
    out = io.StringIO()
    tk.print("v", tk.constant([1.0, 2.5]), 3, output_stream=out)
    assert out.getvalue() == "v [1 2.5] 3\n"


# --- random programs with data-dependent if/while: eager and tk.function agree exactly ----

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


def test_the_retracing_warning_points_at_the_callers_line():
    @tk.function
    def f(x, p):
        return x * p
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(7):
            f(tk.constant(1.0), float(i))
    assert len(caught) == 1 and caught[0].filename == __file__, caught[0].filename
