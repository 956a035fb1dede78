"""FunctionExplorer: sliders for f's inputs and a plot of f, f' and f'' (matplotlib).

The sliders are named native range inputs (controls.FloatSlider: "x", "y"), the plot's
alt text says what it shows at the point (plots.explorer_description), and each move is said
in a polite live region ("x = 1.0: f = 0.8415, f' = 1.3818, f'' = 0.2391").
"""
import ipywidgets as w
import numpy as np

from ..display.format import number
from . import controls, plots
from .base import error_html, esc, View
from .models import ExplorerModel


def slider_step(lo, hi, points=()):
    """A slider step whose grid lo + k*step holds every value in `points` exactly.

    A browser slider snaps its value to that grid: with (hi - lo)/100 = 0.08 on (-4, 4),
    x=1.0 is not on it and the slider showed (and sent back) 1.04. The step is the largest
    "round" number (1, 2 or 5 times a power of ten) at most (hi - lo)/100 that fits; None
    (any value, no snapping) when no round step down to a millionth of the range fits.
    """
    span = hi - lo
    top = int(np.floor(np.log10(span / 100)))
    for e in range(top, top - 7, -1):
        for m in (5, 2, 1):
            step = m * 10.0 ** e
            if step > span / 100 * (1 + 1e-9):
                continue
            if all(_on_grid(v, lo, step) for v in points):
                return step
    return None


def _on_grid(v, lo, step):
    """v == lo + k*step for a whole k (up to rounding: a billionth of a step)."""
    k = round((v - lo) / step)
    return abs((v - lo) - k * step) <= 1e-9 * step


class FunctionExplorer(View):
    """Sliders for the inputs of f and a plot of f, f' (tape) and f'' (nested tapes).

    >>> explorer = tk.widgets.FunctionExplorer(lambda x: tk.sin(x) * x, x_range=(-3, 3))
    >>> explorer.model.set_point(0.0)      # f'' = 2 cos x - x sin x
    {'x': 0.0, 'f': 0.0, 'df': 0.0, 'd2f': 2.0}

    With two inputs, `tk.widgets.FunctionExplorer(lambda x, y: x**2 + 3*y, (-2, 2), (-2, 2))`
    shows a slider for each. The plot's y-range comes from f, f' and f'' over x_range and
    does not move with the slider; the tangent line is clipped to it. The sliders' grids hold
    the starting point and every point given to `set_point`, so the browser does not round
    them.
    """

    def __init__(self, f, x_range=(-3.0, 3.0), y_range=None, *, x=None, y=None, samples=None):
        self.error = None
        try:
            self.model = ExplorerModel(f, x_range, y_range, x=x, y=y, samples=samples)
        except Exception as e:  # noqa: BLE001 - the user's function may raise anything
            self.model, self.error = None, f"{type(e).__name__}: {e}"
        lo, hi = (self.model.x_range if self.model else (0.0, 1.0))
        x0 = self.model.x if self.model else lo
        self.x_slider = controls.FloatSlider(value=x0, min=lo, max=hi,
                                             step=slider_step(lo, hi, [x0]), description="x")
        sliders = [self.x_slider]
        self.y_slider = None
        if self.model is not None and self.model.two:
            ylo, yhi = self.model.y_range
            self.y_slider = controls.FloatSlider(value=self.model.y, min=ylo, max=yhi,
                                                 step=slider_step(ylo, yhi, [self.model.y]),
                                                 description="y")
            sliders.append(self.y_slider)
        self.plot = w.Output()
        self.readout = w.HTML()
        self.live = controls.LiveRegion(shown=False)   # the readout shows the same numbers
        super().__init__(sliders + [self.readout, self.live, self.plot])
        self.add_class("tk-function-explorer")
        if self.model is None:
            for s in sliders:
                s.disabled = True
            self.readout.value = error_html(self.error)
            return
        for s in sliders:
            s.observe(self._on_slider, names="value")
        self._render()

    def set_point(self, x, y=None):
        """Move the point (what the slider does); the sliders hold x and y exactly."""
        if self.model is None:
            return None
        self._hold(self.x_slider, x)
        if y is not None and self.y_slider is not None:
            self._hold(self.y_slider, y)
        self._refresh_displays()
        return self.model.point()

    @staticmethod
    def _hold(slider, v):
        """Set the slider to v, first refining its step if v is not on its grid."""
        v = float(np.clip(v, slider.min, slider.max))
        if slider.step is not None and not _on_grid(v, slider.min, slider.step):
            slider.step = slider_step(slider.min, slider.max, [slider.value, v])
        slider.value = v

    def point(self):
        return self.model.point()

    def tangent(self):
        return self.model.tangent()

    def _on_slider(self, change):
        self.model.set_point(self.x_slider.value,
                             self.y_slider.value if self.y_slider is not None else None)
        self._render()

    def _state_key(self):
        if self.model is None:
            return None
        return (self.model.x, self.model.y if self.model.two else None)

    def picture(self):
        """PNG of the plot at the current point (matplotlib; one figure reused per view)."""
        if self.model is None:
            return None
        if self.model.two:
            return plots.explorer_png(self.model)
        if getattr(self, "_figure", None) is None:
            self._figure = plots.ExplorerFigure(self.model)
        return self._figure.png()

    def describe(self):
        """The plot in words (a Description: `.name` is its alt text): the curves over the
        range, and the values and tangent at the point."""
        if self.model is None:
            return super().describe()
        return plots.explorer_description(self.model)

    def announcement(self):
        """The point in one sentence, what the live region says after each move."""
        p = self.model.point()
        if self.model.two:
            return (f"x = {number(p['x'])}, y = {number(p['y'])}: f = {number(p['f'])}, "
                    f"df/dx = {number(p['dfdx'])}, df/dy = {number(p['dfdy'])}")
        return (f"x = {number(p['x'])}: f = {number(p['f'])}, f' = {number(p['df'])}, "
                f"f'' = {number(p['d2f'])}")

    def ylim(self):
        """The plot's y-range (the same wherever the point is)."""
        return plots.explorer_ylim(self.model)

    def text(self):
        if self.model is None:
            return f"FunctionExplorer: {self.error}"
        return f"FunctionExplorer: {self.model}"

    def _render(self):
        p = self.model.point()
        if self.model.two:
            self.readout.value = (f'<span class="tk-readout">f = <b>{esc(number(p["f"]))}</b>, '
                                  f'df/dx = <b>{esc(number(p["dfdx"]))}</b>, '
                                  f'df/dy = <b>{esc(number(p["dfdy"]))}</b></span>')
        else:
            self.readout.value = (f'<span class="tk-readout">f(x) = <b>{esc(number(p["f"]))}</b>, '
                                  f"f'(x) = <b>{esc(number(p['df']))}</b> (tape), "
                                  f"f''(x) = <b>{esc(number(p['d2f']))}</b> (nested tapes)</span>")
        self.plot.outputs = (plots.png_output(self._png(), self.text(), self.describe()),)
        self.live.text = self.announcement()
        for s in (self.x_slider, self.y_slider):
            if s is not None:
                s.value_text = f"{s.description} = {number(s.value)}"


