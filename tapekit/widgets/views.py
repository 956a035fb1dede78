"""ipywidgets views over the models in models.py (thin: buttons call model methods).

This module imports ipywidgets; `tapekit.widgets` imports it only when a view is first
asked for (`tk.widgets.BackpropStepper`), and matplotlib only when a picture is drawn, so
`import tapekit` needs neither. BackpropStepper, NodeInspector and FunctionExplorer are
ipywidgets VBoxes themselves: `HBox([stepper, inspector])` and `ipywidgets.link` work.
Output widgets are written by replacing `.outputs` (or `append_stdout`), never with
`with out:` (recipe jupyter-testing.md 2.5/2.7: nbval mismatches, nbclient stalls).

What a notebook stores for each view (its display bundle):

- `application/vnd.jupyter.widget-view+json`: the live widget, where a kernel and a widget
  manager run (JupyterLab, Notebook 7, VS Code);
- `image/png`: a picture of the view's current state (the monitor's: its final state, the
  display is updated when the loop ends), for every place without a widget manager:
  nbconvert HTML of a notebook stored without widget state, nbviewer, a docs site, and an
  untrusted notebook in JupyterLab (which shows only safe mime types: png is one);
- `text/plain`: a deterministic summary (what nbval compares; png it skips), as it was
  when the view was displayed: updates keep it, because nbval never sees them.

nbconvert's HTML exporter shows the widget view whenever the notebook stores that
widget's state (`metadata.widgets`), and the view is blank where its widget manager (from
a CDN by default) cannot load; without stored state it takes the picture. So a page built
offline should drop `metadata.widgets` or point `--HTMLExporter.widget_renderer_url` at a
local `@jupyter-widgets/html-manager`.
"""
import html
import sys

import graphviz
import ipywidgets as w
import numpy as np

from ..display import dot as _dot
from ..display import graph as _graph
from ..display.format import number, summary
from . import plots
from .models import BackpropModel, ExplorerModel, InspectorModel, TrainingLog



def _esc(text):
    return html.escape(str(text), quote=True)


def _error_html(message):
    return ('<div class="tk-widget-error" style="color:#a00000;border:1px solid #d08080;'
            'background:#fff0f0;padding:6px;font-family:sans-serif">'
            f'<b>tapekit:</b> {_esc(message)}</div>')


def _svg_output(svg, text):
    """One display_data output holding an SVG picture and its text form (the stepper's graph)."""
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/svg+xml": svg, "text/plain": text}}


def _text_output(text):
    return {"output_type": "stream", "name": "stdout", "text": text if text.endswith("\n") else text + "\n"}


class _Pictured:
    """Shared display: the widget where a front end runs, a PNG and text elsewhere."""

    widget = None       # the ipywidgets object shown (the view itself for a _View)

    def text(self):
        raise NotImplementedError

    def bundle_text(self):
        """The bundle's text/plain (the monitor's stays the same from first to last draw)."""
        return self.text()

    def picture(self):
        """PNG bytes of the current state (None: no picture, e.g. the view failed)."""
        return None

    def _state_key(self):
        """What the picture depends on (None: do not cache)."""
        return None

    def _png(self):
        """The picture, cached per state; a view that failed pictures its error message, so
        every stored bundle has an image/png (the docs site's contract)."""
        key = self._state_key()
        cache = self.__dict__.setdefault("_png_cache", {})
        if key is not None and key in cache:
            return cache[key]
        png = self.picture()
        if png is None and getattr(self, "error", None):
            png = plots.text_panel_png(plots.wrap(self.text()))
        if key is not None:
            if len(cache) > 64:
                cache.clear()
            cache[key] = png
        return png

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {}
        if self.widget is not None:
            data = w.Widget._repr_mimebundle_(self.widget, include=include, exclude=exclude)
            if isinstance(data, tuple):
                data = data[0]
            bundle.update(data or {})
        bundle["text/plain"] = self.bundle_text()
        try:
            png = self._png()
        except Exception:  # noqa: BLE001 - the picture is a fallback: text/plain still says it
            png = None
        if png:
            bundle["image/png"] = plots.png_base64(png)
        return bundle

    # --- the stored picture follows the view ------------------------------------------
    _displays = ()      # [(IPython DisplayHandle, text/plain first shown)]

    def _ipython_display_(self):
        """Display with a display id, so later changes made from code can update the stored
        picture (`explorer.set_point(2.0)` in the next cell: a static page shows x = 2.0).

        IPython calls this for a bare `view` at the end of a cell and for `display(view)`;
        the output is display_data (not execute_result) because only it carries an id.
        """
        from IPython.core.interactiveshell import InteractiveShell
        if not InteractiveShell.initialized():
            print(self.text())
            return
        from IPython.display import display
        bundle = self._repr_mimebundle_()
        handle = display(bundle, raw=True, display_id=True)
        if handle is not None:
            self._displays = list(self._displays) + [(handle, bundle["text/plain"])]

    def _refresh_displays(self):
        """Update every display of this view with its current bundle (image/png above all).

        text/plain stays as it was first shown: nbval compares it and never sees updates
        (it ignores update_display_data), while nbclient and JupyterLab apply them. Only
        changes made from code refresh: a browser drag re-rendering its own output would
        interrupt itself, and JupyterLab does not save widget state anyway.
        """
        if not self._displays:
            return
        bundle = self._repr_mimebundle_()
        for handle, text in self._displays:
            handle.update({**bundle, "text/plain": text}, raw=True)

    def __repr__(self):
        return self.text()


class _View(_Pictured, w.VBox):
    """A view that is an ipywidgets VBox: it goes into HBox/VBox/Tab like any widget."""

    @property
    def widget(self):
        return self

    def close(self):
        """Close the view and every widget inside it (their comms, in a kernel)."""
        for child in list(self.children):
            for c in _walk(child):
                c.close()
        super().close()


def _walk(widget):
    yield widget
    for c in getattr(widget, "children", ()):
        yield from _walk(c)


# --- BackpropStepper -----------------------------------------------------------------------

class BackpropStepper(_View):
    """Step through the backward pass: buttons, a slider, the graph and the chain rule.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> stepper = tk.widgets.BackpropStepper(tape, y, [x])   # a notebook shows it as a widget
    >>> print(stepper.step())                                  # or drive it from code
    step 1: n1 = multiply(n0, s0) = 1.8186
      gradient arriving from above: d target/d n1 = 1.0
      to n0 (sin): 1.0 x local dn1/dn0 = 2.0 -> sends 2.0; n0 has 2.0 so far
      to s0 (x:0): 1.0 x local dn1/ds0 = 0.9093 -> sends 0.9093; s0 has 0.9093 so far
    """

    def __init__(self, tape, target, sources=None, *, rankdir="TB", precision=4):
        self.precision = precision
        self.rankdir = rankdir
        self.error = None
        try:
            self.model = BackpropModel(tape, target, sources)
            self.graph = _graph.build(tape, target, sources)
        except (ValueError, TypeError) as e:
            self.model, self.graph, self.error = None, None, str(e)
        n = len(self.model) if self.model else 1
        self.reset_button = w.Button(description="reset", icon="fast-backward",
                                     layout=w.Layout(width="90px"))
        self.prev_button = w.Button(description="prev", icon="step-backward",
                                    layout=w.Layout(width="90px"))
        self.next_button = w.Button(description="next", icon="step-forward",
                                    layout=w.Layout(width="90px"))
        self.slider = w.IntSlider(value=0, min=0, max=max(n - 1, 0), description="step")
        self.graph_out = w.Output(layout=w.Layout(min_width="260px"))
        self.chain = w.HTML()
        super().__init__([
            w.HBox([self.reset_button, self.prev_button, self.next_button, self.slider]),
            self.graph_out,            # the picture above the panel: wide graphs stay visible
            self.chain,
        ])
        self.add_class("tk-backprop-stepper")
        self.chain.add_class("tk-chain-rule")
        self._svgs = {}
        if self.model is None:
            for b in (self.reset_button, self.prev_button, self.next_button, self.slider):
                b.disabled = True
            self.chain.value = _error_html(self.error)
            return
        self.reset_button.on_click(lambda _: self._go(0))
        self.prev_button.on_click(lambda _: self._go(self.position - 1))
        self.next_button.on_click(lambda _: self._go(self.position + 1))
        self.slider.observe(self._on_slider, names="value")
        self._render()

    # --- the model's methods -------------------------------------------------------
    @property
    def current(self):
        return self.model.current if self.model else None

    @property
    def position(self):
        return self.model.position if self.model else 0

    @property
    def grads_so_far(self):
        return self.model.grads_so_far if self.model else {}

    def step(self):
        return self._moved(self._go(self.position + 1))

    def back(self):
        return self._moved(self._go(self.position - 1))

    def reset(self):
        return self._moved(self._go(0))

    def go_to(self, i):
        if self.model is None:
            return None
        n = len(self.model)
        i = int(i) + (n if int(i) < 0 else 0)
        if not 0 <= i < n:
            raise IndexError(f"BackpropStepper.go_to: step {i} out of range 0..{n - 1}")
        return self._moved(self._go(i))

    def _moved(self, step):
        self._refresh_displays()
        return step

    def _go(self, i):
        if self.model is None:
            return None
        i = min(max(int(i), 0), len(self.model) - 1)
        if self.slider.value == i:
            self.model.go_to(i)
            self._render()
        else:
            self.slider.value = i      # the observer moves the model and re-renders
        return self.current

    def _on_slider(self, change):
        self.model.go_to(change["new"])
        self._render()

    # --- rendering -----------------------------------------------------------------
    def digraph(self):
        """The picture of the current step (graphviz.Digraph)."""
        step = self.model.current
        return _dot.to_digraph(self.graph, rankdir=self.rankdir, precision=self.precision,
                               highlight=step.node, grads=step.grads)

    def svg(self):
        """SVG of the current step; None where there is no picture (a tape without values, or
        Graphviz's `dot` missing or failing): text() stands in, as in the tape's display."""
        if self.model is None:
            return None
        pos = self.model.position
        if pos not in self._svgs:
            try:
                self._svgs[pos] = _dot.to_svg(self.digraph())
            except (graphviz.ExecutableNotFound, graphviz.CalledProcessError, OSError):
                return None
        return self._svgs[pos]

    def _state_key(self):
        return self.position

    def picture(self):
        """PNG of the current step: the graph (Graphviz) above the chain rule in numbers."""
        if self.model is None:
            return None
        try:
            graph = self.digraph().pipe(format="png", quiet=True)
        except Exception:  # noqa: BLE001 - no `dot`: the chain rule alone
            graph = None
        return plots.text_panel_png(plots.wrap(self.text()), image=graph)

    def chain_html(self):
        """The chain-rule panel of the current step, as HTML with the numbers."""
        s, p = self.model.current, self.precision
        n = len(self.model)

        def f(v):
            return _esc(summary(v, p)) if v is not None else "none"

        head = (f'<div style="font-family:sans-serif;font-size:13px;padding:4px 10px">'
                f'<div class="tk-step-title"><b>step {s.index} of {n - 1}</b>: ')
        if s.record is None:
            body = (f'seed at the target <code>{s.node}</code></div>'
                    f'<p>d target / d <code>{s.node}</code> = <b>{f(s.grad_in)}</b> '
                    f'(ones: the target\'s gradient with respect to itself)</p>'
                    f'<p>Press <i>next</i> to apply the chain rule at the last recorded op.</p>')
        else:
            args = ", ".join(s.args)
            body = (f'<code>{s.node} = {_esc(s.op)}({_esc(args)})</code> = {f(s.value)}</div>'
                    f'<p>gradient arriving from above: d target / d <code>{s.node}</code> = '
                    f'<b>{f(s.grad_in)}</b></p>')
            rows = []
            for c in s.contributions:
                if s.elementwise:
                    rule = (f'{f(s.grad_in)} &times; {f(c.local)} = <b>{f(c.sent)}</b>')
                else:
                    rule = f'vjp(g) = <b>{f(c.sent)}</b> <small>(vjp of ones: {f(c.local)})</small>'
                rows.append(f'<tr><td><code>{c.node}</code> {_esc(c.label)}</td>'
                            f'<td>{f(c.local)}</td><td>{rule}</td><td>{f(c.total)}</td></tr>')
            if rows:
                body += ('<table style="border-collapse:collapse" border="1" cellpadding="3">'
                         '<tr><th>to input</th><th>local derivative</th>'
                         '<th>upstream &times; local = sent</th><th>accumulated</th></tr>'
                         + "".join(rows) + '</table>')
            else:
                body += '<p>No input of this op is on a path to a source.</p>'
        if self.model.at_end:
            grads = ", ".join(f'<code>{self.model.ids[src._tid]}</code> {f(g)}'
                              for src, g in zip(self.model.sources, self.model.gradients()))
            body += f'<p><b>done</b>: the sources\' gradients are {grads} (= tape.gradient).</p>'
        return head + body + "</div>"

    def text(self):
        if self.model is None:
            return f"BackpropStepper: {self.error}"
        return (f"BackpropStepper: step {self.model.position} of {len(self.model) - 1}\n"
                f"{self.model.current}")

    def _render(self):
        # The picture first, then the panel: the browser applies the updates in this order,
        # so once the panel says "step k" the graph shows step k too (tests wait on the text).
        svg = self.svg()
        out = (_svg_output(svg, self.text()) if svg is not None else
               _text_output("(no picture: Graphviz's dot is missing or failed)\n" + self.text()))
        self.graph_out.outputs = (out,)
        self.chain.value = self.chain_html()
        self.prev_button.disabled = self.model.position == 0
        self.next_button.disabled = self.model.at_end


# --- NodeInspector -------------------------------------------------------------------------

class NodeInspector(_View):
    """Choose a node of a tape to see its op, inputs, shape, dtype, value and gradient.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> insp = tk.widgets.NodeInspector(tape, y, [x])
    >>> print(insp.model.check("n0"))     # finite-difference check of n0's gradient
    n0: OK. tape gradient 2.0; central differences 2.0; ...
    """

    def __init__(self, tape, target=None, sources=None):
        self.error = None
        try:
            self.model = InspectorModel(tape, target, sources)
            ids = self.model.node_ids
        except (ValueError, TypeError, KeyError) as e:
            self.model, ids, self.error = None, [], str(e)
        options = []
        if self.model:
            for nid in ids:
                n = self.model.graph.node(nid)
                options.append((f"{nid}: {n.label}", nid))
        self.dropdown = w.Dropdown(options=options, description="node")
        self.details = w.HTML()
        self.check_button = w.Button(description="check gradient", icon="check")
        self.result = w.Output()
        super().__init__([w.HBox([self.dropdown, self.check_button]), self.details,
                          self.result])
        self.add_class("tk-node-inspector")
        self.last_check = None
        if self.model is None or not ids:
            self.dropdown.disabled = self.check_button.disabled = True
            self.details.value = _error_html(self.error or "Nothing was recorded on this tape.")
            return
        self.dropdown.observe(lambda ch: self._render(), names="value")
        self.check_button.on_click(lambda _: self._check())
        self._render()

    @property
    def selected(self):
        return self.dropdown.value

    def select(self, node_id):
        self.dropdown.value = node_id
        self._refresh_displays()
        return self.node()

    def node(self, node_id=None):
        return self.model.node(node_id or self.selected)

    def check(self, node_id=None, **kw):
        """Finite-difference check of a node's gradient (default: the selected node).

        Checking another node selects it first: the details and the check result shown
        together are always about the same node (`inspector.check("n3")` after the view
        was displayed on s0 used to leave s0's details beside n3's result).
        """
        if node_id is not None and node_id != self.selected:
            self.dropdown.value = node_id
        result = self._check(**kw)
        self._refresh_displays()
        return result

    def _check(self, **kw):
        result = self.model.check(self.selected, **kw)
        self.last_check = result
        self.result.outputs = (_text_output(str(result)),)
        return result

    def _render(self):
        info = self.node()
        self.last_check = None          # a result belongs to the node it was computed for
        self.result.outputs = (_text_output("note: " + self.model.message),) \
            if self.model.message else ()
        grad = summary(info.grad) if info.grad is not None else "none"
        value = summary(info.value) if info.value is not None else "not kept"
        rows = [("op / name", info.op), ("kind", info.kind),
                ("inputs", ", ".join(info.inputs) or "-"),
                ("shape", "?" if info.shape is None else str(tuple(info.shape))),
                ("dtype", info.dtype or "?"), ("value", value),
                (f"gradient (d {self.model.target_node or 'target'} / d {info.id})", grad)]
        self.details.value = ('<table class="tk-node-details" style="font-family:sans-serif">'
                              + "".join(f"<tr><th style='text-align:left'>{_esc(k)}</th>"
                                        f"<td><code>{_esc(v)}</code></td></tr>" for k, v in rows)
                              + "</table>")

    def text(self):
        if self.model is None or not self.model.node_ids:
            return f"NodeInspector: {self.error or 'nothing recorded'}"
        text = f"NodeInspector ({len(self.model.node_ids)} nodes)\n{self.node()}"
        if self.last_check is not None:
            text += f"\ncheck: {self.last_check}"
        return text

    def _state_key(self):
        return None if self.model is None else (self.selected, str(self.last_check))

    def picture(self):
        """PNG of the selected node: the graph with it highlighted, its numbers, its check."""
        if self.model is None or not self.model.node_ids:
            return None
        try:
            graph = _dot.to_digraph(self.model.graph, highlight=self.selected,
                                    grads=self.model.grads).pipe(format="png", quiet=True)
        except Exception:  # noqa: BLE001 - no `dot`: the numbers alone
            graph = None
        return plots.text_panel_png(plots.wrap(self.text()), image=graph)


# --- FunctionExplorer ----------------------------------------------------------------------

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


class FunctionExplorer(_View):
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
        self.x_slider = w.FloatSlider(value=x0, min=lo, max=hi, step=slider_step(lo, hi, [x0]),
                                      description="x", readout_format=".2f")
        sliders = [self.x_slider]
        self.y_slider = None
        if self.model is not None and self.model.two:
            ylo, yhi = self.model.y_range
            self.y_slider = w.FloatSlider(value=self.model.y, min=ylo, max=yhi,
                                          step=slider_step(ylo, yhi, [self.model.y]),
                                          description="y", readout_format=".2f")
            sliders.append(self.y_slider)
        self.plot = w.Output()
        self.readout = w.HTML()
        super().__init__(sliders + [self.readout, self.plot])
        self.add_class("tk-function-explorer")
        if self.model is None:
            for s in sliders:
                s.disabled = True
            self.readout.value = _error_html(self.error)
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
            self.readout.value = (f'<span class="tk-readout">f = <b>{_esc(number(p["f"]))}</b>, '
                                  f'df/dx = <b>{_esc(number(p["dfdx"]))}</b>, '
                                  f'df/dy = <b>{_esc(number(p["dfdy"]))}</b></span>')
        else:
            self.readout.value = (f'<span class="tk-readout">f(x) = <b>{_esc(number(p["f"]))}</b>, '
                                  f"f'(x) = <b>{_esc(number(p['df']))}</b> (tape), "
                                  f"f''(x) = <b>{_esc(number(p['d2f']))}</b> (nested tapes)</span>")
        self.plot.outputs = (plots.png_output(self._png(), self.text()),)


# --- TrainingMonitor -----------------------------------------------------------------------

def has_widget_frontend():
    """True inside a Jupyter kernel (a front end that can show widgets), False in a terminal.

    >>> tk.widgets.has_widget_frontend()       # True in a Jupyter kernel
    False
    """
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class TrainingMonitor(_Pictured):
    """A progress bar and a live loss curve around a training loop.

    Not a VBox itself, unlike the other views: its `log()` is the training API and would
    hide ipywidgets' own `log` (a logger every widget uses); `mon.widget` is its VBox.

    In Jupyter: a progress bar with rate and time left (tqdm's numbers), the loss curve
    (matplotlib) and, when the loop ends, the final line printed once. The display is
    then updated with the final picture, so a notebook stores the end of the run (not
    step 0) for places without a widget manager. In a terminal: tqdm's bar; written to
    a file or pipe: one plain line every tenth of the run (deterministic, no timings).
    In a loop: `for step in (mon := tk.widgets.TrainingMonitor(range(n))): ...; mon.log(loss=loss)`.

    every: redraw (or print) every `every` steps; mode: "widget", "text" or None (detect);
    yscale: "linear" (from 0) or "log" (losses spanning decades).

    >>> import io
    >>> w = tk.Variable(0.0, name="w")
    >>> opt = tk.optimizers.SGD(learning_rate=0.25)
    >>> with tk.widgets.TrainingMonitor(total=3, file=io.StringIO()) as mon:   # plain text here
    ...     for step in range(3):
    ...         with tk.GradientTape() as tape:
    ...             loss = (w - 2.0) ** 2
    ...         grads = tape.gradient(loss, [w])
    ...         _ = opt.apply_gradients(zip(grads, [w]))
    ...         mon.log(loss=loss, grads=zip(grads, [w]))
    >>> mon.log_.line(total=3)
    'step 3/3  loss 0.25  |grad w:0| 1.0'
    """

    CURVE_INTERVAL = 0.25     # seconds between live redraws of the curve (the last is always drawn)

    def __init__(self, iterable=None, total=None, *, every=None, title="training", mode=None,
                 file=None, yscale="linear"):
        if yscale not in ("linear", "log"):
            raise ValueError(f"TrainingMonitor: yscale must be 'linear' or 'log', got {yscale!r}")
        if mode not in (None, "widget", "text"):
            raise ValueError(f"TrainingMonitor: mode must be 'widget', 'text' or None (detect), "
                             f"got {mode!r}")
        self.iterable = iterable
        self.message = ""
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except TypeError:
                self.message = ("This loop has no length (a generator?), so there is no progress "
                                "bar: pass total=<number of steps>. Counting steps only.")
        if total is None and iterable is None:
            self.message = "No total given: pass total=<number of steps> for a progress bar."
        self.total = None if total is None else int(total)
        self.title = title
        self.yscale = yscale
        self.log_ = TrainingLog()
        self.count = 0
        self._logged_this_step = False
        self._iterating = False
        self._finished = False
        self.file = file
        self.mode = mode or ("widget" if has_widget_frontend() else "text")
        self.every_draw = every or max(1, (self.total or 50) // 50)
        self.every_print = every or max(1, (self.total or 100) // 10)
        self._shown = False
        self._bar = None             # tqdm's terminal bar (text mode on a terminal)
        self._t0 = None
        self._last_curve = None
        self.widget = None
        if self.mode == "widget":
            self.bar = w.IntProgress(value=0, min=0, max=self.total or 1, description=title[:12],
                                     bar_style="info")
            self.label = w.HTML()
            self.curve = w.Output()
            self.note = w.HTML(_error_html(self.message) if self.message else "")
            self.widget = w.VBox([w.HBox([self.bar, self.label]), self.note, self.curve])
            self.widget.add_class("tk-training-monitor")
            self._draw(curve=True)

    @property
    def log_data(self):
        return self.log_

    def close(self):
        """Close the widget and everything inside it (their comms, in a kernel)."""
        if self.widget is not None:
            for c in _walk(self.widget):
                c.close()

    def show(self):
        """Display the widget (done automatically when the loop starts)."""
        if self._shown:
            return
        self._shown = True
        self._t0 = _now()
        if self.mode == "widget":
            self._ipython_display_()        # with a display id: updated when the loop ends
        else:
            if self.message:
                print(self.message, file=self._file())
            if self._on_terminal():           # outside Jupyter: tqdm's bar, on stderr by default
                from tqdm.auto import tqdm
                self._bar = tqdm(total=self.total, desc=self.title, unit="step",
                                 file=self.file or sys.stderr, leave=True)

    # --- loop forms --------------------------------------------------------------------
    def __iter__(self):
        if self.iterable is None:
            raise TypeError("TrainingMonitor: nothing to iterate; use TrainingMonitor(range(n)) or "
                            "`with TrainingMonitor(total=n) as mon:`")
        self.show()
        self._iterating = True
        try:
            for item in self.iterable:
                self._logged_this_step = False
                yield item
                self._advance()
        finally:
            self._iterating = False
            self._finish()

    def __enter__(self):
        self.show()
        return self

    def __exit__(self, *exc):
        self._finish()
        return False

    def __len__(self):
        if self.total is None:
            raise TypeError("TrainingMonitor: no total")
        return self.total

    def log(self, loss=None, grads=None, **kw):
        """Record the loss (and gradient norms) of this step; outside a `for`, also advance."""
        try:
            self.log_.log(loss=loss, grads=grads, step=self.count, **kw)
        except (TypeError, ValueError) as e:
            self._say(f"could not log this step: {e}")
        if self._iterating:
            self._logged_this_step = True
        else:
            self._advance()

    # --- progress ------------------------------------------------------------------------
    def _file(self):
        return self.file or sys.stdout

    def _on_terminal(self):
        isatty = getattr(self.file or sys.stderr, "isatty", None)
        return bool(isatty and isatty())

    def _advance(self):
        self.count += 1
        last = self.total is not None and self.count >= self.total
        if self.mode == "widget":
            if last or self.count % self.every_draw == 0:
                self._draw(curve=last)
        elif self._bar is not None:
            self._bar.update(1)
            if self.log_.last_loss is not None:
                self._bar.set_postfix_str(f"loss {number(self.log_.last_loss)}", refresh=False)
        elif last or self.count % self.every_print == 0:
            print(self.line(), file=self._file())

    def _finish(self):
        if self._finished:
            return
        self._finished = True
        if self.mode == "widget":
            self._draw(done=True, curve=True)
            self._refresh_displays()           # the stored bundle: the final picture
            if self._shown and self.count:
                print(self.line())             # the final numbers, for text-only views too
        elif self._bar is not None:
            self._bar.close()
        elif self.count and self.count % self.every_print and not (
                self.total is not None and self.count >= self.total):
            print(self.line(), file=self._file())   # where the loop stopped

    def _say(self, message):
        if self.mode == "widget":
            self.note.value = _error_html(message)
        elif self._bar is not None:
            self._bar.write(message, file=self.file or sys.stderr)
        else:
            print(message, file=self._file())

    def line(self):
        """The plain-text progress line (also the widget's text)."""
        head = f"{self.title}: step {self.count}" + (f"/{self.total}" if self.total else "")
        loss = self.log_.last_loss
        parts = [head] + ([f"loss {number(loss)}"] if loss is not None else [])
        for name, norms in self.log_.grad_norms.items():
            parts.append(f"|grad {name}| {number(norms[-1])}")
        return "  ".join(parts)

    def timing(self):
        """tqdm's elapsed time, time left and rate ("00:02<00:01, 25.3 step/s"); live only."""
        if self._t0 is None:
            return ""
        from tqdm import tqdm
        return tqdm.format_meter(self.count, self.total, _now() - self._t0, unit="step",
                                 bar_format="{elapsed}<{remaining}, {rate_fmt}")

    def picture(self):
        """PNG of the loss curve and progress so far (matplotlib)."""
        return plots.monitor_png(self.log_, self.total, self.title, self.yscale)

    def text(self):
        return self.line() + (f"\n{self.message}" if self.message else "")

    def bundle_text(self):
        """The same text from the first display to the final update (nbval compares it, and
        it does not see updates); the final numbers are the line printed at the end."""
        steps = f"{self.total} steps" if self.total else "steps counted as they come"
        return f"{self.title}: TrainingMonitor ({steps}; the picture shows the loss curve)"

    def _draw(self, done=False, curve=False):
        if self.total:
            self.bar.value = min(self.count, self.total)
        else:
            self.bar.max = max(self.count, 1)
            self.bar.value = self.count
        if done:
            self.bar.bar_style = "success"
        timing = "" if done else self.timing()     # the stored final state: no timings
        self.label.value = (f'<span class="tk-progress">{_esc(self.line())}</span>'
                            + (f' <span class="tk-timing">[{_esc(timing)}]</span>' if timing
                               else ""))
        now = _now()
        if curve or self._last_curve is None or now - self._last_curve >= self.CURVE_INTERVAL:
            self._last_curve = now
            self.curve.outputs = (plots.png_output(self.picture(), self.line()),)


def _now():
    import time
    return time.perf_counter()
