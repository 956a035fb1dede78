"""Real browser: the widgets' static pictures (untrusted JupyterLab) and the lesson-10 fixes live.

1. A notebook executed by nbclient (widget state stored, as tools/execute_notebooks.py
   does) and opened as shipped, i.e. untrusted and without running it: JupyterLab renders
   only safe mime types, so every widget output must show its image/png, the last state.
2. Lesson 12 after Run All: the explorer's slider holds exactly 2.0 (set_point(2.0) in the
   next cell used to be lost to the slider's grid) and the inspector shows n3 beside n3's
   check result (it showed s0 beside n3's).
"""
import base64
import time

import nbformat
import pytest

from lab_page import KERNEL_READY, open_and_run_all  # tests/ui is on sys.path (rootdir-less prepend import)

pytestmark = [pytest.mark.ui, pytest.mark.timeout(240)]

CELLS = [
    "import numpy as np, tapekit as tk\n"
    "x, w = tk.Variable(2.0, name='x'), tk.Variable(3.0, name='w')\n"
    "with tk.GradientTape(persistent=True) as tape:\n"
    "    y = tk.sin(x * w) + x\n"
    "stepper = tk.widgets.BackpropStepper(tape, y, [x, w], rankdir='LR')\n"
    "stepper",
    "stepper.go_to(-1).node",
    "insp = tk.widgets.NodeInspector(tape, y)\n"
    "insp",
    "print(insp.check('n1'))",
    "explorer = tk.widgets.FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)\n"
    "explorer",
    "print(explorer.set_point(2.0)['x'])",
    "for k in (mon := tk.widgets.TrainingMonitor(range(30), title='fit')):\n"
    "    mon.log(loss=1.0 / (k + 1))",
]


def _executed_notebook(path):
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    NotebookClient(nb, timeout=60, kernel_name="python3", store_widget_state=True).execute()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)
    return [base64.b64decode(o.data["image/png"]) for c in nb.cells for o in c.outputs
            if "image/png" in o.get("data", {})]


def test_untrusted_notebook_shows_each_widgets_last_picture(lab_server, page, screenshot_dir):
    base, token, root = lab_server
    pngs = _executed_notebook(root / "widgets_static.ipynb")
    assert len(pngs) == 4                               # stepper, inspector, explorer, monitor
    page.goto(f"{base}/lab/tree/widgets_static.ipynb?reset&token={token}")   # reset: no tabs of other tests
    page.wait_for_function(KERNEL_READY, timeout=90_000, polling=100)
    # the picture inside the HTML that carries it with its alt text (display/picture.py)
    shown = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output img.tapekit-picture"
    imgs = page.locator(shown)
    page.wait_for_function(f"() => document.querySelectorAll({shown!r}).length >= 4")
    assert imgs.count() == 4
    for k in range(4):
        img = imgs.nth(k)
        img.scroll_into_view_if_needed()
        assert img.evaluate("e => e.complete && e.naturalWidth > 0")   # decoded by the browser
        src = img.get_attribute("src")
        assert base64.b64decode(src.split(",", 1)[1]) == pngs[k]       # the stored final picture
        assert img.get_attribute("alt")                                  # with its words
    assert page.locator("text=Error displaying widget").count() == 0
    assert page.locator(".jp-OutputArea-output .widget-slider").count() == 0   # no live widgets
    page.screenshot(path=str(screenshot_dir / "widgets-static-untrusted.png"), full_page=True)


def test_lesson10_explorer_holds_2_and_inspector_agrees(lab_server, page, screenshot_dir):
    base, token, _ = lab_server
    t0 = time.monotonic()
    open_and_run_all(page, base, token, "02b_finite_differences.ipynb")

    insp = page.locator(".tk-node-inspector").first
    insp.scroll_into_view_if_needed()
    insp.wait_for()
    page.wait_for_function("""() => {
        const i = document.querySelector('.tk-node-inspector');
        return i && i.querySelector('select')?.value !== undefined &&
               i.innerText.includes('n3: OK');
    }""", timeout=30_000)
    select = insp.locator("select").first
    label = select.evaluate("s => s.options[s.selectedIndex].text")
    assert label.startswith("n3:"), label                 # the node whose check is shown
    assert "subtract" in insp.locator(".tk-node-details").inner_text()

    fe = page.locator(".tk-function-explorer").first
    fe.scroll_into_view_if_needed()
    fe.wait_for()
    slider = fe.get_by_role("slider", name="x")           # a named range input (controls.py)
    page.wait_for_function(
        "() => document.querySelector('.tk-function-explorer input[type=range]')?.value === '2'")
    assert float(slider.input_value()) == 2.0
    assert fe.locator(".tk-slider-readout").first.inner_text().strip() == "2.00"
    assert "f(x) = <b>1.8186</b>" in fe.locator(".tk-readout").evaluate("e => e.outerHTML") \
        or "1.8186" in fe.locator(".tk-readout").inner_text()
    fe.screenshot(path=str(screenshot_dir / "explorer-live.png"))
    insp.screenshot(path=str(screenshot_dir / "inspector-live.png"))
    print(f"lesson 12 widgets UI test body {time.monotonic() - t0:.1f}s")
