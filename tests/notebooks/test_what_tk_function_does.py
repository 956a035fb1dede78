"""Off-page checks of lesson 21 (notebooks/21_what_tk_function_does.md)."""
import contextlib
import io

import numpy as np

import tapekit as tk


def test_a_replay_runs_no_python_print_and_gives_eagers_numbers():
    @tk.function
    def f(x, y):
        print("Python is running f")
        z = x * y + tk.sin(x)
        return z * z - 1.0

    x, y = tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        f(x, y)
        got = f(x + 1.0, y)
    assert out.getvalue() == "Python is running f\n"
    z = (x + 1.0) * y + tk.sin(x + 1.0)
    np.testing.assert_array_equal(got.numpy(), (z * z - 1.0).numpy())


def test_to_code_is_the_most_recent_traces_program():
    @tk.function
    def g(x):
        return x * 2.0

    g(tk.constant(1.0))
    first = tk.autograph.to_code(g)
    assert first == g.get_concrete_function(tk.constant(1.0)).code
    g(tk.constant([1.0, 2.0]))                      # a new signature: a second trace
    assert g.experimental_get_tracing_count() == 2
    assert tk.autograph.to_code(g) == g.get_concrete_function(tk.constant([1.0, 2.0])).code


def test_an_update_line_loses_no_update_under_threads():
    """The assign_add line adds 1 at every call: four threads adding through one program lose
    no update (the program holds the variable's lock while it writes)."""
    import threading
    calls = tk.Variable(0)

    @tk.function
    def bump():
        calls.assign_add(1)
        return calls * 1

    bump()
    threads = [threading.Thread(target=lambda: [bump() for _ in range(200)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(calls.numpy()) == 1 + 4 * 200
    assert "assign_add(" in tk.autograph.to_code(bump)


def test_the_exercise_with_a_float_limit_keeps_the_traced_value():
    """The wrong answer of the exercise: a Python float limit is frozen into the program."""
    limit = 1.0

    @tk.function
    def clip(x):
        return tk.minimum(x, limit)

    v = tk.constant([0.5, 2.0])
    clip(v)
    limit = 0.25                                      # noqa: F841 - what a student would try
    np.testing.assert_array_equal(clip(v).numpy(), [0.5, 1.0])
