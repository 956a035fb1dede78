"""A released assignment in JupyterLab, as a student opens it (docs/instructors.md).

The tiny lesson (tests/teach/lesson/99_tiny_lesson.md) is built and released with nbgrader;
the student sees the exercise's text, an empty answer cell and the visible tests, and no
line of the solution or of the hidden tests. After Run All, the first test's message tells
them what is missing (Run All stops there, as JupyterLab does at any error).
Screenshot: tests/ui/output/assignment_released.png.
"""
import shutil
from pathlib import Path

import pytest

from lab_page import KERNEL_READY

pytest.importorskip("nbgrader", reason="the [teach] extra (nbgrader) is not installed")
from tapekit.teach.assignments import build_course  # noqa: E402
from tapekit.teach.grading import generate_release  # noqa: E402

pytestmark = [pytest.mark.ui, pytest.mark.timeout(300)]
TINY = Path(__file__).resolve().parents[1] / "teach" / "lesson" / "99_tiny_lesson.md"

CELL_TEXTS = """() => [...document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')].map(c => ({
  kind: c.classList.contains('jp-CodeCell') ? 'code' : 'markdown',
  input: (c.querySelector('.jp-InputArea-editor .cm-content')
          || c.querySelector('.jp-MarkdownOutput') || c).innerText,
  output: c.querySelector('.jp-OutputArea')?.innerText || ''}))"""


def test_student_sees_the_exercise_and_an_empty_answer_cell(lab_server, page, screenshot_dir,
                                                             tmp_path):
    base, token, root = lab_server
    course = tmp_path / "course"
    (ex,) = build_course([TINY], course, run=False, log=lambda s: None)
    generate_release(course, [ex.name], log=lambda s: None)
    folder = root / "assignment"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(course / "release" / ex.name / f"{ex.name}.ipynb", folder / f"{ex.name}.ipynb")

    # Run All stops at the first failing test (JupyterLab's rule), as it will for a student
    # who has not answered yet: wait for that failure, not for every cell to run.
    page.goto(f"{base}/lab/tree/assignment/{ex.name}.ipynb?reset&token={token}")
    page.wait_for_function(KERNEL_READY, timeout=90_000, polling=100)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    page.wait_for_selector(".jp-OutputArea-output:has-text('AssertionError')", timeout=120_000)
    page.wait_for_function(KERNEL_READY, timeout=90_000, polling=100)
    cells = page.evaluate(CELL_TEXTS)
    page.screenshot(path=str(screenshot_dir / "assignment_released.png"), full_page=True)

    text = "\n".join(c["input"] + "\n" + c["output"] for c in cells)
    flat = " ".join(text.split())
    assert "Exercise of lesson 99" in flat and "store it in `slope`" not in flat, flat
    assert "store it in slope" in flat, "the exercise's text is shown (rendered Markdown)"
    code = [c for c in cells if c["kind"] == "code"]
    answer = [c for c in code if "your code here" in c["input"]]
    assert len(answer) == 1, [c["input"] for c in code]
    assert answer[0]["input"].split() == ex.skeleton.split(), \
        "the answer cell starts as the lesson's exercise cell"
    for line in ex.solution.splitlines() + ["BEGIN SOLUTION", "HIDDEN TESTS", "12.0"]:
        if line.strip():
            assert line.strip() not in text, f"the student sees {line.strip()!r}"
    first_test = code[code.index(answer[0]) + 1]
    assert "AssertionError" in first_test["output"] and "slope is not set: compute the " \
        "derivative with tape.gradient" in " ".join(first_test["output"].split()), first_test
