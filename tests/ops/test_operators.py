"""tapekit/ops/operators.py: Tensor's Python operators run the ops its tables name."""
import operator

import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import operators
from tapekit.tensor import Tensor, Variable

X = np.array([[1.5, -2.0], [3.0, 0.5]], np.float32)
Y = np.array([[0.5, 4.0], [-1.0, 2.0]], np.float32)
PYTHON = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
          "pow": operator.pow, "matmul": operator.matmul, "lt": operator.lt, "le": operator.le,
          "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne,
          "mod": operator.mod, "floordiv": operator.floordiv}


@pytest.mark.parametrize("name", sorted(PYTHON))
def test_each_binary_operator_gives_its_ops_result_both_ways_round(name):
    positive = name == "pow"                       # a negative base to a fraction is NaN
    x = tk.constant(np.abs(X) + 0.5 if positive else X)
    y = tk.constant(np.abs(Y) + 0.5 if positive else Y)
    op = operators.BINARY_OPERATORS[name]
    np.testing.assert_array_equal(PYTHON[name](x, y).numpy(), op(x, y).numpy())
    if name in ("add", "sub", "mul", "truediv", "pow", "matmul", "mod", "floordiv"):
        a = np.abs(Y) + 0.5 if positive else Y      # the array on the left: __r<name>__
        np.testing.assert_array_equal(PYTHON[name](a.tolist(), x).numpy(), op(tk.constant(a), x).numpy())


def test_logical_operators_on_booleans():
    p, q = tk.constant([True, True, False]), tk.constant([True, False, False])
    assert (p & q).numpy().tolist() == [True, False, False]
    assert (p | q).numpy().tolist() == [True, True, False]
    assert (~p).numpy().tolist() == [False, False, True]


def test_operators_are_recorded_and_differentiate_by_hand():
    # f = -(x * y) + |x| / 2 at x = 3, y = -2: df/dx = -y + sign(x) / 2 = 2.5, df/dy = -x = -3
    x, y = tk.Variable(3.0), tk.Variable(-2.0)
    with tk.GradientTape() as tape:
        f = -(x * y) + abs(x) / 2
    gx, gy = tape.gradient(f, [x, y])
    assert float(f) == 7.5 and float(gx) == 2.5 and float(gy) == -3.0


def test_getitem_and_numpy_functions_are_recorded():
    x = tk.Variable([1.0, 2.0, 3.0])
    with tk.GradientTape() as tape:
        y = np.sin(x)[1] + np.sum(x * x)           # dy/dx = [2, cos(2) + 4, 6]
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, [2.0, np.cos(2.0) + 4.0, 6.0], rtol=1e-6)


def test_read_value_is_a_recorded_read_of_the_variable():
    v = tk.Variable(4.0)
    with tk.GradientTape() as tape:
        r = v.read_value()
        y = r * r
    assert isinstance(r, Tensor) and not isinstance(r, Variable)
    assert float(tape.gradient(y, v)) == 8.0


def test_every_method_in_the_tables_is_the_one_on_the_class():
    for (cls, name), fn in operators.METHODS.items():
        assert getattr(cls, name) is fn, (cls.__name__, name)
    for name in operators.BINARY_OPERATORS:
        assert callable(getattr(Tensor, f"__{name}__"))
