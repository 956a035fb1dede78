"""ipywidgets views over the models in models.py (thin: buttons call model methods).

ipywidgets is imported only when a view is created, so `import tapekit` never needs it.
Output widgets are written by replacing `.outputs` (or `append_stdout`), never with
`with out:` (recipe jupyter-testing.md 2.5/2.7: nbval mismatches, nbclient stalls).
Each view displays as its widget where a widget front end runs, and leaves a
deterministic `text/plain` summary (and an SVG picture) for static renderers.
"""
import html
import re
import sys

import numpy as np

from ..display import dot as _dot
from ..display import graph as _graph
from ..display.format import number, summary
from .models import BackpropModel, ExplorerModel, InspectorModel, TrainingLog


def _widgets():
    import ipywidgets
    return ipywidgets


def _esc(text):
    return html.escape(str(text), quote=True)


def _error_html(message):
    return ('<div class="tk-widget-error" style="color:#a00000;border:1px solid #d08080;'
            'background:#fff0f0;padding:6px;font-family:sans-serif">'
            f'<b>tapekit:</b> {_esc(message)}</div>')


def _svg_output(svg, text):
    """One display_data output holding an SVG picture and its text form."""
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/svg+xml": svg, "text/plain": text}}


def _text_output(text):
    return {"output_type": "stream", "name": "stdout", "text": text if text.endswith("\n") else text + "\n"}


class _View:
    """Shared display: the widget where a front end runs, text (and SVG) elsewhere."""

    widget = None

    def text(self):
        raise NotImplementedError

    def svg(self):
        return None

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {}
        if self.widget is not None:
            data = self.widget._repr_mimebundle_(include=include, exclude=exclude)
            if isinstance(data, tuple):
                data = data[0]
            bundle.update(data or {})
        bundle["text/plain"] = self.text()
        try:
            svg = self.svg()
        except Exception:  # noqa: BLE001 - a static picture is optional (no `dot`, ...)
            svg = None
        if svg:
            bundle["image/svg+xml"] = svg
        return bundle

    def __repr__(self):
        return self.text()

    def close(self):
        if self.widget is not None:
            for w in _walk(self.widget):
                w.close()


def _walk(w):
    yield w
    for c in getattr(w, "children", ()):
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
        w = _widgets()
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
        self.widget = w.VBox([
            w.HBox([self.reset_button, self.prev_button, self.next_button, self.slider]),
            self.graph_out,            # the picture above the panel: wide graphs stay visible
            self.chain,
        ])
        self.widget.add_class("tk-backprop-stepper")
        self.chain.add_class("tk-chain-rule")
        self._svgs = {}
        if self.model is None:
            for b in (self.reset_button, self.prev_button, self.next_button, self.slider):
                b.disabled = True
            self.chain.value = _error_html(self.error)
            return
        self.reset_button.on_click(lambda _: self.reset())
        self.prev_button.on_click(lambda _: self.back())
        self.next_button.on_click(lambda _: self.step())
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
        return self._go(self.position + 1)

    def back(self):
        return self._go(self.position - 1)

    def reset(self):
        return self._go(0)

    def go_to(self, i):
        if self.model is None:
            return None
        n = len(self.model)
        i = int(i) + (n if int(i) < 0 else 0)
        if not 0 <= i < n:
            raise IndexError(f"BackpropStepper.go_to: step {i} out of range 0..{n - 1}")
        return self._go(i)

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
        if self.model is None:
            return None
        pos = self.model.position
        if pos not in self._svgs:
            self._svgs[pos] = _dot.to_svg(self.digraph())
        return self._svgs[pos]

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
        self.chain.value = self.chain_html()
        try:
            out = _svg_output(self.svg(), self.text())
        except Exception as e:  # noqa: BLE001 - no `dot`: the table instead of the picture
            out = _text_output(f"(no picture: {type(e).__name__}: {e})\n" + self.text())
        self.graph_out.outputs = (out,)
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
        w = _widgets()
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
        self.widget = w.VBox([w.HBox([self.dropdown, self.check_button]), self.details,
                              self.result])
        self.widget.add_class("tk-node-inspector")
        if self.model is None or not ids:
            self.dropdown.disabled = self.check_button.disabled = True
            self.details.value = _error_html(self.error or "Nothing was recorded on this tape.")
            return
        if self.model.message:
            self.result.outputs = (_text_output("note: " + self.model.message),)
        self.dropdown.observe(lambda ch: self._render(), names="value")
        self.check_button.on_click(lambda _: self.check())
        self._render()

    @property
    def selected(self):
        return self.dropdown.value

    def select(self, node_id):
        self.dropdown.value = node_id
        return self.node()

    def node(self, node_id=None):
        return self.model.node(node_id or self.selected)

    def check(self, node_id=None, **kw):
        """Finite-difference check of the selected node's gradient (shown below)."""
        result = self.model.check(node_id or self.selected, **kw)
        self.result.outputs = (_text_output(str(result)),)
        return result

    def _render(self):
        info = self.node()
        self.result.outputs = ()
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
        return f"NodeInspector ({len(self.model.node_ids)} nodes)\n{self.node()}"


# --- FunctionExplorer ----------------------------------------------------------------------

W, H, PAD = 480, 300, 40
COLORS = {"f": "#1f77b4", "df": "#ff7f0e", "d2f": "#2ca02c", "tangent": "#d62728"}


def _fmt(v):
    return f"{v:.1f}"


def _css_class(name):
    return "tk-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _plot_svg(series, x_range, point=None, title=""):
    """A small deterministic line plot: series = [(name, xs, ys, color, dash)]."""
    lo, hi = x_range
    finite = np.concatenate([np.asarray(ys, dtype=float)[np.isfinite(ys)] for _, _, ys, _, _ in series
                             if np.size(ys)] or [np.zeros(1)])
    ylo, yhi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if yhi - ylo < 1e-12:
        ylo, yhi = ylo - 1, yhi + 1
    pad = 0.05 * (yhi - ylo)
    ylo, yhi = ylo - pad, yhi + pad

    def sx(x):
        return PAD + (x - lo) / (hi - lo) * (W - 2 * PAD)

    def sy(y):
        return H - PAD - (y - ylo) / (yhi - ylo) * (H - 2 * PAD)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">',
             f'<rect x="0" y="0" width="{W}" height="{H}" fill="white"/>',
             f'<clipPath id="tk-plot-area"><rect x="{PAD}" y="{PAD}" width="{W - 2 * PAD}" '
             f'height="{H - 2 * PAD}"/></clipPath>',
             f'<rect x="{PAD}" y="{PAD}" width="{W - 2 * PAD}" height="{H - 2 * PAD}" '
             f'fill="none" stroke="#999"/>']
    if ylo < 0 < yhi:
        parts.append(f'<line x1="{PAD}" y1="{_fmt(sy(0))}" x2="{W - PAD}" y2="{_fmt(sy(0))}" '
                     f'stroke="#ccc"/>')
    if lo < 0 < hi:
        parts.append(f'<line x1="{_fmt(sx(0))}" y1="{PAD}" x2="{_fmt(sx(0))}" y2="{H - PAD}" '
                     f'stroke="#ccc"/>')
    for v, anchor in ((lo, "start"), (hi, "end")):
        parts.append(f'<text x="{_fmt(sx(v))}" y="{H - PAD + 14}" text-anchor="{anchor}">'
                     f'{_esc(number(v, 2))}</text>')
    for v, y in ((ylo, H - PAD), (yhi, PAD + 10)):
        parts.append(f'<text x="{PAD - 4}" y="{y}" text-anchor="end">{_esc(number(v, 2))}</text>')
    for name, xs, ys, color, dash in series:
        pts, segs = [], []
        for x, y in zip(xs, ys):
            if np.isfinite(y):
                pts.append(f"{_fmt(sx(x))},{_fmt(sy(y))}")
            elif pts:
                segs.append(pts)
                pts = []
        if pts:
            segs.append(pts)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        for seg in segs:
            parts.append(f'<polyline class="{_css_class(name)}" points="{" ".join(seg)}" fill="none" '
                         f'stroke="{color}" stroke-width="2"{extra} clip-path="url(#tk-plot-area)"/>')
    if point is not None and np.isfinite(point[1]):
        parts.append(f'<circle class="tk-point" cx="{_fmt(sx(point[0]))}" cy="{_fmt(sy(point[1]))}" '
                     f'r="4" fill="{COLORS["tangent"]}"/>')
    for k, (name, _, _, color, dash) in enumerate(series):
        y = PAD + 14 + 14 * k
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<line x1="{PAD + 8}" y1="{y - 4}" x2="{PAD + 28}" y2="{y - 4}" '
                     f'stroke="{color}" stroke-width="2"{extra}/>'
                     f'<text x="{PAD + 32}" y="{y}">{_esc(name)}</text>')
    if title:
        parts.append(f'<text x="{W / 2:.1f}" y="16" text-anchor="middle">{_esc(title)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _heatmap_svg(model):
    """f over the grid as coloured cells, the current point and the gradient arrow."""
    g = model.grid
    lo, hi = float(np.nanmin(g)), float(np.nanmax(g))
    span = hi - lo if hi > lo else 1.0
    n = len(model.xs)
    size = W - 2 * PAD
    cell = size / n
    (xlo, xhi), (ylo, yhi) = model.x_range, model.y_range

    def sx(x):
        return PAD + (x - xlo) / (xhi - xlo) * size

    def sy(y):
        return PAD + size - (y - ylo) / (yhi - ylo) * size

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{size + 2 * PAD}" '
             f'font-family="sans-serif" font-size="11">',
             f'<rect x="0" y="0" width="{W}" height="{size + 2 * PAD}" fill="white"/>']
    for i in range(n):
        for j in range(n):
            t = (g[i, j] - lo) / span if np.isfinite(g[i, j]) else 0.0
            r, gg, b = int(255 * t), int(80 + 100 * (1 - abs(2 * t - 1))), int(255 * (1 - t))
            parts.append(f'<rect x="{_fmt(PAD + j * cell)}" y="{_fmt(PAD + size - (i + 1) * cell)}" '
                         f'width="{_fmt(cell + 0.5)}" height="{_fmt(cell + 0.5)}" '
                         f'fill="rgb({r},{gg},{b})"/>')
    p = model.point()
    cx, cy = sx(p["x"]), sy(p["y"])
    norm = float(np.hypot(p["dfdx"], p["dfdy"]))
    parts.append(f'<circle class="tk-point" cx="{_fmt(cx)}" cy="{_fmt(cy)}" r="5" fill="white" '
                 f'stroke="black"/>')
    if norm > 0:
        L = 40.0
        ex, ey = cx + L * p["dfdx"] / norm, cy - L * p["dfdy"] / norm
        parts.append(f'<line class="tk-gradient" x1="{_fmt(cx)}" y1="{_fmt(cy)}" x2="{_fmt(ex)}" '
                     f'y2="{_fmt(ey)}" stroke="black" stroke-width="2"/>'
                     f'<circle cx="{_fmt(ex)}" cy="{_fmt(ey)}" r="3" fill="black"/>')
    parts.append(f'<text x="{W / 2:.1f}" y="16" text-anchor="middle">f(x, y): blue low, red high; '
                 f'arrow: gradient direction</text>')
    parts.append(f'<text x="{PAD}" y="{size + PAD + 14}">x {_esc(number(xlo, 2))} .. '
                 f'{_esc(number(xhi, 2))}, y {_esc(number(ylo, 2))} .. {_esc(number(yhi, 2))}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


class FunctionExplorer(_View):
    """Sliders for the inputs of f and a plot of f, f' (tape) and f'' (nested tapes).

    >>> explorer = tk.widgets.FunctionExplorer(lambda x: tk.sin(x) * x, x_range=(-3, 3))
    >>> explorer.model.set_point(0.0)      # f'' = 2 cos x - x sin x
    {'x': 0.0, 'f': 0.0, 'df': 0.0, 'd2f': 2.0}
    """

    def __init__(self, f, x_range=(-3.0, 3.0), y_range=None, *, x=None, y=None, samples=None):
        w = _widgets()
        self.error = None
        try:
            self.model = ExplorerModel(f, x_range, y_range, x=x, y=y, samples=samples)
        except Exception as e:  # noqa: BLE001 - the user's function may raise anything
            self.model, self.error = None, f"{type(e).__name__}: {e}"
        lo, hi = (self.model.x_range if self.model else (0.0, 1.0))
        step = (hi - lo) / 100
        self.x_slider = w.FloatSlider(value=self.model.x if self.model else lo, min=lo, max=hi,
                                      step=step, description="x", readout_format=".2f")
        sliders = [self.x_slider]
        self.y_slider = None
        if self.model is not None and self.model.two:
            ylo, yhi = self.model.y_range
            self.y_slider = w.FloatSlider(value=self.model.y, min=ylo, max=yhi,
                                          step=(yhi - ylo) / 100, description="y",
                                          readout_format=".2f")
            sliders.append(self.y_slider)
        self.plot = w.Output()
        self.readout = w.HTML()
        self.widget = w.VBox(sliders + [self.readout, self.plot])
        self.widget.add_class("tk-function-explorer")
        if self.model is None:
            for s in sliders:
                s.disabled = True
            self.readout.value = _error_html(self.error)
            return
        for s in sliders:
            s.observe(self._on_slider, names="value")
        self._render()

    def set_point(self, x, y=None):
        if self.model is None:
            return None
        self.x_slider.value = x
        if y is not None and self.y_slider is not None:
            self.y_slider.value = y
        return self.model.point()

    def point(self):
        return self.model.point()

    def tangent(self):
        return self.model.tangent()

    def _on_slider(self, change):
        self.model.set_point(self.x_slider.value,
                             self.y_slider.value if self.y_slider is not None else None)
        self._render()

    def svg(self):
        if self.model is None:
            return None
        m = self.model
        if m.two:
            return _heatmap_svg(m)
        p = m.point()
        (x0, t0), (x1, t1) = m.tangent()
        series = [("f", m.xs, m.fs, COLORS["f"], ""),
                  ("f' (tape)", m.xs, m.dfs, COLORS["df"], ""),
                  ("f'' (nested tapes)", m.xs, m.d2fs, COLORS["d2f"], "5,3"),
                  ("tangent at x", [x0, x1], [t0, t1], COLORS["tangent"], "2,2")]
        return _plot_svg(series, m.x_range, point=(p["x"], p["f"]),
                         title=f"x = {number(p['x'], 2)}")

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
        self.plot.outputs = (_svg_output(self.svg(), self.text()),)


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


class TrainingMonitor(_View):
    """A progress bar and a live loss curve around a training loop (plain text without a front end).

    every: redraw (or print) every `every` steps; mode: "widget", "text" or None (detect).

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

    def __init__(self, iterable=None, total=None, *, every=None, title="training", mode=None,
                 file=None):
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
        self.log_ = TrainingLog()
        self.count = 0
        self._logged_this_step = False
        self._iterating = False
        self.file = file
        self.mode = mode or ("widget" if has_widget_frontend() else "text")
        self.every_draw = every or max(1, (self.total or 50) // 50)
        self.every_print = every or max(1, (self.total or 100) // 10)
        self._shown = False
        self.widget = None
        if self.mode == "widget":
            w = _widgets()
            self.bar = w.IntProgress(value=0, min=0, max=self.total or 1, description=title[:12],
                                     bar_style="info")
            self.label = w.HTML()
            self.curve = w.Output()
            self.note = w.HTML(_error_html(self.message) if self.message else "")
            self.widget = w.VBox([w.HBox([self.bar, self.label]), self.note, self.curve])
            self.widget.add_class("tk-training-monitor")
            self._draw()

    @property
    def log_data(self):
        return self.log_

    def show(self):
        """Display the widget (done automatically when the loop starts)."""
        if self._shown:
            return
        self._shown = True
        if self.mode == "widget":
            from IPython.display import display
            display(self)
        elif self.message:
            print(self.message, file=self.file or sys.stdout)

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
    def _advance(self):
        self.count += 1
        last = self.total is not None and self.count >= self.total
        if self.mode == "widget":
            if last or self.count % self.every_draw == 0:
                self._draw()
        elif last or self.count % self.every_print == 0:
            print(self.line(), file=self.file or sys.stdout)

    def _finish(self):
        if self.mode == "widget":
            self._draw(done=True)
        elif self.count and self.count % self.every_print and not (
                self.total is not None and self.count >= self.total):
            print(self.line(), file=self.file or sys.stdout)   # where the loop stopped

    def _say(self, message):
        if self.mode == "widget":
            self.note.value = _error_html(message)
        else:
            print(message, file=self.file or sys.stdout)

    def line(self):
        """The plain-text progress line (also the widget's text)."""
        head = f"{self.title}: step {self.count}" + (f"/{self.total}" if self.total else "")
        loss = self.log_.last_loss
        parts = [head] + ([f"loss {number(loss)}"] if loss is not None else [])
        for name, norms in self.log_.grad_norms.items():
            parts.append(f"|grad {name}| {number(norms[-1])}")
        return "  ".join(parts)

    def svg(self):
        losses = [(s, l) for s, l in zip(self.log_.steps, self.log_.losses) if l is not None]
        if not losses:
            return None
        xs, ys = zip(*losses)
        series = [("loss", xs, ys, COLORS["f"], "")]
        palette = ["#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
        for k, (name, norms) in enumerate(self.log_.grad_norms.items()):
            if len(norms) == len(xs):
                series.append((f"|grad {name}|", xs, norms, palette[k % len(palette)], "4,2"))
        hi = max(xs[-1], 1) if self.total is None else max(self.total - 1, 1)
        return _plot_svg(series, (0, hi), title=self.title)

    def text(self):
        return self.line() + (f"\n{self.message}" if self.message else "")

    def _draw(self, done=False):
        if self.total:
            self.bar.value = min(self.count, self.total)
        else:
            self.bar.max = max(self.count, 1)
            self.bar.value = self.count
        if done:
            self.bar.bar_style = "success"
        self.label.value = f'<span class="tk-progress">{_esc(self.line())}</span>'
        svg = self.svg()
        if svg:
            self.curve.outputs = (_svg_output(svg, self.line()),)
