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
from .explorer import FunctionExplorer, slider_step
from .inspector import NodeInspector
from .monitor import TrainingMonitor, has_widget_frontend
from .stepper import BackpropStepper

# the views, one module each (their shared display is base.Pictured / base.View)
__all__ = ["BackpropStepper", "FunctionExplorer", "NodeInspector", "TrainingMonitor",
           "has_widget_frontend", "slider_step"]
