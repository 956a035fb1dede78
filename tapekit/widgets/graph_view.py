"""GraphView: the tape's Graphviz picture as an interactive widget (anywidget).

The kernel renders the SVG once (Graphviz's `dot`); the browser (static/graph_view.js)
adds hover tooltips, click-to-select, highlighting by restyling SVG elements, pan and
zoom, and arrow-key stepping. A keyboard and a screen reader reach all of it: Tab reaches
the graph (its accessible name: `label`, the picture's one-sentence description), the
arrow keys move from node to node and a polite live region says where ("n1: sin of n0;
value 0.1411; gradient 3.0"), Enter or Space selects, Escape leaves; the long description
(`describe()`, the same words as `tape.describe()`) is under the picture. Everything the
browser changes is a synced trait:

    view = tk.widgets.GraphView.from_tape(tape, loss, [w, b])
    view                                   # in a notebook cell
    view.observe(lambda c: print(c.new), names="selected")   # Python follows clicks
    view.current = "n3"                    # move the highlight: no re-render, no `dot`
    ipywidgets.link((view, "selected"), (label, "value"))

Node ids are the display layer's (`n<i>` for record i, `s<k>` for leaves, `b<i>` for
collapsed blocks); in the SVG each node is `<g class="node"><title>n3</title>`.
This module only reads the tape; it never changes how gradients are computed.
"""
import pathlib
import re
from types import MappingProxyType

import anywidget
import traitlets

from ..display import dot as _dot
from ..display import graph as _graph
from ..display import html as _html
from ..display.describe import Description, describe_model
from ..display.format import shape_text, summary
from ..display.options import OPTIONS
from ..display.picture import figure_html

_DEFAULT = object()
STATIC = pathlib.Path(__file__).parent / "static"
_NODE_TITLE = re.compile(r'<g id="[^"]*" class="node[^"]*">\s*<title>([^<]*)</title>')


def svg_node_ids(svg):
    """The node ids of a Graphviz SVG, in document order (the `<title>` of each node group)."""
    return [_unescape(t) for t in _NODE_TITLE.findall(svg or "")]


def _unescape(text):
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&#39;", "'").replace("&amp;", "&"))


def node_summary(node, precision=4):
    """One node of a GraphModel as the short strings the tooltip shows."""
    grad = summary(node.grad, precision) if node.grad is not None else ""
    return {"op": node.label, "kind": node.kind, "shape": shape_text(node.shape),
            "dtype": node.dtype, "value": summary(node.value, precision),
            "grad": grad, "args": ", ".join(node.args), "note": node.note,
            "target": bool(node.is_target)}


def node_sentence(node_id, info):
    """One node's summary (node_summary) as the sentence the live region says; the browser
    makes the same one (static/graph_view.js `sentence`)."""
    if not info:
        return f"{node_id}."
    parts = [f"{node_id}: {info['op']}" + (f" of {info['args']}" if info.get("args") else "")]
    if info.get("value"):
        parts.append(f"value {info['value']}")
    if info.get("grad"):
        parts.append(f"gradient {info['grad']}")
    if info.get("note"):
        parts.append(info["note"])
    return "; ".join(parts) + "."


def with_grads(nodes, grads, precision=4):
    """`nodes` (id -> node_summary) with each node's gradient taken from `grads` (id -> array)."""
    return {node_id: {**info, "grad": summary(grads[node_id], precision)
                      if grads.get(node_id) is not None else ""}
            for node_id, info in nodes.items()}


class GraphView(anywidget.AnyWidget):
    """An interactive picture of a tape: hover, select, highlight, pan/zoom, step with keys.

    Traits (all synced with the browser, all `observe`-able):
    svg: the Graphviz SVG (sent once); nodes: {id: {op, kind, shape, dtype, value, grad, ...}}
    (short strings for the tooltip); order: node ids the arrow keys step through;
    current: the node of the current step ("" for none; must be in `order`);
    selected: the clicked node ("" for none); highlighted: node ids drawn as a path
    (edges between two highlighted nodes are highlighted too); label and description:
    the graph in words (its accessible name, and the long description under it);
    announcement: a line the live region says (a stepper's "step 3 of 7: ..."); narrate:
    whether the browser says each node the keys move to (a stepper says its steps instead).

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> view = tk.widgets.GraphView.from_tape(tape, y, [x])   # needs Graphviz's dot
    >>> view.order                          # the ops, in the order they ran
    ['n0', 'n1']
    >>> view.go_to(-1), view.nodes["n1"]["op"]
    ('n1', 'multiply')
    >>> view.select("s0")["value"]
    '2.0'
    """

    _esm = STATIC / "graph_view.js"
    _css = STATIC / "graph_view.css"

    svg = traitlets.Unicode("").tag(sync=True)
    nodes = traitlets.Dict().tag(sync=True)
    order = traitlets.List(traitlets.Unicode()).tag(sync=True)
    current = traitlets.Unicode("").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    highlighted = traitlets.List(traitlets.Unicode()).tag(sync=True)
    max_height = traitlets.Int(480).tag(sync=True)   # px; taller graphs pan inside the view
    label = traitlets.Unicode("computation graph").tag(sync=True)
    description = traitlets.Dict().tag(sync=True)    # {intro, items, outro}: lists of sentences
    announcement = traitlets.Unicode("").tag(sync=True)
    narrate = traitlets.Bool(True).tag(sync=True)

    def __init__(self, svg="", nodes=None, *, order=None, current="", selected="",
                 highlighted=(), text=None, png=None, description=None, **kwargs):
        self._ids = frozenset()
        self._png = png            # base64 PNG of the graph: what untrusted/static views show
        self._order_pos = {}
        self._text = text
        self._description = description     # a Description of the picture drawn, if known
        if description is not None:
            kwargs.setdefault("label", description.name)
            kwargs.setdefault("description", {"intro": list(description.intro),
                                              "items": list(description.items),
                                              "outro": list(description.outro)})
        super().__init__(svg=svg, nodes=dict(nodes or {}), order=list(order or ()),
                         current=current, selected=selected, highlighted=list(highlighted),
                         **kwargs)
        self._index(None)          # traitlets validates __init__'s values before observers
        self._index_order(None)    # run, so check them once more against the graph
        for trait in ("order", "highlighted"):
            for node_id in getattr(self, trait):
                self._check(trait, node_id)
        self._check("selected", self.selected)
        self._valid_current(type("P", (), {"value": self.current}))

    @classmethod
    def from_tape(cls, tape, target=None, sources=None, *, order="forward", precision=None,
                  rankdir=None, max_nodes=_DEFAULT, grads=None, **kwargs):
        """A view of `tape` (with `target`: the paths to `sources` marked, as `tk.show` does).

        order: "forward" (record order), "backward" (the order backprop visits the ops),
        or a list of node ids. max_nodes: larger graphs are summarised into blocks
        (default: tk.display's option, 100; None: never), because `dot` lays out
        thousands of nodes slowly (a 1,000-op chain: about a second; heavy fan-in: minutes).
        grads: {node id: gradient} to draw and show instead of the tape's last `gradient`
        call ({}: none; the stepper's picture, whose gradients grow step by step).
        """
        precision = OPTIONS["precision"] if precision is None else precision
        rankdir = OPTIONS["rankdir"] if rankdir is None else rankdir
        max_nodes = OPTIONS["max_nodes"] if max_nodes is _DEFAULT else max_nodes
        model = _graph.build(tape, target, sources, max_nodes=max_nodes)
        digraph = _dot.to_digraph(model, rankdir=rankdir, precision=precision, grads=grads)
        svg, png = _dot.to_svg(digraph), _dot.to_png(digraph)
        nodes = {n.id: node_summary(n, precision) for n in model.nodes}
        if grads is not None:
            nodes = with_grads(nodes, grads, precision)
        ops = [n.id for n in model.nodes if n.kind in ("op", "stop_gradient", "block")]
        if isinstance(order, str):
            if order not in ("forward", "backward"):
                raise ValueError(f"GraphView.from_tape: order must be 'forward', 'backward' or "
                                 f"a list of node ids, got {order!r}")
            order = ops if order == "forward" else ops[::-1]
        text = _html.to_text(model, precision=precision)
        given = {} if grads is None else {"grads_are": "those given to this view"}
        words = describe_model(model, precision=precision, grads=grads, **given)
        view = cls(svg, nodes, order=order, text=text, png=png, description=words, **kwargs)
        view.graph_model = model   # what was drawn (the stepper maps records to blocks with it)
        return view

    # --- validation: a typo in a node id is an error, never a silent no-op ---------------
    @traitlets.observe("svg", "nodes")
    def _index(self, change):
        self._ids = frozenset(svg_node_ids(self.svg)) | frozenset(self.nodes)

    @traitlets.observe("order")
    def _index_order(self, change):
        self._order_pos = {node_id: i for i, node_id in enumerate(self.order)}

    def _check(self, trait, node_id):
        if node_id and self._ids and node_id not in self._ids:
            some = ", ".join(sorted(self._ids)[:8])
            raise traitlets.TraitError(f"GraphView.{trait}: no node {node_id!r} in this graph "
                                       f"(node ids look like: {some}, ...)")
        return node_id

    @traitlets.validate("order")
    def _valid_order(self, proposal):
        for node_id in proposal.value:
            self._check("order", node_id)
        return proposal.value

    @traitlets.validate("selected")
    def _valid_selected(self, proposal):
        return self._check("selected", proposal.value)

    @traitlets.validate("highlighted")
    def _valid_highlighted(self, proposal):
        for node_id in proposal.value:
            self._check("highlighted", node_id)
        return proposal.value

    @traitlets.validate("current")
    def _valid_current(self, proposal):
        node_id = proposal.value
        if node_id and self._order_pos and node_id not in self._order_pos:
            self._check("current", node_id)
            raise traitlets.TraitError(f"GraphView.current: {node_id!r} is not in `order` "
                                       f"({len(self.order)} steps); add it to order first")
        return self._check("current", node_id)

    @property
    def node_ids(self):
        """Every node id of this graph (the SVG's and `nodes`'), a frozenset."""
        return self._ids

    @property
    def order_index(self):
        """{node id: its place in `order`}, read-only."""
        return MappingProxyType(self._order_pos)

    # --- stepping (what the arrow keys do in the browser) --------------------------------
    @property
    def position(self):
        """The index of `current` in `order` (None when there is no current step)."""
        return self._order_pos.get(self.current)

    def go_to(self, i):
        """Make step `i` of `order` current (negative counts from the end)."""
        if not self.order:
            raise IndexError("GraphView.go_to: `order` is empty; nothing to step through")
        if not -len(self.order) <= i < len(self.order):
            raise IndexError(f"GraphView.go_to: step {i} is outside 0..{len(self.order) - 1}")
        self.current = self.order[i]
        return self.current

    def step(self, delta=1):
        """Move `current` by `delta` steps along `order`, stopping at either end."""
        pos = self.position
        start = -1 if pos is None and delta > 0 else (len(self.order) if pos is None else pos)
        return self.go_to(min(max(start + delta, 0), len(self.order) - 1))

    def select(self, node_id):
        """Select a node as a click does ("" clears the selection)."""
        self.selected = node_id
        return self.nodes.get(node_id)

    # --- the graph in words ---------------------------------------------------------------
    def describe(self):
        """The picture in words (a Description: `.name`, its alt text, and the long
        description), and what the view marks now: the current, selected and highlighted
        nodes."""
        words = self._description
        if words is None:                  # a view made from an SVG and node summaries
            items = tuple(node_sentence(node_id, info) for node_id, info in self.nodes.items())
            words = Description(f"Graph of {len(self._ids)} nodes.", items=items)
        marks = []
        for what, node_id in (("The current step", self.current), ("Selected", self.selected)):
            if node_id:
                marks.append(f"{what}: {node_sentence(node_id, self.nodes.get(node_id))}")
        if self.highlighted:
            marks.append("Highlighted (drawn with a dotted purple border): "
                         + ", ".join(self.highlighted) + ".")
        return words.with_lines(outro=marks)

    # --- display: the widget, plus a static picture for renderers without a kernel -------
    def text(self):
        head = f"GraphView: {len(self._ids)} nodes"
        marks = [f"{k} {v}" for k, v in (("current", self.current), ("selected", self.selected)) if v]
        head += (" (" + ", ".join(marks) + ")") if marks else ""
        return head + ("\n" + self._text if self._text else "")

    def _repr_mimebundle_(self, **kwargs):
        found = super()._repr_mimebundle_(**kwargs)
        if found is None:
            return None
        data, metadata = found if isinstance(found, tuple) else (found, {})
        data = dict(data)
        data["text/plain"] = self.text()      # not repr(): deterministic for nbval
        if self.svg:
            data["image/svg+xml"] = self.svg
        if self._png:              # JupyterLab shows an untrusted notebook's PNG, not its SVG
            data["image/png"] = self._png
            # the picture with its words, where no widget runs (static/graph_view.js draws
            # the same words in the live view)
            data["text/html"] = figure_html(self._png, self._description or self.describe())
        return data, metadata

    def __repr__(self):
        return self.text()
