"""tapekit.widgets.views and the package: what a notebook stores for each view (a real kernel,
as nbclient runs it), and which imports wait until a view or a picture is first used."""
import base64
import hashlib
import subprocess
import sys

import nbformat
import pytest

import tapekit as tk

from .shared import VIEW, needs_dot  # noqa: E402


def test_the_package_gives_the_views_of_views_py():
    pytest.importorskip("ipywidgets")
    from tapekit.widgets import views
    for name in ("BackpropStepper", "FunctionExplorer", "NodeInspector", "TrainingMonitor",
                 "has_widget_frontend"):
        assert getattr(tk.widgets, name) is getattr(views, name)
    with pytest.raises(AttributeError, match="has no attribute 'Stepper'"):
        tk.widgets.Stepper


@needs_dot
def test_stored_notebook_keeps_final_pictures():
    from nbclient import NotebookClient
    cells = [
        "import hashlib, numpy as np, tapekit as tk\n"
        "mon = None\n"
        "for k in (mon := tk.widgets.TrainingMonitor(range(12), title='fit')):\n"
        "    mon.log(loss=1.0 / (k + 1))",
        "print(hashlib.md5(mon.picture()).hexdigest())",
        "x = tk.Variable(2.0, name='x')\n"
        "with tk.GradientTape(persistent=True) as tape:\n"
        "    y = x * x + x\n"
        "insp = tk.widgets.NodeInspector(tape, y)\n"
        "insp",
        "print(insp.check('n0').input)\n"
        "print(hashlib.md5(insp.picture()).hexdigest())",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    NotebookClient(nb, timeout=60, kernel_name="python3", store_widget_state=True).execute()
    mon_out = [o for o in nb.cells[0].outputs if o.output_type == "display_data"]
    (display,) = mon_out
    assert set(display.data) == {VIEW, "image/png", "text/plain", "text/html"}
    png = base64.b64decode(display.data["image/png"])
    # the stored HTML is the final picture too, with the final words as its alt text
    assert f'base64,{display.data["image/png"]}"' in display.data["text/html"]
    assert 'alt="fit: loss curve, 12 of 12 steps: the loss falls from 1.0 at step 0 to 0.08333 ' \
           'at step 11 (lowest 0.08333, at step 11)."' in display.data["text/html"]

    assert hashlib.md5(png).hexdigest() == nb.cells[1].outputs[0].text.strip()   # the final one
    assert nb.cells[0].outputs[-1].text == "fit: step 12/12  loss 0.08333\n"
    assert "widgets" in nb.metadata                       # the live widget's state, too
    (insp_out,) = nb.cells[2].outputs
    assert set(insp_out.data) == {VIEW, "image/png", "text/plain", "text/html"}


def test_matplotlib_and_tqdm_are_imported_only_when_needed():
    code = ("import sys, tapekit, tapekit.widgets, tapekit.widgets.plots; "
            "print('matplotlib' in sys.modules, 'tqdm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_import_tapekit_widgets_does_not_import_ipywidgets():
    code = ("import sys, tapekit as tk; import tapekit.widgets; "
            "a = 'ipywidgets' in sys.modules; tk.widgets.TrainingMonitor; "
            "print(a, 'ipywidgets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True"


def test_import_tapekit_does_not_import_ipywidgets():
    code = "import sys, tapekit; import tapekit.widgets.models; print('ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
