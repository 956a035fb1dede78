"""A replay that stops at a guard after a write, a draw or a print undoes them
(transaction.py): each call writes, draws and prints exactly as the eager call does.
"""
import tapekit as tk


def both(fn):
    return fn, tk.function(fn)


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
