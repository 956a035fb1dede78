"""tapekit.widgets.models.explorer: f, f' (tape) and f'' (nested tapes) sampled over a range,
against the derivatives worked out by hand; the tangent; two inputs; clear errors."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.widgets.models import ExplorerModel


def test_explorer_one_input():
    m = ExplorerModel(lambda x: tk.sin(x) * x, (-3, 3), samples=31)
    assert m.xs.shape == (31,)
    np.testing.assert_allclose(m.fs, np.sin(m.xs) * m.xs, atol=1e-12)
    np.testing.assert_allclose(m.dfs, np.cos(m.xs) * m.xs + np.sin(m.xs), atol=1e-12)
    np.testing.assert_allclose(m.d2fs, 2 * np.cos(m.xs) - m.xs * np.sin(m.xs), atol=1e-12)
    p = m.set_point(1.0)
    assert p["df"] == pytest.approx(np.cos(1) + np.sin(1))
    (x0, t0), (x1, t1) = m.tangent()
    assert (x0, x1) == (-3.0, 3.0)
    assert (t1 - t0) / 6 == pytest.approx(p["df"])
    assert t0 + (1 - x0) * p["df"] == pytest.approx(p["f"])
    assert m.set_point(99)["x"] == 3.0
    assert str(ExplorerModel(lambda x: 2 * x, (0, 1), x=0.5)) == \
        "f(0.5) = 1.0; f' = 2.0 (tape), f'' = 0.0 (nested tapes)"


def test_explorer_two_inputs_and_errors():
    m = ExplorerModel(lambda x, y: x * x * y + 3 * y, (-1, 1), (-2, 2), x=0.5, y=1.0, samples=5)
    assert m.grid.shape == (5, 5)
    assert m.grid[0, 0] == pytest.approx(1 * -2 + 3 * -2)    # f(xs[0], ys[0])
    p = m.point()
    assert (p["dfdx"], p["dfdy"]) == (pytest.approx(1.0), pytest.approx(3.25))
    with pytest.raises(ValueError, match="one number"):
        ExplorerModel(lambda x: tk.stack([x, x]), (-1, 1))
    with pytest.raises(ValueError, match="low < high"):
        ExplorerModel(lambda x: x, (1, 0))


def test_unconnected_derivatives_are_zero_and_bad_arguments_are_named():
    m = ExplorerModel(lambda x: tk.constant(2.0), (-1, 1), samples=3)   # f does not use x
    assert m.set_point(0.5) == {"x": 0.5, "f": 2.0, "df": 0.0, "d2f": 0.0}
    with pytest.raises(TypeError, match="f must be a function, got int"):
        ExplorerModel(3)
    with pytest.raises(TypeError, match=r"x_range must be two numbers \(low, high\), got 'ab'"):
        ExplorerModel(lambda x: x, "ab")
    with pytest.raises(ValueError, match="floating-point number, got int32"):
        ExplorerModel(lambda x: tk.constant(1), (0, 1))
