"""tapekit.teach.grading: submissions written into the release, nbgrader run the way the course
needs it, and scores and failing checks read back from what nbgrader leaves. nbgrader itself is
run end to end by the slow tests in test_assignments.py; here its commands are recorded (or run
once, to see a failure named), so each step is checked on its own."""
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tapekit.teach import grading
from tapekit.teach.assignments import assignment_notebook
from tapekit.teach.exercise import read_exercise

TINY = Path(__file__).resolve().parent / "lesson" / "99_tiny_lesson.md"
NAME = "99_tiny_lesson"


def _release(course):
    """The tiny lesson's assignment notebook, where nbgrader's release would put it."""
    nb = assignment_notebook(read_exercise(TINY))
    path = course / "release" / NAME / f"{NAME}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    return nb


def test_nbgrader_runs_with_this_pythons_scripts_first_on_path():
    env = grading.nbgrader_env()
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    assert env["PATH"].endswith(os.environ.get("PATH", ""))


def test_nbgrader_is_this_pythons_module_and_a_failure_is_named(tmp_path, monkeypatch):
    runs = []

    def run(cmd, cwd, capture_output, text, env):
        runs.append((cmd, cwd, env["PATH"]))
        return subprocess.CompletedProcess(cmd, 2, "out" * 1000, "the error")
    monkeypatch.setattr(grading.subprocess, "run", run)
    with pytest.raises(RuntimeError, match=r"(?s)nbgrader autograde --force failed in .*"
                                           r"outoutout.*the error$") as e:
        grading.nbgrader(tmp_path, "autograde", "--force")
    assert len(str(e.value)) < 2200                                  # the output's tail only
    assert runs[0][:2] == ([sys.executable, "-m", "nbgrader", "autograde", "--force"], tmp_path)
    assert runs[0][2] == grading.nbgrader_env()["PATH"]
    assert grading.nbgrader(tmp_path, "export", check=False).returncode == 2


def test_submit_puts_the_answer_in_the_answer_cell_only(tmp_path):
    release = _release(tmp_path)
    out = grading.submit(tmp_path, NAME, "ada", "slope = 12.0")
    assert out == tmp_path / "submitted" / "ada" / NAME / f"{NAME}.ipynb"
    sent = nbformat.read(out, as_version=4)
    changed = [c.id for c, r in zip(sent.cells, release.cells) if c.source != r.source]
    assert changed == [f"{NAME}-answer"] and sent.cells[3].source == "slope = 12.0"
    blank = nbformat.read(grading.submit(tmp_path, NAME, "bob", None), as_version=4)
    assert [c.source for c in blank.cells] == [c.source for c in release.cells]


def test_submit_refuses_a_release_with_two_answer_cells(tmp_path):
    release = _release(tmp_path)
    release.cells[4].metadata["nbgrader"]["solution"] = True
    nbformat.write(release, tmp_path / "release" / NAME / f"{NAME}.ipynb")
    with pytest.raises(ValueError, match=f"release/{NAME}: expected one answer cell, found 2"):
        grading.submit(tmp_path, NAME, "ada", "x = 1")


def test_generate_release_runs_once_for_every_assignment_else_once_each(tmp_path, monkeypatch):
    for name in ("a", "b", "c"):
        (tmp_path / "source" / name).mkdir(parents=True)
    calls, said = [], []
    monkeypatch.setattr(grading, "nbgrader", lambda course, *args: calls.append(args[1]))
    grading.generate_release(tmp_path, ["c", "a", "b"], log=said.append)
    assert calls == ["--assignment=*"] and said == [f"release/{n}/{n}.ipynb" for n in "cab"]
    calls.clear()
    grading.generate_release(tmp_path, ["a", "c"], log=said.append)
    assert calls == ["--assignment=a", "--assignment=c"]


def test_grade_answers_reads_scores_and_failing_checks(tmp_path, monkeypatch):
    """nbgrader's part stands in: it writes the grades table and a graded notebook whose second
    check failed, as autograde and export do."""
    release = _release(tmp_path)
    commands = []

    def fake_nbgrader(course, command, *args):
        commands.append(command)
        if command == "export":
            (course / "grades.csv").write_text(
                "assignment,student_id,raw_score,max_score\n"
                f"{NAME},ada,1.0,3.0\n{NAME},other,3.0,3.0\n")
        if command == "autograde":
            graded = nbformat.from_dict(release)
            graded.cells[5].outputs = [nbformat.v4.new_output(
                "error", ename="AssertionError", evalue="differentiate x ** 3", traceback=[])]
            path = course / "autograded" / "ada" / NAME / f"{NAME}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(graded, path)
    monkeypatch.setattr(grading, "nbgrader", fake_nbgrader)
    result = grading.grade_answers(tmp_path, {(NAME, "ada"): "slope = 1.0"}, feedback=False)
    assert commands == ["autograde", "export"]                      # no feedback asked for
    assert result == {(NAME, "ada"): {
        "score": 1.0, "max_score": 3.0, "feedback": None,
        "failures": [(f"{NAME}-test-2", "AssertionError", "differentiate x ** 3")]}}
    submitted = tmp_path / "submitted" / "ada" / NAME / f"{NAME}.ipynb"
    assert nbformat.read(submitted, as_version=4).cells[3].source == "slope = 1.0"
