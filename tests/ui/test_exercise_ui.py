"""A lesson's exercise in JupyterLab, worked as a student works it (issue 47).

The tiny lesson (tests/teach/lesson/99_tiny_lesson.md, with its .md beside the notebook as in
notebooks/) is opened and run. The student types a wrong answer at the end of the exercise
cell and presses Shift+Enter again and again, past the checks and the collapsed solution: the
checks judge the wrong answer, and the solution, which runs after them in a namespace of its
own, does not replace it (a new cell prints the student's value). Run All judges it too. Then
a right answer, with Shift+Enter: the checks pass.
Screenshots: tests/ui/output/exercise_wrong.png, exercise_right.png.
"""
import shutil
from pathlib import Path

import jupytext
import pytest

from lab_page import KERNEL_READY

pytestmark = [pytest.mark.ui, pytest.mark.timeout(300)]
TINY = Path(__file__).resolve().parents[1] / "teach" / "lesson" / "99_tiny_lesson.md"

CELLS = """() => [...document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')].map(c => ({
  code: c.classList.contains('jp-CodeCell'),
  input: c.querySelector('.jp-InputArea-editor .cm-content')?.textContent || '',
  prompt: c.querySelector('.jp-InputArea-prompt')?.textContent.trim() || '',
  output: [...c.querySelectorAll('.jp-OutputArea-output')].map(o => o.textContent).join('\\n')}))"""
EXERCISE = """() => [...document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')]
  .findIndex(c => (c.querySelector('.cm-content')?.textContent || '').includes('# your code here'))"""


def _cells(page):
    return page.evaluate(CELLS)


def _idle(page):
    page.wait_for_function(KERNEL_READY, timeout=90_000, polling=100)


def _edit_exercise(page, text, *, replace):
    """Click into the exercise cell's editor, as a student does, and type `text` at its end
    (replace=True: select the cell's text first, so the typing replaces it)."""
    index = page.evaluate(EXERCISE)
    editor = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(
        index).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a" if replace else "Control+End")
    page.keyboard.insert_text(text)
    return index


def _shift_enter(page, times):
    for _ in range(times):
        page.keyboard.press("Shift+Enter")
        page.wait_for_timeout(300)
    _idle(page)


def _check_outputs(page, index):
    cells = _cells(page)
    return [c["output"] for c in cells[index + 1:index + 3]]   # the tiny lesson's two checks


def test_shift_enter_and_run_all_check_the_students_own_answer(lab_server, page,
                                                                screenshot_dir):
    base, token, root = lab_server
    folder = root / "exercise"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(TINY, folder / TINY.name)       # keep_apart reads the checks from it
    jupytext.write(jupytext.read(TINY), folder / f"{TINY.stem}.ipynb")

    page.goto(f"{base}/lab/tree/exercise/{TINY.stem}.ipynb?reset&token={token}")
    _idle(page)
    # A wrong answer (the slope of x ** 2, not x ** 3), typed below the skeleton.
    index = _edit_exercise(page, "\nslope = tk.constant(4.0)", replace=False)
    page.keyboard.press("Escape")
    # Run the lesson's cells above the exercise first (the imports, keep_apart) ...
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Above Selected Cell')")
    _idle(page)
    # ... then Shift+Enter from the exercise cell, more often than there are cells left.
    _edit_exercise(page, "", replace=False)
    _shift_enter(page, 6)
    first, second = _check_outputs(page, index)
    assert "AssertionError" not in first, first          # the form is right: one number
    assert "AssertionError" in second and "got 4.0" in second, second   # the value is judged
    # the solution ran (Shift+Enter went past it) and the student's slope is still theirs
    page.keyboard.insert_text('print("my slope:", float(slope))')
    _shift_enter(page, 1)
    assert any("my slope: 4.0" in c["output"] for c in _cells(page)), _cells(page)[-3:]
    page.screenshot(path=str(screenshot_dir / "exercise_wrong.png"), full_page=True)

    # Run All: the checks judge the wrong answer again; the solution comes after them.
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    page.wait_for_timeout(1000)
    _idle(page)
    first, second = _check_outputs(page, index)
    assert "AssertionError" in second and "got 4.0" in second, second
    assert any("my slope: 4.0" in c["output"] for c in _cells(page)), _cells(page)[-3:]

    # A right answer replaces the cell's text; Shift+Enter through the checks: they pass.
    _edit_exercise(page, "# your code here\nx = tk.Variable(2.0)\n"
                         "with tk.GradientTape() as tape:\n    f = x ** 3\n"
                         "slope = tape.gradient(f, x)", replace=True)
    _shift_enter(page, 3)
    first, second = _check_outputs(page, index)
    assert "AssertionError" not in first + second, (first, second)
    page.screenshot(path=str(screenshot_dir / "exercise_right.png"), full_page=True)
