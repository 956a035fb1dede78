"""Every lesson's exercise, graded in-process as nbgrader would grade it (issue 31).

A lesson's exercise block (CONTRIBUTING.md, "The exercise"): an `exercise` cell with the
skeleton a student starts from, a collapsed `solution` cell, and `grade` check cells carrying
`tapekit: {points: N}`. The assignment holds the lesson's first code cell (its imports), every
cell tagged `exercise-setup`, and the exercise block. Here, for each lesson:
- the skeleton alone earns 0 points, and every graded cell fails with a message in words;
- the solution earns every point;
- a plausible wrong answer (tests/course/wrong_answers/<slug>.py) runs, earns less, and is
  told why.
tests/teach/ runs nbgrader's own command line on the built assignments; this file is the fast
check of each exercise's content.
"""
import contextlib
import io
import re
from pathlib import Path

import jupytext
import pytest
from IPython.display import display

REPO = Path(__file__).resolve().parents[2]
LESSONS = sorted((REPO / "notebooks").glob("[0-9]*.md"))
WRONG = REPO / "tests" / "course" / "wrong_answers"


def slug(path):
    return re.sub(r"^\d+[a-z]?_", "", path.stem)


def exercise(path):
    """(setup sources, skeleton, solution, [(grade source, points)]) of a lesson."""
    code = [c for c in jupytext.read(path).cells if c.cell_type == "code"]
    tagged = lambda tag: [c for c in code if tag in c.metadata.get("tags", [])]  # noqa: E731
    setup = [code[0].source] + [c.source for c in tagged("exercise-setup")]
    (skeleton,), (solution,) = tagged("exercise"), tagged("solution")
    grades = [(c.source, c.metadata.get("tapekit", {}).get("points")) for c in tagged("grade")]
    return setup, skeleton.source, solution.source, grades


def grade(path, answer):
    """Run the setup, the skeleton and `answer` in one namespace, then each graded cell:
    (points earned, points possible, the failing cells' messages)."""
    setup, skeleton, _, grades = exercise(path)
    env = {"__name__": "__main__", "display": display}   # as in a notebook's kernel
    with contextlib.redirect_stdout(io.StringIO()):
        for source in setup + [skeleton] + ([answer] if answer else []):
            exec(compile(source, str(path), "exec"), env)
        earned, messages = 0, []
        for source, points in grades:
            try:
                exec(compile(source, str(path), "exec"), env)
                earned += points
            except AssertionError as err:
                messages.append(str(err))
    return earned, sum(p for _, p in grades), messages


@pytest.fixture(autouse=True)
def _plots_off_screen(monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_exercise_is_marked_for_grading(path):
    setup, skeleton, solution, grades = exercise(path)
    assert solution.startswith("# Solution"), f"{path.name}: the solution cell starts '# Solution'"
    assert grades, f"{path.name}: no cell tagged grade"
    points = [p for _, p in grades]
    assert all(isinstance(p, int) and p >= 1 for p in points), f"{path.name}: points {points}"
    assert 3 <= sum(points) <= 10, f"{path.name}: {sum(points)} points in all"
    assert (WRONG / f"{slug(path)}.py").exists(), f"no wrong answer tests/course/wrong_answers/{slug(path)}.py"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_skeleton_alone_earns_nothing_and_each_check_says_why(path):
    earned, total, messages = grade(path, None)
    assert earned == 0, f"{path.name}: the untouched skeleton earns {earned} of {total} points"
    assert len(messages) == len(exercise(path)[3]) and all(m.strip() for m in messages), messages


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_solution_earns_every_point(path):
    earned, total, messages = grade(path, exercise(path)[2])
    assert earned == total, f"{path.name}: the solution earns {earned} of {total}: {messages}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_a_plausible_wrong_answer_loses_points_and_is_told_why(path):
    earned, total, messages = grade(path, (WRONG / f"{slug(path)}.py").read_text(encoding="utf-8"))
    assert earned < total, f"{path.name}: the wrong answer earns full marks"
    assert messages and all(len(m.split()) >= 4 for m in messages), messages
