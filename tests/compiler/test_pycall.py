"""tk.py_function (pycall.py): the Python function runs at every call, in a tk.function's
replays too (a Call step calls back into Python), and gradients flow through the tapekit
ops it runs, as through TF's py_function. Values and gradients match TF 2.21's."""
import numpy as np
import pytest

import tapekit as tk


def test_eager_calls_convert_inputs_and_outputs_to_tout():
    assert tk.py_function(lambda a, b: a * b, [tk.constant(2.0), 3.0], tk.float32).numpy() == 6.0
    pair = tk.py_function(lambda a: (a, a * 2), [tk.constant(2.0)], [tk.float32, tk.float32])
    assert isinstance(pair, list) and [t.numpy() for t in pair] == [2.0, 4.0]
    three = tk.py_function(lambda a: 3, [tk.constant(2.0)], tk.float32)
    assert three.dtype == tk.float32 and three.numpy() == 3.0           # TF casts a Python 3
    wide = tk.py_function(lambda a: a.numpy().astype(np.float64), [tk.constant(2.0)], tk.float32)
    assert wide.dtype == tk.float32
    with pytest.raises(tk.errors.InvalidArgumentError, match="dtype int32 where Tout says float32"):
        tk.py_function(lambda a: tk.constant(3), [tk.constant(2.0)], tk.float32)
    with pytest.raises(TypeError, match="Tout"):
        tk.py_function(lambda a: a, [tk.constant(2.0)])


def test_the_decorator_form():
    @tk.py_function(Tout=tk.float32)
    def double(a):
        return a * 2.0
    assert double(tk.constant(1.5)).numpy() == 3.0


def test_inside_a_tk_function_the_python_runs_at_every_call():
    calls = []

    def np_double(a):
        calls.append(float(a.numpy()))
        return a.numpy() * 2

    @tk.function
    def f(x):
        return tk.py_function(np_double, [x], tk.float32) + 1.0
    assert [f(tk.constant(v)).numpy() for v in (1.0, 2.0, 5.0)] == [3.0, 5.0, 11.0]
    assert calls == [1.0, 2.0, 5.0] and f.trace_count == 1     # TF 2.21: 3.0, 5.0; one trace
    assert "py_function" in tk.autograph.to_code(f)
    # TF's graph holds an EagerPyFunc operation (TF 2.21's type name) between x and the add.
    ops = f.get_concrete_function(tk.TensorSpec([], tk.float32)).graph.get_operations()
    assert [op.type for op in ops][:2] == ["Placeholder", "EagerPyFunc"]
    assert ops[1].outputs[0].dtype == tk.float32


def test_variables_written_by_the_python_are_read_again_after_it():
    v = tk.Variable(1.0)

    def bump(a):
        v.assign_add(a)
        return a

    @tk.function
    def f(x):
        tk.py_function(bump, [x], tk.float32)
        return v * 1.0
    assert [f(tk.constant(2.0)).numpy() for _ in range(3)] == [3.0, 5.0, 7.0]


def test_gradients_flow_through_the_ops_the_python_runs():
    # TF 2.21: d(a*a)/da at a Variable 3.0 is 6.0; d(sin(a) a)/da at 3.0 is -2.8288574.
    x = tk.Variable(3.0)
    with tk.GradientTape() as tape:
        y = tk.py_function(lambda a: a * a, [x], tk.float32)
    assert tape.gradient(y, x).numpy() == 6.0
    c = tk.constant(3.0)
    with tk.GradientTape() as tape:
        tape.watch(c)
        y = tk.py_function(lambda a: tk.sin(a) * a, [c], tk.float32)
    np.testing.assert_allclose(tape.gradient(y, c).numpy(), np.cos(3.0) * 3.0 + np.sin(3.0), rtol=1e-6)
    # Through a tk.function's replay on tensors, as through eager code.
    f = tk.function(lambda a: tk.py_function(lambda b: b * b * b, [a], tk.float32))
    f(tk.constant(1.0))
    with tk.GradientTape() as tape:
        tape.watch(c)
        y = f(c)
    assert tape.gradient(y, c).numpy() == 27.0


def test_a_tape_inside_the_function_makes_it_run_eagerly_with_right_numbers():
    @tk.function
    def g(a):
        with tk.GradientTape() as t:
            t.watch(a)
            y = tk.py_function(lambda b: b * b * b, [a], tk.float32)
        return t.gradient(y, a)
    with pytest.warns(UserWarning, match="py_function under a GradientTape"):
        assert g(tk.constant(2.0)).numpy() == 12.0               # TF 2.21: 12.0
    assert g(tk.constant(3.0)).numpy() == 27.0


def test_nested_tk_functions_each_call_back():
    calls = []

    def note(a):
        calls.append(1)
        return a

    inner = tk.function(lambda x: tk.py_function(note, [x], tk.float32) * 2.0)
    outer = tk.function(lambda x: inner(x) + 1.0)
    assert [outer(tk.constant(v)).numpy() for v in (1.0, 2.0)] == [3.0, 5.0]
    assert len(calls) == 2


def test_init_scope_runs_once_while_tracing_and_outside_every_tape():
    runs = []

    @tk.function
    def f(x):
        with tk.init_scope():
            runs.append(1)
            c = tk.constant(5.0) * 2.0
        return c * x
    assert [f(tk.constant(v)).numpy() for v in (1.0, 2.0)] == [10.0, 20.0]   # TF 2.21: 10.0
    assert runs == [1]
    x = tk.Variable(3.0)
    with tk.GradientTape(persistent=True) as tape:
        with tk.init_scope():
            paused = x * x                 # the tape is paused, as TF's is
        y = x * 2.0
    assert tape.gradient(paused, x) is None and tape.gradient(y, x).numpy() == 2.0
