"""The examples of the seed tutorials (tf. replaced by tk.), with the numbers TensorFlow 2 prints."""
import numpy as np
import pytest

import tapekit as tk


def test_scalar_gradient_seed000():
    x = tk.Variable(3.0)
    with tk.GradientTape() as tape:
        y = x ** 2
    dy_dx = tape.gradient(y, x)
    assert str(dy_dx) == "tk.Tensor(6.0, shape=(), dtype=float32)"


def test_two_variables_seed000():
    x, y = tk.Variable(2.0), tk.Variable(3.0)
    with tk.GradientTape() as tape:
        z = x ** 2 + y ** 3
    dz_dx, dz_dy = tape.gradient(z, [x, y])
    assert (dz_dx.numpy(), dz_dy.numpy()) == (4.0, 27.0)


def test_second_derivative_seed000():
    x = tk.Variable(3.0)
    with tk.GradientTape() as tape2:
        with tk.GradientTape() as tape1:
            y = x ** 3
        dy_dx = tape1.gradient(y, x)
    d2y_dx2 = tape2.gradient(dy_dx, x)
    assert dy_dx.numpy() == 27.0 and d2y_dx2.numpy() == 18.0


def test_persistent_tape_seed000():
    x, y = tk.Variable(3.0), tk.Variable(4.0)
    with tk.GradientTape(persistent=True) as tape:
        z = x ** 2 + y ** 2
    assert tape.gradient(z, x).numpy() == 6.0
    assert tape.gradient(z, y).numpy() == 8.0
    del tape


def test_watch_constant_and_stop_gradient_seed000():
    x = tk.constant(3.0)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = x ** 2
    assert tape.gradient(y, x).numpy() == 6.0
    x = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        y = x ** 2
        z = tk.stop_gradient(y) + x
    assert tape.gradient(z, x).numpy() == 1.0


def test_trainable_false_seed000():
    x = tk.Variable(2.0, trainable=True)
    y = tk.Variable(3.0, trainable=False)
    with tk.GradientTape() as tape:
        z = x ** 2 + y ** 2
    gradients = tape.gradient(z, [x, y])
    assert gradients[0].numpy() == 4.0 and gradients[1] is None


def test_reduce_sum_multiply_seed001():
    x = tk.ones((2, 2))
    with tk.GradientTape() as t:
        y = tk.reduce_sum(x)
        z = tk.multiply(y, y)
    assert t.gradient(z, x) is None   # TF 2: an unwatched constant (the seed forgets watch)
    with tk.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tk.reduce_sum(x)
        z = tk.multiply(y, y)
    dz_dx = t.gradient(z, x)
    for i in [0, 1]:
        for j in [0, 1]:
            assert dz_dx[i][j].numpy() == 8.0
    assert t.gradient(z, y).numpy() == 8.0


def test_persistent_constant_seed001():
    x = tk.constant(3.0)
    with tk.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * y
    assert t.gradient(z, x).numpy() == 108.0
    assert t.gradient(y, x).numpy() == 6.0


def test_control_flow_seed001():
    def f(x, y):
        output = 1.0
        for i in range(y):
            if i > 1 and i < 5:
                output = tk.multiply(output, x)
        return output

    def grad(x, y):
        with tk.GradientTape() as t:
            t.watch(x)
            out = f(x, y)
        return t.gradient(out, x)

    x = tk.convert_to_tensor(2.0)
    assert grad(x, 6).numpy() == 12.0
    assert grad(x, 5).numpy() == 12.0
    assert grad(x, 4).numpy() == 4.0


def test_higher_order_seed001():
    x = tk.Variable(1.0)
    with tk.GradientTape() as t:
        with tk.GradientTape() as t2:
            y = x * x * x
        dy_dx = t2.gradient(y, x)
    d2y_dx2 = t.gradient(dy_dx, x)
    assert dy_dx.numpy() == 3.0 and d2y_dx2.numpy() == 6.0


def test_variable_and_integer_seed003(recwarn):
    x = tk.Variable(20.0)
    assert repr(x) == "<tk.Variable 'Variable:0' shape=() dtype=float32, numpy=20.0>"
    with tk.GradientTape() as tape:
        y = x ** 2
    assert np.isclose(tape.gradient(y, x).numpy(), 40.0)
    x = tk.Variable(30)
    assert repr(x) == "<tk.Variable 'Variable:0' shape=() dtype=int32, numpy=30>"
    with tk.GradientTape() as tape:
        y = x ** 3
    assert str(y) == "tk.Tensor(27000, shape=(), dtype=int32)"
    with pytest.warns(tk.GradientDtypeWarning, match=r"int32.*dtype=tk\.float32"):
        assert tape.gradient(y, x) is None
    x = tk.Variable(30, dtype=tk.float32)
    with tk.GradientTape() as tape:
        y = x ** 3
    assert np.isclose(tape.gradient(y, x).numpy(), 2700.0)


def test_vector_variable_seed003():
    x = tk.Variable([1.0, 2.0, 3.0], dtype=tk.float32)
    with tk.GradientTape() as tape:
        y = x ** 3
    assert str(y) == "tk.Tensor([ 1.  8. 27.], shape=(3,), dtype=float32)"
    assert str(tape.gradient(y, x)) == "tk.Tensor([ 3. 12. 27.], shape=(3,), dtype=float32)"


def test_watching_rules_seed003():
    x = tk.constant(3.0)
    with tk.GradientTape() as tape:
        y = x ** 2
    assert tape.gradient(y, x) is None
    x = tk.Variable(5.0, trainable=False)
    with tk.GradientTape() as tape:
        y = x ** 3
    assert tape.gradient(y, x) is None
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = x ** 3
    assert np.isclose(tape.gradient(y, x).numpy(), 75.0)
    x0 = tk.Variable(5.0)
    with tk.GradientTape(watch_accessed_variables=False) as tape:
        y0 = x0 ** 2
    assert tape.gradient(y0, x0) is None
    with tk.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x0)
        y0 = x0 ** 2
    assert tape.gradient(y0, x0).numpy() == 10.0


def test_non_persistent_second_call_seed003():
    x0, x1 = tk.Variable(5.0), tk.Variable(10.0)
    with tk.GradientTape() as tape:
        y0 = x0 ** 2
        y1 = x1 ** 2
    assert tape.gradient(y0, x0).numpy() == 10.0
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
        tape.gradient(y1, x1)
    with tk.GradientTape(persistent=True) as tape:
        y0 = x0 ** 2
        y1 = x1 ** 2
    assert (tape.gradient(y0, x0).numpy(), tape.gradient(y1, x1).numpy()) == (10.0, 20.0)


def test_watch_mixed_sources_seed004():
    x0 = tk.Variable(3.0, name="x0")
    x1 = tk.Variable(3.0, name="x1", trainable=False)
    x2 = tk.Variable(2.0, name="x2") + 1.0
    x3 = tk.constant(3.0, name="x3")
    with tk.GradientTape() as tape:
        y = (x0 ** 2) + (x1 ** 2) + (x2 ** 2) + (x3 ** 2)
    assert [None if g is None else g.numpy() for g in tape.gradient(y, [x0, x1, x2, x3])] == [6.0, None, None, None]
    with tk.GradientTape() as tape:
        tape.watch([x1, x2, x3])
        y = (x0 ** 2) + (x1 ** 2) + (x2 ** 2) + (x3 ** 2)
    assert [g.numpy() for g in tape.gradient(y, [x0, x1, x2, x3])] == [6.0] * 4


def test_disable_tracking_seed004():
    a, b = tk.Variable(3.0, name="x1"), tk.Variable(2.0, name="x2")
    with tk.GradientTape(persistent=True, watch_accessed_variables=False) as t:
        t.watch(a)
        y = a ** 2
        z = b ** 3
    assert t.gradient(y, a).numpy() == 6.0 and t.gradient(z, b) is None


def test_nested_with_watch_seed004():
    x = tk.Variable(3.0)
    with tk.GradientTape() as tape:
        tape.watch(x)
        with tk.GradientTape() as tape2:
            tape2.watch(x)
            y = x * x
        dy_dx = tape2.gradient(y, x)
    assert (dy_dx.numpy(), tape.gradient(dy_dx, x).numpy()) == (6.0, 2.0)
