"""The views' own small controls, made so that a screen reader and a keyboard can use them.

- `IntSlider`, `FloatSlider`: a labelled native range input (`<label>step <input
  type="range">`) and its readout. ipywidgets' sliders (noUiSlider) draw a handle with
  role="slider" and no accessible name (axe: aria-input-field-name, serious); a native range
  input is named by its label, moved by the arrow keys, Home and End, and says its value
  (`value_text`, e.g. "step 3 of 7") to a screen reader. The traits a view and its tests use
  are ipywidgets' own: value, min, max, step, description, disabled.
- `LiveRegion`: one line of text in a polite live region (role="status"): what a screen
  reader says after each change a view makes ("step 3 of 7: pow (n2) sends 6.0 to x (s0)").
  It is shown too (a sighted student reads the same line), unless the view already shows
  those words another way (`shown=False`).

Both are anywidgets (static/controls.js, static/controls.css): no build step, and their
text is set with textContent (never HTML).
"""
import pathlib

import anywidget
import traitlets

STATIC = pathlib.Path(__file__).parent / "static"


class _Slider(anywidget.AnyWidget):
    _esm = STATIC / "controls.js"
    _css = STATIC / "controls.css"
    _kind = traitlets.Unicode("slider").tag(sync=True)

    description = traitlets.Unicode("").tag(sync=True)      # the label, and so the name
    disabled = traitlets.Bool(False).tag(sync=True)
    value_text = traitlets.Unicode("").tag(sync=True)       # aria-valuetext ("" = the value)
    decimals = traitlets.Int(None, allow_none=True).tag(sync=True)   # readout digits

    def __init__(self, value=0, min=0, max=100, step=1, description="", **kwargs):
        super().__init__(min=min, max=max, step=step, value=value, description=description,
                         **kwargs)

    @traitlets.validate("value")
    def _clamp(self, proposal):          # as ipywidgets' sliders: a value is kept in range
        v = proposal.value
        return self.min if v < self.min else self.max if v > self.max else v

    @traitlets.observe("min", "max")
    def _bounds(self, change):
        if self.value < self.min:
            self.value = self.min
        elif self.value > self.max:
            self.value = self.max

    def __repr__(self):
        return (f"{type(self).__name__}(value={self.value!r}, min={self.min!r}, "
                f"max={self.max!r}, description={self.description!r})")


class IntSlider(_Slider):
    """A labelled slider of whole numbers (the BackpropStepper's step).

    >>> s = tk.widgets.controls.IntSlider(value=2, min=0, max=5, description="step")
    >>> s.value = 9            # kept in range, as ipywidgets' IntSlider keeps it
    >>> s.value
    5
    """

    value = traitlets.CInt(0).tag(sync=True)      # C: 2.0 is 2, as in ipywidgets' IntSlider
    min = traitlets.CInt(0).tag(sync=True)
    max = traitlets.CInt(100).tag(sync=True)
    step = traitlets.CInt(1).tag(sync=True)


class FloatSlider(_Slider):
    """A labelled slider of numbers (the FunctionExplorer's x and y); step None: any value."""

    value = traitlets.CFloat(0.0).tag(sync=True)
    min = traitlets.CFloat(0.0).tag(sync=True)
    max = traitlets.CFloat(1.0).tag(sync=True)
    step = traitlets.Float(0.1, allow_none=True).tag(sync=True)

    def __init__(self, value=0.0, min=0.0, max=1.0, step=0.1, description="", decimals=2,
                 **kwargs):
        super().__init__(value=value, min=min, max=max, step=step, description=description,
                         decimals=decimals, **kwargs)


class LiveRegion(anywidget.AnyWidget):
    """One line a screen reader announces when it changes (role="status", polite), shown
    as text too.

    >>> live = tk.widgets.controls.LiveRegion()
    >>> live.text = "step 1 of 3: multiply (n1) sends 2.0 to n0"
    """

    _esm = STATIC / "controls.js"
    _css = STATIC / "controls.css"
    _kind = traitlets.Unicode("live").tag(sync=True)
    text = traitlets.Unicode("").tag(sync=True)
    shown = traitlets.Bool(True).tag(sync=True)   # False: said, not shown (the view shows it)

    def __repr__(self):
        return f"LiveRegion({self.text!r})"
