"""tapekit.teach.exercise: a lesson's exercise block, read and checked. Each broken block gives
an error naming the lesson and the cell; a check that passes on the skeleton, fails with a
NameError, or fails on the solution is refused before anything is written.
"""
import pytest

from tapekit.teach.assignments import build_course
from tapekit.teach.exercise import ExerciseError, read_exercise

# --- the markers ------------------------------------------------------------------------------
BROKEN = {
    "no exercise": ("## Exercise", "## Practice", r"no exercise: no Markdown line starts with '## Exercise'"),
    "no exercise cell": (":tags: [exercise]", ":tags: [other]",
                         r"untagged code cell inside the exercise block|no cell tagged 'exercise'"),
    "no solution tag": ("tags: [solution]", "tags: [other]", r"untagged code cell"),
    "solution first line": ("# Solution\n", "# the answer\n", r"first line must be '# Solution'"),
    "no grade cell": ("tags: [check, remove-cell, grade]", "tags: [check, remove-cell]",
                      r"check cell inside the exercise block without the 'grade' tag"),
    "points missing": ("tapekit:\n  points: 1\n", "", r"needs metadata 'tapekit: \{points: N\}'.*got None"),
    "points zero": ("points: 1", "points: 0", r"int N >= 1, got 0"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_markers_name_the_lesson_and_the_problem(case, tiny_variant):
    old, new, message = BROKEN[case]
    path = tiny_variant(old, new)
    with pytest.raises(ExerciseError, match=message) as err:
        read_exercise(path)
    assert "99_tiny_lesson.md" in str(err.value)


def test_a_problem_in_a_cell_names_the_cell(tiny_variant):
    path = tiny_variant("points: 2", "points: two")
    with pytest.raises(ExerciseError, match=r"99_tiny_lesson\.md, cell \d+ \(code, starting "
                                            r"'assert \"slope\" in globals\(\)"):
        read_exercise(path)


def test_a_grade_cell_that_passes_on_the_skeleton_is_refused(tmp_path, tiny_variant):
    path = tiny_variant("slope = None\n", "slope = 12.0\n")
    with pytest.raises(ExerciseError, match=r"grade cell 1 of 2 passes on the skeleton"):
        build_course([path], tmp_path / "course")
    assert not (tmp_path / "course").exists(), "nothing is written when a lesson is refused"


def test_a_grade_cell_that_fails_with_a_name_error_is_refused(tmp_path, tiny_variant):
    path = tiny_variant('"slope" in globals() and slope is not None',
                         "slope is not None", count=2)
    path.write_text(path.read_text().replace("slope = None\n", "pass\n"))
    with pytest.raises(ExerciseError, match=r"fails on the skeleton .* with NameError.*globals\(\)"):
        build_course([path], tmp_path / "course")


def test_a_grade_cell_that_fails_with_a_name_error_on_the_release_is_refused(tmp_path, tiny_variant):
    # the skeleton defines slope; the release's empty answer cell does not
    path = tiny_variant('assert "slope" in globals() and slope is not None, "slope is not set"',
                         'assert slope is not None, "slope is not set"')
    with pytest.raises(ExerciseError, match=r"grade cell 2 of 2 fails on an empty answer cell "
                                            r"\(the release as handed out\) with NameError"):
        build_course([path], tmp_path / "course")


def test_a_solution_that_fails_its_own_checks_is_refused(tmp_path, tiny_variant):
    path = tiny_variant("    f = x ** 3\n", "    f = x ** 2\n")
    with pytest.raises(ExerciseError, match=r"grade cell 2 of 2 raised AssertionError: slope "
                                            r"should be f'\(2\) = 3·2² = 12.0, got 4.0"):
        build_course([path], tmp_path / "course")
