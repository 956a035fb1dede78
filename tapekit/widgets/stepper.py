"""BackpropStepper: the backward pass one record at a time, graph and chain rule in numbers."""
import graphviz
import ipywidgets as w

from ..display import dot as _dot
from ..display import graph as _graph
from ..display.format import summary
from . import plots
from .base import _error_html, _esc, _svg_output, _text_output, _View
from .models import BackpropModel


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


