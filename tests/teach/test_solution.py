"""tapekit.teach.solution: a lesson's solution cell runs apart from the student's answer (issue
47). In JupyterLab, Shift+Enter from the student's cell ran the collapsed solution next, which
rebound the student's names, and Run All checked the solution's values, never the student's.
Here an IPython shell runs the tiny lesson's cells as a kernel would: the solution no longer
changes a name of the student's, and the lesson's graded checks run on the solution's names.
"""
import shutil
from pathlib import Path

import pytest

pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

from tapekit.teach.exercise import read_exercise  # noqa: E402

TINY = Path(__file__).resolve().parent / "lesson" / "99_tiny_lesson.md"


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)             # the kernel's folder is the notebook's
    shutil.copyfile(TINY, tmp_path / TINY.name)
    InteractiveShell.clear_instance()
    sh = InteractiveShell.instance()
    sh.run_cell("import numpy as np\nimport tapekit as tk", silent=True)
    yield sh
    InteractiveShell.clear_instance()


def _solution_cell():
    ex = read_exercise(TINY)
    return "# Solution\n" + ex.solution


def test_the_solution_keeps_the_students_names_and_passes_the_checks(shell, capfd):
    run = shell.run_cell("import tapekit.teach.solution\n"
                         'tapekit.teach.solution.keep_apart("99_tiny_lesson.md")')
    assert run.success
    shell.run_cell("slope = 5.0   # a wrong answer, typed by the student")
    result = shell.run_cell(_solution_cell())
    assert result.success, result.error_in_exec
    assert shell.user_ns["slope"] == 5.0, "the solution replaced the student's answer"
    assert "x" not in shell.user_ns and "tape" not in shell.user_ns
    out = capfd.readouterr().out
    assert "tk.Tensor(12.0" in out or "12.0" in out                  # the solution's output
    assert "The solution passes the 2 checks above (3 points)" in out
    # the checks still judge the student's answer
    check = read_exercise(TINY).grades[1][0]
    failed = shell.run_cell(check)
    assert isinstance(failed.error_in_exec, AssertionError)


def test_a_solution_that_fails_a_check_says_which(shell):
    shell.run_cell('import tapekit.teach.solution\n'
                   'tapekit.teach.solution.keep_apart("99_tiny_lesson.md")')
    result = shell.run_cell("# Solution\nslope = tk.constant(11.0)")
    assert isinstance(result.error_in_exec, AssertionError)
    assert "the solution fails check 2 of 2" in str(result.error_in_exec)
    assert "slope" not in shell.user_ns


def test_without_keep_apart_a_cell_runs_as_it_is(shell):
    assert shell.run_cell("# Solution\nslope = 1.0").success
    assert shell.user_ns["slope"] == 1.0


def test_the_solutions_functions_have_their_source(shell):
    # lesson 16's check reads clip_global's source (inspect.getsource); tk.function reads it too
    shell.run_cell('import tapekit.teach.solution\n'
                   'tapekit.teach.solution.keep_apart("no_such_lesson.md")')   # no checks: runs apart
    result = shell.run_cell("# Solution\ndef twice(v):\n    return 2 * v\n\n"
                            "import inspect\nsource = inspect.getsource(twice)")
    assert result.success, result.error_in_exec
    assert "twice" not in shell.user_ns


def test_the_solution_starts_from_the_tasks_setup_not_from_what_the_answer_changed(
        shell, tmp_path, capfd):
    # Lesson 14's solution trained the model the student's answer had trained already (a copy
    # of the names shares their objects) and then failed its own checks. The exercise's setup
    # cells run again in the solution's namespace: it gets a fresh object of its own.
    text = TINY.read_text().replace(
        "```{code-cell} ipython3\n:tags: [exercise]\n",
        "```{code-cell} ipython3\n:tags: [exercise-setup]\n\nsteps = tk.Variable(0.0)\n```\n\n"
        "```{code-cell} ipython3\n:tags: [exercise]\n", 1).replace(
        "slope = tape.gradient(f, x)\n", "slope = tape.gradient(f, x)\nsteps.assign_add(1.0)\n"
        "print('solution steps:', float(steps))\n", 1)
    (tmp_path / TINY.name).write_text(text)
    assert len(read_exercise(tmp_path / TINY.name).given) == 1
    shell.run_cell('import tapekit.teach.solution\n'
                   'tapekit.teach.solution.keep_apart("99_tiny_lesson.md")')
    shell.run_cell("steps = tk.Variable(0.0)")                  # the setup cell, as the student ran it
    shell.run_cell("steps.assign_add(5.0)\nslope = 12.0")       # the student's answer changes it
    result = shell.run_cell(_solution_cell().replace(
        "slope = tape.gradient(f, x)\n", "slope = tape.gradient(f, x)\nsteps.assign_add(1.0)\n"
        "print('solution steps:', float(steps))\n"))
    assert result.success, result.error_in_exec
    assert "solution steps: 1.0" in capfd.readouterr().out
    assert float(shell.user_ns["steps"]) == 5.0                 # the student's is untouched
