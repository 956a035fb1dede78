"""tk.widgets.explore: the graph you can click, beside the NodeInspector it drives.

A click on a node of the GraphView (or `view.graph.selected = "n3"` from Python) opens that
node in the inspector; choosing a node in the inspector's list selects it in the graph.
With `step=True` the graph is a BackpropStepper's: step the backward pass on it and click
any node to inspect it. All are ipywidgets, linked by observers; none changes the tape.
"""
import ipywidgets as w

from .base import Pictured
from .graph_view import GraphView
from .views import BackpropStepper, NodeInspector


class GraphExplorer(Pictured, w.HBox):
    """`tk.widgets.explore`'s view: `.graph` (a GraphView) beside `.inspector` (a NodeInspector).

    Where no kernel runs, its picture is the inspector's: the graph with the selected node
    marked, and that node's numbers.

    >>> x = tk.Variable(3.0, name="x")
    >>> with tk.display.option_context(record=True):
    ...     with tk.GradientTape() as tape:
    ...         y = x * x
    >>> view = tk.widgets.GraphExplorer(tape, y, [x])
    >>> float(view.inspector.select("n0").grad)    # choosing in the inspector ...
    1.0
    >>> view.graph.selected                        # ... selects in the graph
    'n0'
    """

    def __init__(self, tape, target=None, sources=None, *, step=False, **graph_options):
        self.stepper = BackpropStepper(tape, target, sources, **graph_options) if step else None
        if self.stepper is not None and self.stepper.view is not None:
            self.graph = self.stepper.view
        else:
            self.graph = GraphView.from_tape(tape, target, sources, **graph_options)
        self.inspector = NodeInspector(tape, target, sources)
        model = self.inspector.model
        self._known = frozenset(model.node_ids) if model is not None else frozenset()
        super().__init__([self.stepper or self.graph, self.inspector])
        self.add_class("tk-graph-explorer")
        self.graph.observe(self._graph_selected, names="selected")
        self.inspector.dropdown.observe(self._inspector_selected, names="value")

    @property
    def widget(self):
        return self

    def _graph_selected(self, change):
        # summary blocks (b<i>) of a large graph have no inspector entry: nothing to open
        if change.new in self._known and self.inspector.selected != change.new:
            self.inspector.select(change.new)
            self._refresh_displays()

    def _inspector_selected(self, change):
        if change.new in self.graph.nodes and self.graph.selected != change.new:
            self.graph.selected = change.new

    @property
    def error(self):
        return self.inspector.error

    def text(self):
        return self.inspector.text()

    def describe(self):
        """What its picture (the inspector's) shows, in words."""
        return self.inspector.describe()

    def picture(self):
        return self.inspector.picture()

    def _state_key(self):
        return self.inspector._state_key()


def explore(tape, target=None, sources=None, *, step=False, **graph_options):
    """The tape's graph (hover, click, arrow keys) beside a NodeInspector that follows clicks;
    with `step=True`, the graph of a BackpropStepper (`view.stepper`) stepping from `target`.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape(persistent=True) as tape:
    ...         y = tk.sin(x) * x
    >>> view = tk.widgets.explore(tape, y, [x])          # needs Graphviz's dot
    >>> view.graph.selected = "n0"                       # what a click on the sin node does
    >>> view.inspector.selected
    'n0'
    >>> view.inspector.node().op
    'sin'
    >>> view = tk.widgets.explore(tape, y, [x], step=True)
    >>> view.stepper.step().node, view.graph is view.stepper.view
    ('n1', True)
    >>> view.graph.selected = "s0"                       # a click in the stepper's graph
    >>> view.inspector.selected
    's0'
    """
    return GraphExplorer(tape, target, sources, step=step, **graph_options)
