"""BackpropStepper: the backward pass one record at a time, on an interactive graph.

The graph is a GraphView, drawn once by Graphviz when the stepper is built, with each
node's value and no gradient: a step moves its highlight (the `current` and `highlighted`
traits restyle the SVG in the browser) and sets the gradients accumulated so far in the
nodes' hover text and the chain-rule table, so stepping costs no `dot` run at any tape size
and the picture never shows a gradient the walk has not reached (nor the tape's last
`gradient` call's). Large tapes get the summarised graph the tape's own display uses: a step
inside a collapsed block highlights the block.

By keyboard alone: Tab reaches the buttons, the step slider (a native range input named
"step", which says "step 3 of 7") and the graph; every step is said in a polite live region,
one sentence ("step 3 of 7: pow (n2) sends 6.0 to x:0 (s0)"), shown above the graph too.
"""
import graphviz
import ipywidgets as w

from ..display import dot as _dot
from ..display.describe import Description, describe_model
from ..display.format import args_text, summary
from ..display.options import OPTIONS
from . import controls, plots
from .base import error_html, esc, View
from .graph_view import GraphView, with_grads
from .models import BackpropModel

_DEFAULT = object()


class BackpropStepper(View):
    """Step through the backward pass: buttons, a slider, the graph and the chain rule.

    `view` is the GraphView of the tape (hover a node for its value and gradient, click to
    select it, arrow keys to step); `link(inspector)` opens each clicked node in a
    NodeInspector.

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
    >>> stepper.view.current, stepper.view.highlighted        # what the graph shows now
    ('n1', ['n0', 's0'])
    """

    def __init__(self, tape, target, sources=None, *, rankdir="TB", precision=4,
                 max_nodes=_DEFAULT):
        self.precision = precision
        self.rankdir = rankdir
        self.error = None
        self.inspector = None
        self._rendering = False
        self.model = self.view = None
        try:
            self.model = BackpropModel(tape, target, sources)
            self.view = GraphView.from_tape(
                tape, target, sources, rankdir=rankdir, precision=precision, grads={},
                order=[], max_nodes=OPTIONS["max_nodes"] if max_nodes is _DEFAULT else max_nodes)
        except (ValueError, TypeError) as e:
            self.model, self.error = None, str(e)
        except (graphviz.ExecutableNotFound, graphviz.CalledProcessError, OSError):
            pass   # no `dot`: the steps in numbers, without the graph (as the tape's display)
        n = len(self.model) if self.model else 1
        # In a narrow column the controls wrap onto two rows instead of shrinking (at 700 px
        # the buttons showed only '...' and the slider was a dot).
        def button_layout():
            return w.Layout(width="90px", flex="0 0 auto")
        self.reset_button = w.Button(description="reset", icon="fast-backward", layout=button_layout())
        self.prev_button = w.Button(description="prev", icon="step-backward", layout=button_layout())
        self.next_button = w.Button(description="next", icon="step-forward", layout=button_layout())
        self.slider = controls.IntSlider(value=0, min=0, max=max(n - 1, 0), description="step",
                                         layout=w.Layout(min_width="260px"))
        self.live = controls.LiveRegion()    # each step, said (and shown) in one sentence
        self.chain = w.HTML()
        buttons = w.HBox([self.reset_button, self.prev_button, self.next_button, self.slider],
                         layout=w.Layout(flex_flow="row wrap"))
        graph = self.view if self.view is not None else w.HTML(
            "<pre>(no picture: Graphviz's dot is missing or failed)</pre>")
        super().__init__([buttons, self.live, graph, self.chain])
        self.add_class("tk-backprop-stepper")
        self.chain.add_class("tk-chain-rule")
        if self.model is None:
            for b in (self.reset_button, self.prev_button, self.next_button, self.slider):
                b.disabled = True
            self.chain.value = error_html(self.error)
            return
        # Each node in the picture: its own, or the block a summarised graph put it in.
        shown_as = self.view.graph_model.shown_as if self.view is not None else lambda node: None
        self._in_view = lambda node: shown_as(node) or node
        self._shown = [self._in_view(node)
                       for node in map(self.model.node_at, range(len(self.model)))]
        self.reset_button.on_click(lambda _: self._go(0))
        self.prev_button.on_click(lambda _: self._go(self.position - 1))
        self.next_button.on_click(lambda _: self._go(self.position + 1))
        self.slider.observe(self._on_slider, names="value")
        if self.view is not None:
            self.view.order = list(dict.fromkeys(self._shown))      # arrow keys: the same walk
            self.view.narrate = False        # the live region says the steps, not the nodes
            self.view.observe(self._on_view_current, names="current")
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

    def link(self, inspector):
        """Open every node clicked in this stepper's graph in `inspector` (a NodeInspector)."""
        self.inspector = inspector
        if self.view is None:
            return inspector

        def follow(change):
            if change["new"] and change["new"] in inspector.model.node_ids:
                inspector.select(change["new"])
        self.view.observe(follow, names="selected")
        return inspector

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

    def _on_view_current(self, change):
        """The graph's highlight moved in the browser (arrow keys: one place along `order`):
        take one step that way. Set from code to another node: go to that node's first step."""
        new, old = change["new"], change["old"]
        if self._rendering or not new:
            return
        order = self.view.order_index
        if old in order and new in order and abs(order[new] - order[old]) == 1:
            self._go(self.position + (1 if order[new] > order[old] else -1))
        else:
            self._go(self._shown.index(new))
        if self.view.current != self._shown[self.position]:   # a step that stays on one node
            self._render()

    # --- rendering -----------------------------------------------------------------
    def svg(self):
        """The graph's SVG, drawn once (the current step is a highlight on it); None where
        there is no picture (Graphviz's `dot` missing or failing)."""
        return (self.view.svg or None) if self.view is not None else None

    def _state_key(self):
        return self.position

    def picture(self):
        """PNG of the current step, for views where no kernel runs: the graph with the current
        node marked and the gradients accumulated so far, above the chain rule in numbers.
        (A `dot` run per picture; the live widget steps without one.)"""
        if self.model is None:
            return None
        graph = None
        if self.view is not None:
            shown = self.view.node_ids
            grads = {k: v for k, v in self.model.grads_so_far.items() if k in shown}
            digraph = _dot.to_digraph(self.view.graph_model, rankdir=self.rankdir,
                                      precision=self.precision,
                                      highlight=self._shown[self.model.position], grads=grads)
            try:
                graph = digraph.pipe(format="png", quiet=True)
            except (graphviz.ExecutableNotFound, graphviz.CalledProcessError, OSError):
                graph = None
        return plots.text_panel_png(plots.wrap(self.text()), image=graph)

    def announcement(self):
        """The current step in one sentence, what the live region says: "step 3 of 7: pow (n2)
        sends 6.0 to x:0 (s0)"; at the last step, the sources' gradients too."""
        if self.model is None:
            return ""
        s, n, p = self.model.current, len(self.model) - 1, self.precision
        head = f"step {s.index} of {n}: "
        if s.record is None:
            text = (head + f"the seed: d target / d {s.node} = {summary(s.grad_in, p)}, the "
                    f"target's gradient with respect to itself")
        elif s.contributions:
            sends = [f"{summary(c.sent, p)} to {c.label} ({c.node})" for c in s.contributions]
            sends = ", ".join(sends[:-1]) + " and " + sends[-1] if len(sends) > 1 else sends[0]
            text = head + f"{s.op} ({s.node}) sends {sends}"
        else:
            text = head + f"{s.op} ({s.node}) sends nothing on: no input is on a path to a source"
        if self.model.at_end:
            grads = [f"{self.model.ids[src._tid]} {summary(g, p) if g is not None else 'none'}"
                     for src, g in zip(self.model.sources, self.model.gradients())]
            text += f". Done: the sources' gradients are {', '.join(grads)}"
        return text + "."

    def describe(self):
        """The stepper's picture in words (a Description): the current step in one sentence
        (`name`), the chain rule in numbers, then the graph as it is drawn at this step: the
        current node and the gradients accumulated so far."""
        if self.model is None:
            return Description(self.text())
        chain = tuple(line.strip() for line in str(self.model.current).splitlines())
        name = f"The backward pass at {self.announcement()}"
        if self.view is None:
            return Description(name, intro=chain)
        shown = self.view.node_ids
        graph = describe_model(
            self.view.graph_model, precision=self.precision,
            grads={k: v for k, v in self.model.grads_so_far.items() if k in shown},
            highlight=self._shown[self.model.position],
            grads_are=f"accumulated so far, after step {self.model.position}")
        return Description(name, intro=chain + graph.intro, items=graph.items,
                           outro=graph.outro)

    def chain_html(self):
        """The chain-rule panel of the current step, as HTML with the numbers."""
        s, p = self.model.current, self.precision
        n = len(self.model)

        def f(v):
            return esc(summary(v, p)) if v is not None else "none"

        head = (f'<div style="font-family:sans-serif;font-size:13px;padding:4px 10px">'
                f'<div class="tk-step-title"><b>step {s.index} of {n - 1}</b>: ')
        if s.record is None:
            body = (f'seed at the target <code>{s.node}</code></div>'
                    f'<p>d target / d <code>{s.node}</code> = <b>{f(s.grad_in)}</b> '
                    f'(ones: the target\'s gradient with respect to itself)</p>'
                    f'<p>Press <i>next</i> (or the right arrow key in the graph) to apply the '
                    f'chain rule at the last recorded op.</p>')
        else:
            args = args_text(s.args)
            body = (f'<code>{s.node} = {esc(s.op)}({esc(args)})</code> = {f(s.value)}</div>'
                    f'<p>gradient arriving from above: d target / d <code>{s.node}</code> = '
                    f'<b>{f(s.grad_in)}</b></p>')
            rows = []
            for c in s.contributions:
                if s.elementwise:
                    rule = (f'{f(s.grad_in)} &times; {f(c.local)} = <b>{f(c.sent)}</b>')
                else:
                    rule = f'vjp(g) = <b>{f(c.sent)}</b> <small>(vjp of ones: {f(c.local)})</small>'
                rows.append(f'<tr><td><code>{c.node}</code> {esc(c.label)}</td>'
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
        # The graph's highlight first, then the panel: the browser applies the updates in
        # this order, so once the panel says "step k" the graph shows step k too.
        if self.view is not None:
            step = self.model.current
            receiving = (self._in_view(c.node) for c in step.contributions)
            self._rendering = True
            try:
                with self.view.hold_sync():
                    # the hover texts: each node's gradient as accumulated at this step
                    self.view.nodes = with_grads(self.view.nodes, self.model.grads_so_far,
                                                 self.precision)
                    self.view.current = self._shown[self.model.position]
                    self.view.highlighted = [n for n in dict.fromkeys(receiving)
                                             if n in self.view.node_ids]
            finally:
                self._rendering = False
        self.chain.value = self.chain_html()
        said = self.announcement()
        self.slider.value_text = f"step {self.model.position} of {len(self.model) - 1}"
        self.live.text = said
        self.prev_button.disabled = self.model.position == 0
        self.next_button.disabled = self.model.at_end
