"""tk.widgets: interactive views of the tape for notebooks (ipywidgets 8).

    tk.widgets.BackpropStepper(tape, loss, [w, b])   # step through the backward pass
    tk.widgets.NodeInspector(tape, loss)             # any node's numbers + a gradient check
    tk.widgets.FunctionExplorer(lambda x: tk.sin(x) * x, x_range=(-3, 3))
    tk.widgets.GraphView.from_tape(tape, loss)        # the graph: hover, click, arrow keys
    tk.widgets.explore(tape, loss, [w, b])           # that graph beside a NodeInspector it drives
    for step in (mon := tk.widgets.TrainingMonitor(range(100))): ...; mon.log(loss=loss)

Each view is thin over a plain-Python model in `tapekit.widgets.models`
(BackpropModel, InspectorModel, ExplorerModel, TrainingLog), which scripts and tests
can drive without ipywidgets. ipywidgets is imported only when a view is first used
(module __getattr__ below), matplotlib (`tapekit.widgets.plots`) only when a picture is
drawn. The stepper, inspector and explorer are ipywidgets VBoxes:
`ipywidgets.HBox([stepper, inspector])` shows them side by side.

Where no kernel runs, a notebook shows each view's picture: every display bundle holds
image/png of the view's last state beside the widget view (see views.py; one module per view).
"""
from .models import BackpropModel, ExplorerModel, InspectorModel, TrainingLog
from ..namespaces import public_dir

_VIEWS = ("BackpropStepper", "FunctionExplorer", "NodeInspector", "TrainingMonitor",
          "has_widget_frontend")


def __getattr__(name):
    """The views on first use: importing them imports ipywidgets (`import tapekit` does not);
    GraphView also imports anywidget."""
    if name in _VIEWS:
        from . import views
        return getattr(views, name)
    if name == "GraphView":
        from .graph_view import GraphView
        return GraphView
    if name in ("explore", "GraphExplorer"):
        from . import graph_explorer
        return getattr(graph_explorer, name)
    raise AttributeError(f"module 'tapekit.widgets' has no attribute {name!r}")


__all__ = ["BackpropModel", "BackpropStepper", "ExplorerModel", "FunctionExplorer",
           "GraphExplorer", "GraphView", "InspectorModel", "NodeInspector", "TrainingLog",
           "TrainingMonitor", "explore", "has_widget_frontend"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
