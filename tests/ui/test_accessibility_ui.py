"""Real browser: a student with a keyboard and a screen reader (issue 46).

- Lesson 2's BackpropStepper by keyboard alone: from the notebook's command mode, j/k to the
  stepper's cell, Tab into it, Space/Enter on "next", the arrow keys on the step slider and in
  the graph; after each step the live region (role="status") says the step in one sentence,
  and the last one the gradients that tape.gradient printed in the lesson.
- A GraphView by keyboard alone: Tab reaches it (role "application", named by the tape's
  describe() sentence), the arrow keys say each node, Enter selects, Escape leaves.
- The words survive where no kernel runs: a shipped lesson opened untrusted in JupyterLab and
  in Notebook 7 names every picture (Playwright's role queries: what a screen reader gets) and
  its "Text description" opens by keyboard onto the nodes in forward order.
Reading the page (document.activeElement, the live region's text) is how the test listens;
every action is a key press.
"""
import re

import pytest

from conftest import NOTEBOOKS  # tests/ui/conftest.py (no package)
from lab_page import open_and_run_all, write_notebook

pytestmark = [pytest.mark.ui, pytest.mark.timeout(300)]

PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
LESSON_2 = "02_the_chain_rule_on_a_graph.ipynb"
FOCUS = """(scope) => { const a = document.activeElement;
  if (!a || !a.closest(scope)) return null;
  return {tag: a.tagName, type: a.type || '', role: a.getAttribute('role') || '',
          name: a.getAttribute('aria-label') || (a.innerText || '').trim().slice(0, 60)}; }"""
ACTIVE_CELL = f"""() => [...document.querySelectorAll('{PANEL} .jp-Notebook .jp-Cell')]
  .findIndex(c => c.classList.contains('jp-mod-active'))"""


def _live(page, scope):
    return page.locator(f"{scope} .tk-live").first.inner_text().strip()


def _command_mode_to_cell(page, selector):
    """Escape to command mode, then j / k until the active cell holds `selector`."""
    target = page.evaluate(f"""() => [...document.querySelectorAll('{PANEL} .jp-Notebook .jp-Cell')]
        .findIndex(c => c.querySelector({selector!r}))""")
    assert target >= 0, f"no cell holds {selector}"
    page.keyboard.press("Escape")
    for _ in range(200):
        here = page.evaluate(ACTIVE_CELL)
        if here == target:
            return
        page.keyboard.press("j" if here < target else "k")
    raise AssertionError("command mode did not reach the cell")


def _tab_until(page, scope, want, most=25):
    """Press Tab until the focus is inside `scope` and `want(focus)` holds; return the focus."""
    for _ in range(most):
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS, scope)
        if focus and want(focus):
            return focus
    raise AssertionError(f"Tab did not reach it in {most} presses (last focus: {focus})")


def _said_after(page, scope, key, before):
    """Press `key`; wait until the live region says something new; return it."""
    page.keyboard.press(key)
    page.wait_for_function("([sel, old]) => { const e = document.querySelector(sel);"
                           " return e && e.innerText.trim() && e.innerText.trim() !== old; }",
                           arg=[f"{scope} .tk-live", before], timeout=30_000)
    return _live(page, scope)


def test_lesson_2_backward_pass_by_keyboard_alone(lab_server, page, screenshot_dir):
    base, token, _ = lab_server
    open_and_run_all(page, base, token, LESSON_2)
    stepper = f"{PANEL} .tk-backprop-stepper"
    page.locator(f"{stepper} .tk-gv g.node").first.wait_for()
    printed = page.locator(f"{PANEL} .jp-OutputArea-output", has_text="by hand:").first.inner_text()
    grads = [float(v) for v in re.search(r"\[([^\]]+)\]", printed).group(1).split(",")]

    # what a screen reader is told the controls are (accessible roles and names)
    box = page.locator(stepper)
    assert box.get_by_role("slider", name="step").count() == 1
    assert box.get_by_role("button", name="next").count() == 1
    graph = box.get_by_role("application", name=re.compile(r"^Graph of a GradientTape"))
    assert graph.count() == 1 and "tanh" in graph.get_attribute("aria-label")
    status = box.get_by_role("status").first
    assert status.get_attribute("aria-live") == "polite"

    _command_mode_to_cell(page, ".tk-backprop-stepper")
    first = _tab_until(page, stepper, lambda f: f["tag"] == "BUTTON")
    assert first["name"].endswith("reset")
    heard = [_live(page, stepper)]
    assert heard[0].startswith("step 0 of 3: the seed: d target / d n2 = 1.0")
    _tab_until(page, stepper, lambda f: f["name"].endswith("next"), most=3)
    heard.append(_said_after(page, stepper, "Space", heard[-1]))            # tanh
    assert re.fullmatch(r"step 1 of 3: tanh \(n2\) sends \S+ to add \(n1\)\.", heard[-1]), heard[-1]
    heard.append(_said_after(page, stepper, "Enter", heard[-1]))            # add
    assert heard[-1].startswith("step 2 of 3: add (n1) sends ")
    focus = _tab_until(page, stepper, lambda f: f["type"] == "range", most=3)
    heard.append(_said_after(page, stepper, "ArrowLeft", heard[-1]))        # back on the slider
    assert heard[-1].startswith("step 1 of 3:")
    focus = _tab_until(page, stepper, lambda f: f["role"] == "application", most=6)
    assert focus["name"].startswith("Graph of a GradientTape")
    heard.append(_said_after(page, stepper, "ArrowRight", heard[-1]))       # the graph steps too
    assert heard[-1].startswith("step 2 of 3:")
    heard.append(_said_after(page, stepper, "End", heard[-1]))              # to the last step
    assert heard[-1].startswith("step 3 of 3: multiply (n0) sends "), heard[-1]
    done = re.search(r"Done: the sources' gradients are s0 (\S+), s1 (\S+), s2 (\S+)\.$", heard[-1])
    assert done, heard[-1]
    assert [float(v) for v in done.groups()] == pytest.approx(grads, rel=1e-3)   # tape.gradient
    page.keyboard.press("Escape")                                          # leave the graph
    assert page.evaluate(FOCUS, f"{stepper} .tk-gv-viewport") is None
    page.locator(stepper).screenshot(path=str(screenshot_dir / "stepper_keyboard.png"))
    print("heard:\n" + "\n".join(heard))


GRAPH = "graph_keyboard_ui.ipynb"
GRAPH_CELLS = [
    "import tapekit as tk\n"
    "tk.display.set_options(record=True)\n"
    "x = tk.Variable(3.0, name='x')\n"
    "with tk.GradientTape(persistent=True) as tape:\n"
    "    y = tk.sin(x) * x\n"
    "tape.gradient(y, x)\n"
    "tk.widgets.GraphView.from_tape(tape, y, [x])",
]


def test_graph_view_by_keyboard_alone(lab_server, page, screenshot_dir):
    base, token, root = lab_server
    write_notebook(root / GRAPH, GRAPH_CELLS)
    open_and_run_all(page, base, token, GRAPH)
    view = f"{PANEL} .tk-gv"
    page.locator(f"{view} g.node").first.wait_for()
    _command_mode_to_cell(page, ".tk-gv")
    focus = _tab_until(page, view, lambda f: f["role"] == "application")
    assert focus["name"] == ("Graph of a GradientTape (persistent): 2 ops (sin and multiply) "
                             "recorded from 1 watched tensor (x:0); the target is n1 (multiply).")
    described = page.locator(f"{view} .tk-gv-viewport").get_attribute("aria-describedby")
    assert "Arrow keys move" in page.locator(f"#{described}").inner_text()
    status = page.locator(f"{view} .tk-gv-status")
    assert status.get_attribute("role") == "status"
    page.keyboard.press("ArrowRight")                         # the first op: sin(3)
    page.wait_for_function("e => e.innerText.startsWith('n0:')", arg=status.element_handle())
    assert status.inner_text() == "n0: sin of s0; value 0.1411; gradient 3.0."
    assert page.locator(f"{view} text.tk-gv-badge-current").text_content() == "current"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("e => e.innerText.startsWith('n1:')", arg=status.element_handle())
    assert status.inner_text() == "n1: multiply of n0, s0; value 0.4234; gradient 1.0."
    page.keyboard.press("Enter")
    page.wait_for_function("e => e.innerText.startsWith('selected n1')", arg=status.element_handle())
    assert page.locator(f"{view} g.node.tk-gv-selected").get_attribute("data-id") == "n1"
    assert page.locator(f"{view} text.tk-gv-badge-selected").count() == 1
    outline = page.locator(f"{view} .tk-gv-viewport").evaluate("e => getComputedStyle(e).outlineStyle")
    assert outline != "none"                                  # focus is visible
    page.locator(view).screenshot(path=str(screenshot_dir / "graph_view_keyboard.png"))
    page.keyboard.press("Escape")                             # leave: the focus is back in Lab
    assert page.evaluate(FOCUS, view) is None
    assert page.evaluate("() => !!document.activeElement?.closest('.jp-NotebookPanel')")
    # the long description is the next stop, and opens by keyboard
    page.locator(f"{view} .tk-gv-viewport").focus()
    _tab_until(page, view, lambda f: f["tag"] == "SUMMARY", most=2)
    page.keyboard.press("Enter")
    items = page.locator(f"{view} .tk-gv-description li").all_inner_texts()
    assert items[0] == "s0: the variable x:0, watched; scalar, float32; value 3.0; gradient -2.8289; a source."
    assert [i.split(":")[0] for i in items] == ["s0", "n0", "n1"]


@pytest.mark.parametrize("front", ["lab", "notebook7"])
def test_shipped_lesson_names_its_pictures_untrusted(lab_server, page, front):
    """Lesson 1 as downloaded (untrusted): JupyterLab's and Notebook 7's sanitizer keep the
    pictures' alt text and descriptions, and a screen reader gets them."""
    import nbformat
    base, token, root = lab_server
    lesson = "01_first_gradients.ipynb"
    stored = nbformat.read(NOTEBOOKS / lesson, as_version=4)
    shown = [c for c in stored.cells      # a solution's outputs are collapsed: not on the page
             if not c.metadata.get("jupyter", {}).get("outputs_hidden")]
    alts = [m.group(1) for c in shown for o in c.get("outputs", [])
            for m in re.finditer(r'<img class="tapekit-picture" alt="([^"]+)"',
                                 "".join(o.get("data", {}).get("text/html", "")))]
    assert alts, "lesson 1 stores no picture with alt text (run `make notebooks`)"
    url = (f"/lab/tree/shipped/{lesson}?reset" if front == "lab" else f"/notebooks/shipped/{lesson}?")
    page.goto(f"{base}{url}&token={token}")
    page.locator(".jp-Notebook .jp-OutputArea-output").first.wait_for(timeout=90_000)
    page.wait_for_timeout(1000)
    area = page.locator(".jp-Notebook").first
    assert area.get_attribute("class") and "jp-mod-trusted" not in (
        page.locator(".jp-OutputArea-output").first.get_attribute("class") or "")   # untrusted
    for alt in alts:
        name = alt.replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&")
        assert area.get_by_role("img", name=name, exact=True).count() >= 1, name
    unnamed = page.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea-output img')]
        .filter(i => !(i.getAttribute('alt') || '').trim()).length""")
    assert unnamed == 0
    summary = area.locator("details.tapekit-description > summary").first
    summary.focus()
    page.keyboard.press("Enter")
    items = area.locator("details.tapekit-description").first.locator("li").all_inner_texts()
    assert items and items[0].startswith("s0: ") and all(re.match(r"[nsb]\d+: ", i) for i in items)
