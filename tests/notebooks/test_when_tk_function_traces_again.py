"""Off-page checks of lesson 22 (notebooks/22_when_tk_function_traces_again.md)."""
import numpy as np

import tapekit as tk


def test_a_failing_guard_stops_the_program_before_any_other_line_runs():
    """"The guard fails before any other line runs": an update after the if is made once per
    call, also on the call whose guard fails and that is traced again."""
    calls = tk.Variable(0)

    @tk.function
    def piecewise(x):
        if x > 0:
            y = x ** 2
        else:
            y = -3.0 * x
        calls.assign_add(1)
        return y

    assert [float(piecewise(tk.constant(v))) for v in (2.0, -2.0, 3.0, -1.0)] == [4.0, 6.0, 9.0, 3.0]
    assert int(calls.numpy()) == 4
    assert piecewise.experimental_get_tracing_count() == 2


def test_the_unrolled_loop_has_one_multiply_and_guard_per_trip_and_a_last_guard():
    @tk.function
    def double_until_100(x):
        while x < 100.0:
            x = x * 2.0
        return x

    for start, trips in [(3.0, 6), (60.0, 1), (200.0, 0)]:
        fresh = tk.function(double_until_100.python_function)
        assert float(fresh(tk.constant(start))) == start * 2 ** trips
        code = tk.autograph.to_code(fresh)
        assert code.count("multiply(") == trips and code.count("guard_") == trips + 1


def test_rescale_traces_five_times_and_once_per_branch_with_an_input_signature():
    """The exercise's counts (tf.function's 4 and 1 are checked in TensorFlow, not here)."""
    def rescale(x, limit):
        peak = tk.reduce_max(tk.abs(x))
        if peak > limit:
            x = x * (limit / peak)
        return x

    calls = [(tk.constant([1.0, 2.0]), 3.0), (tk.constant([5.0, 1.0]), 3.0),
             (tk.constant([0.5, 0.5]), 3.0), (tk.constant([1.0, 2.0, 3.0]), 3.0),
             (tk.constant([1.0, 2.0]), 4.0), (tk.constant([1.0, 2.0]), tk.constant(4.0))]
    traced = tk.function(rescale)
    counts = []
    for x, limit in calls:
        np.testing.assert_array_equal(traced(x, limit).numpy(), rescale(x, limit).numpy())
        counts.append(traced.experimental_get_tracing_count())
    assert counts == [1, 2, 2, 3, 4, 5]
    fixed = tk.function(rescale, input_signature=[tk.TensorSpec([2], tk.float32),
                                                  tk.TensorSpec([], tk.float32)])
    for x, limit in calls[:3] + calls[4:]:
        fixed(x, limit)
    assert fixed.experimental_get_tracing_count() == 2
