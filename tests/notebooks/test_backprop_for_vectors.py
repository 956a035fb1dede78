"""Lesson 07b's exercise, graded as a student's work would be: the skeleton alone fails every
graded check, the solution passes them all, and a plausible wrong answer
(tests/course/wrong_answers/) runs, loses points and is told why in words."""
from pathlib import Path

import jupytext
import pytest

REPO = Path(__file__).resolve().parents[2]
LESSON = REPO / "notebooks" / "07b_backprop_for_vectors.md"
WRONG = REPO / "tests" / "course" / "wrong_answers" / "backprop_for_vectors.py"


def _cells():
    nb = jupytext.read(LESSON)
    code = [c for c in nb.cells if c.cell_type == "code"]
    tags = [set(c.metadata.get("tags", [])) for c in code]
    imports = code[0].source
    exercise = next(c.source for c, t in zip(code, tags) if "exercise" in t)
    solution = next(c.source for c, t in zip(code, tags) if "solution" in t)
    grades = [(c.source, c.metadata["tapekit"]["points"]) for c, t in zip(code, tags) if "grade" in t]
    return imports, exercise, solution, grades


def _grade(answer):
    """Run the import cell, the exercise cell and `answer`, then each graded cell:
    (points earned, points possible, failure messages)."""
    imports, exercise, _, grades = _cells()
    env = {}
    exec(imports, env)
    exec(exercise, env)
    if answer:
        exec(answer, env)
    earned, messages = 0, []
    for source, points in grades:
        try:
            exec(source, env)
            earned += points
        except AssertionError as e:
            messages.append(str(e))
    return earned, sum(p for _, p in grades), messages


def test_the_exercise_has_graded_checks_worth_3_to_10_points():
    _, _, _, grades = _cells()
    assert grades and all(isinstance(p, int) and p >= 1 for _, p in grades)
    assert 3 <= sum(p for _, p in grades) <= 10
    assert all("### BEGIN HIDDEN TESTS" in s for s, _ in grades)


def test_the_skeleton_alone_fails_every_graded_check():
    earned, total, messages = _grade(None)
    assert earned == 0 and len(messages) == len(_cells()[3])
    assert all(m.strip() for m in messages), "a graded check failed without a message"


def test_the_solution_gets_full_marks():
    earned, total, messages = _grade(_cells()[2])
    assert earned == total, messages


def test_a_plausible_wrong_answer_loses_points_with_a_message():
    earned, total, messages = _grade(WRONG.read_text(encoding="utf-8"))
    assert earned < total
    assert any("summed over the batch" in m for m in messages), messages
