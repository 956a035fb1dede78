"""NodeInspector: any node's numbers and a finite-difference check of its gradient.

Its list is a labelled <select> ("node"), its details a table with header cells, and a polite
live region says each node chosen and each check's result.
"""
import ipywidgets as w

from ..display import dot as _dot
from ..display import graph as _graph
from ..display.describe import Description, describe_model
from ..display.format import args_text, summary
from ..display.options import OPTIONS
from . import controls, plots
from .base import error_html, esc, text_output, View
from .models import InspectorModel


class NodeInspector(View):
    """Choose a node of a tape to see its op, inputs, shape, dtype, value and gradient.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> insp = tk.widgets.NodeInspector(tape, y, [x])
    >>> print(insp.model.check("n0"))     # finite-difference check of n0's gradient
    n0: OK. tape gradient 2.0; central differences 2.0; ...
    """

    MAX_OPTIONS = 200   # a larger tape's chooser lists this many nodes and a search box finds the rest

    def __init__(self, tape, target=None, sources=None):
        self.error = None
        try:
            self.model = InspectorModel(tape, target, sources)
            ids = self.model.node_ids
        except (ValueError, TypeError, KeyError) as e:
            self.model, ids, self.error = None, [], str(e)
        self.search = self.found = None
        if len(ids) > self.MAX_OPTIONS:
            # 100,000 options took the browser and the kernel seconds to send and list:
            # offer a bounded list, and a search for any node by id or name.
            self.search = w.Text(description="find", placeholder="n4217, tanh, a name ...",
                                 continuous_update=True)
            self.found = w.HTML()
        first, _ = self.model.find("", self.MAX_OPTIONS) if self.model else ([], 0)
        self.dropdown = w.Dropdown(options=self._options(first), description="node")
        if self.found is not None:
            self._list(self.model.find("", self.MAX_OPTIONS))
        self.details = w.HTML()
        self.check_button = w.Button(description="check gradient", icon="check")
        self.result = w.Output()
        self.live = controls.LiveRegion(shown=False)   # the details show the same numbers
        chooser = [self.dropdown, self.check_button]
        rows = [w.HBox(chooser)] if self.search is None else [
            w.HBox(chooser), w.HBox([self.search, self.found])]
        super().__init__(rows + [self.live, self.details, self.result])
        self.add_class("tk-node-inspector")
        self.last_check = None
        self._picture_model = None
        if self.model is None or not ids:
            self.dropdown.disabled = self.check_button.disabled = True
            self.details.value = error_html(self.error or "Nothing was recorded on this tape.")
            return
        self.dropdown.observe(lambda ch: self._render(), names="value")
        self.check_button.on_click(lambda _: self._check())
        if self.search is not None:
            self.search.observe(lambda ch: self.find(ch["new"]), names="value")
        self._render()

    def _list(self, found):
        """Offer the nodes `found` = (ids, how many matched) in the chooser, at most
        MAX_OPTIONS. The node selected now stays first: ipywidgets selects the first option
        whenever the options change."""
        ids, total = found
        keep = self.dropdown.value
        if keep is not None:
            ids = [keep] + [i for i in ids if i != keep][:self.MAX_OPTIONS - 1]
        self.dropdown.options = self._options(ids)
        if self.found is not None:
            listed = len(ids) - (keep is not None and keep not in found[0])
            matching = "matching " if self.search.value.strip() else ""
            self.found.value = (f'<span class="tk-found">{listed:,} of {total:,} {matching}nodes '
                                f'listed; type an id or a name to find the others</span>'
                                if total > listed else
                                f'<span class="tk-found">{total:,} {matching}nodes</span>')

    def _options(self, ids):
        return [(f"{nid}: {self.model.index.label(nid)}", nid) for nid in ids]

    def find(self, query):
        """List the nodes whose id starts with `query` or whose name contains it (what typing
        in the search box does); the selection stays. Returns the ids listed."""
        if self.model is None:
            return []
        self._list(self.model.find(query, self.MAX_OPTIONS))
        return [v for _, v in self.dropdown.options]

    def _offer(self, node_id):
        """Make sure `node_id` is among the options (a node found by code, or clicked in a
        graph, may not be listed)."""
        if node_id not in self.model.index:
            raise KeyError(f"NodeInspector: no node {node_id!r} on this tape (node ids look "
                           f"like s0, n3)")
        if all(v != node_id for _, v in self.dropdown.options):
            self.dropdown.options = self._options([node_id]) + list(
                self.dropdown.options)[:self.MAX_OPTIONS - 1]

    @property
    def selected(self):
        return self.dropdown.value

    def select(self, node_id):
        self._offer(node_id)
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
            self._offer(node_id)
            self.dropdown.value = node_id
        result = self._check(**kw)
        self._refresh_displays()
        return result

    def _check(self, **kw):
        result = self.model.check(self.selected, **kw)
        self.last_check = result
        self.result.outputs = (text_output(str(result)),)
        self.live.text = str(result).splitlines()[0]
        return result

    def _render(self):
        info = self.node()
        self.last_check = None          # a result belongs to the node it was computed for
        self.result.outputs = (text_output("note: " + self.model.message),) \
            if self.model.message else ()
        grad = summary(info.grad) if info.grad is not None else "none"
        value = summary(info.value) if info.value is not None else "not kept"
        rows = [("op / name", info.op), ("kind", info.kind),
                ("inputs", args_text(info.inputs) or "-"),
                ("shape", "?" if info.shape is None else str(tuple(info.shape))),
                ("dtype", info.dtype or "?"), ("value", value),
                (f"gradient (d {self.model.target_node or 'target'} / d {info.id})", grad)]
        self.details.value = ('<table class="tk-node-details" style="font-family:sans-serif">'
                              + "".join(f"<tr><th scope='row' style='text-align:left'>{esc(k)}</th>"
                                        f"<td><code>{esc(v)}</code></td></tr>" for k, v in rows)
                              + "</table>")
        self.live.text = self.node_sentence()

    def node_sentence(self):
        """The selected node in one sentence: its op, inputs, value and gradient."""
        info = self.node()
        parts = [f"{info.id}: {info.op}" + (f" of {', '.join(info.inputs)}" if info.inputs else "")]
        if info.value is not None:
            parts.append(f"value {summary(info.value)}")
        parts.append(f"gradient {summary(info.grad)}" if info.grad is not None else "no gradient")
        return "; ".join(parts) + "."

    def text(self):
        if self.model is None or not self.model.node_ids:
            return f"NodeInspector: {self.error or 'nothing recorded'}"
        text = f"NodeInspector ({len(self.model.node_ids)} nodes)\n{self.node()}"
        if self.last_check is not None:
            text += f"\ncheck: {self.last_check}"
        return text

    def describe(self):
        """The inspector's picture in words (a Description): the selected node, its check, and
        the graph with that node marked."""
        if self.model is None or not self.model.node_ids:
            return Description(self.text())
        info = self.node()
        value = summary(info.value) if info.value is not None else "not kept"
        grad = summary(info.grad) if info.grad is not None else "none"
        name = (f"The tape's graph with node {info.id} ({info.op}) selected: value {value}, "
                f"gradient {grad}.")
        check = (f"Gradient check: {self.last_check}",) if self.last_check is not None else ()
        target = self.model.target_node or "the target"
        shown = self._shown()
        graph = describe_model(shown, grads=self.model.grads,
                               highlight=shown.shown_as(self.selected), highlight_word="selected",
                               grads_are=f"d {target} / d node, for each node")
        return Description(name, intro=check + graph.intro, items=graph.items,
                           outro=graph.outro)

    def _shown(self):
        """The graph the picture and its words show: the tape's own picture, summarised past
        max_nodes (made once)."""
        if self._picture_model is None:
            self._picture_model = _graph.build(self.model.snapshot, max_nodes=OPTIONS["max_nodes"])
        return self._picture_model

    def _state_key(self):
        return None if self.model is None else (self.selected, str(self.last_check))

    def picture(self):
        """PNG of the selected node: the graph with it highlighted, its numbers, its check."""
        if self.model is None or not self.model.node_ids:
            return None
        shown = self._shown()
        try:
            graph = _dot.to_digraph(shown, highlight=shown.shown_as(self.selected),
                                    grads=self.model.grads,
                                    highlight_word="selected").pipe(format="png", quiet=True)
        except Exception:  # noqa: BLE001 - no `dot`: the numbers alone
            graph = None
        return plots.text_panel_png(plots.wrap(self.text()), image=graph)


