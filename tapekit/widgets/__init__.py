"""tk.widgets: interactive views of the tape for notebooks (ipywidgets 8).

    tk.widgets.BackpropStepper(tape, loss, [w, b])   # step through the backward pass
    tk.widgets.NodeInspector(tape, loss)             # any node's numbers + a gradient check
    tk.widgets.FunctionExplorer(lambda x: tk.sin(x) * x, x_range=(-3, 3))
    for step in (mon := tk.widgets.TrainingMonitor(range(100))): ...; mon.log(loss=loss)

Each view is thin over a plain-Python model in `tapekit.widgets.models`
(BackpropModel, InspectorModel, ExplorerModel, TrainingLog), which scripts and tests
can drive without ipywidgets. ipywidgets is imported only when a view is created.
"""
from .models import BackpropModel, ExplorerModel, InspectorModel, TrainingLog
from .views import (BackpropStepper, FunctionExplorer, NodeInspector, TrainingMonitor,
                    has_widget_frontend)

__all__ = ["BackpropModel", "BackpropStepper", "ExplorerModel", "FunctionExplorer",
           "InspectorModel", "NodeInspector", "TrainingLog", "TrainingMonitor",
           "has_widget_frontend"]


def __getattr__(name):  # GraphView imports anywidget (and ipywidgets) on first use only
    if name == "GraphView":
        from .graph_view import GraphView
        return GraphView
    raise AttributeError(f"module 'tapekit.widgets' has no attribute {name!r}")
