"""tapekit.widgets.explorer: the FunctionExplorer's sliders (on a grid that holds their points
exactly), readout and plot, for one and two inputs and a function that fails."""

import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
import tapekit as tk  # noqa: E402
from tapekit.widgets import FunctionExplorer, plots  # noqa: E402
from tapekit.widgets.explorer import slider_step  # noqa: E402

from .shared import png, png_out  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_widgets")   # recording on; widgets closed after


def test_function_explorer_slider_updates_plot():
    fe = FunctionExplorer(lambda x: tk.sin(x) * x, x_range=(-3, 3), x=0.0)
    png0 = png_out(fe.plot)
    assert png0.startswith(b"\x89PNG")
    assert "f'(x) = <b>0.0</b>" in fe.readout.value
    fe.x_slider.value = 1.0
    png1 = png_out(fe.plot)
    assert png1 != png0
    assert f"f'(x) = <b>{tk.display.format.number(np.cos(1) + np.sin(1))}</b>" in fe.readout.value
    assert fe.set_point(-1.0)["x"] == -1.0 and fe.x_slider.value == -1.0
    # deterministic: the same function at the same point gives the same picture
    again = FunctionExplorer(lambda x: tk.sin(x) * x, (-3, 3), x=0.0)
    again.set_point(1.0)
    assert again.picture() == png1
    assert fe._repr_mimebundle_()["text/plain"].startswith("FunctionExplorer: f(-1.0) = 0.8415")


def test_function_explorer_two_inputs_and_bad_function():
    fe = FunctionExplorer(lambda x, y: x * x + 3 * y, (-1, 1), (-2, 2), samples=9)
    assert fe.y_slider is not None
    png0 = png_out(fe.plot)
    fe.y_slider.value = 1.0
    assert "df/dy = <b>3.0</b>" in fe.readout.value and png_out(fe.plot) != png0
    assert png(fe._repr_mimebundle_()) == png_out(fe.plot)
    bad = FunctionExplorer(lambda x: tk.stack([x, x]), (-1, 1))
    assert "must return one number" in bad.readout.value and bad.x_slider.disabled
    assert bad.plot.outputs == ()
    assert "image/png" in bad._repr_mimebundle_()               # a picture of the error


def test_slider_step_holds_the_points():
    assert slider_step(-4.0, 4.0, [1.0]) == 0.05       # (hi-lo)/100 = 0.08 does not hold 1.0
    assert slider_step(-3.0, 3.0, [0.0]) == 0.05
    assert slider_step(0.0, 1.0, [0.123]) == 0.001
    assert slider_step(-4.0, 4.0, [np.pi]) is None     # no round grid: any value
    for lo, hi, pts in [(-4, 4, [1.0, 2.0]), (-1, 2, [0.3]), (0.5, 7.25, [1.75, 3.0])]:
        step = slider_step(lo, hi, pts)
        for v in pts:
            k = (v - lo) / step
            assert abs(k - round(k)) < 1e-9


def test_explorer_slider_holds_set_points_exactly():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    assert fe.x_slider.value == 1.0 and fe.x_slider.step == 0.05
    for v in (1.0, 2.0, -0.35):
        assert fe.set_point(v)["x"] == v
        assert fe.x_slider.value == v and fe.model.x == v
        k = (v - fe.x_slider.min) / fe.x_slider.step
        assert abs(k - round(k)) < 1e-9                 # on the browser's grid: no snapping
    fe.set_point(np.pi)                                 # off every round grid: step None
    assert fe.x_slider.step is None and fe.x_slider.value == np.pi
    assert fe.set_point(9.0)["x"] == 4.0                # clipped to the range


def test_explorer_picture_is_the_same_however_the_point_was_reached():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    at1 = fe.picture()
    fe.set_point(-3.5)
    fe.set_point(2.0)
    moved = fe.picture()
    fresh = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=2.0).picture()
    assert moved == fresh != at1
    assert plots.explorer_png(fe.model) == moved          # a new figure draws the same bytes
    fe._png_cache.clear()
    fe.set_point(1.0)
    assert fe.picture() == at1


def test_the_plot_says_what_it_shows_and_each_move_is_said():
    """Issue 46: the plot's alt text (and description) say the curves and the point; the
    sliders are named; the live region says each move."""
    fe = FunctionExplorer(lambda x: x * x, x_range=(-2, 2), x=1.0)
    words = fe.describe()
    assert words.name == ("Plot of f (solid blue), f' from the tape (orange) and f'' from nested "
                          "tapes (dashed green) for x from -2.0 to 2.0; at x = 1.0: f = 1.0, "
                          "f' = 2.0, f'' = 2.0; the dotted red line is the tangent there, of slope f'.")
    # x^2 on [-2, 2]: lowest 0 at 0, highest 4 at the ends; 2x from -4 to 4; 2 everywhere
    assert words.intro[0] == "f goes from 0.0 at x = 0.0 (its lowest) to 4.0 at x = -2.0 (its highest)."
    assert words.intro[1].startswith("f' (tape) goes from -4.0 at x = -2.0")
    assert fe.live.text == "x = 1.0: f = 1.0, f' = 2.0, f'' = 2.0" and fe.live.shown is False
    assert fe.x_slider.description == "x" and fe.x_slider.value_text == "x = 1.0"
    fe.x_slider.value = -0.5
    assert fe.live.text == "x = -0.5: f = 0.25, f' = -1.0, f'' = 2.0"
    (out,) = fe.plot.outputs                    # the picture inside the live widget has alt too
    assert 'alt="Plot of f (solid blue)' in out["data"]["text/html"] and "x = -0.5" in out["data"]["text/html"]
    two = FunctionExplorer(lambda x, y: x * x + 3 * y, (-1, 1), (-2, 2), samples=5)
    assert two.describe().name.startswith("Heat map of f(x, y) for x from -1.0 to 1.0 and y from -2.0 to 2.0")
    assert "df/dy = 3.0" in two.live.text
