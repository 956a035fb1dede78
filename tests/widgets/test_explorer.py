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
