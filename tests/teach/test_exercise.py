"""tapekit.teach.exercise: a lesson's exercise block, read and checked. Each broken block gives
an error naming the lesson and the cell; a check that passes on the skeleton, fails with a
NameError, or fails on the solution is refused before anything is written.
"""
from pathlib import Path

import pytest

from tapekit.teach.assignments import build_course
from tapekit.teach.exercise import ExerciseError, read_exercise, run_cells

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
    # a skeleton that does not define slope (the release hands it out as the answer cell), and a
    # check that reads slope without asking whether it exists: the student would see a NameError
    path = tiny_variant('assert "slope" in globals() and slope is not None, "slope is not set"',
                         'assert slope is not None, "slope is not set"')
    path.write_text(path.read_text(encoding="utf-8").replace("# your code here\nslope = None\n",
                                                             "# your code here\n", 1),
                    encoding="utf-8")
    with pytest.raises(ExerciseError, match=r"grade cell 2 of 2 fails on the skeleton \(the "
                                            r"lesson's exercise cell, which the release hands "
                                            r"out as the answer cell\) with NameError"):
        build_course([path], tmp_path / "course")


def test_a_solution_that_fails_its_own_checks_is_refused(tmp_path, tiny_variant):
    path = tiny_variant("    f = x ** 3\n", "    f = x ** 2\n")
    with pytest.raises(ExerciseError, match=r"grade cell 2 of 2 raised AssertionError: slope "
                                            r"should be f'\(2\) = 3·2² = 12.0, got 4.0"):
        build_course([path], tmp_path / "course")


# Answers that skip the exercise's point, which a reviewer's student got full marks for: the
# numbers the task's text gives, typed in (07), or worked out by hand (01, 04, 05) or by
# np.linalg.lstsq instead of training (12); the library's function in place of one with its
# own gradient (11) or in place of one the task asks to write (16); a test of the last layer
# where the task asks for every layer (15). Each must lose points.
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SHORTCUTS = {
    "07_why_is_my_gradient_none": (
        "w = tk.Variable(1.0, name='w')\n"
        "b = tk.Variable(0.0, trainable=False, name='b')\n"
        "pred = tk.Variable(0.0, name='pred')\n"
        "x, y_true = 2.0, 4.0\n"
        "with tk.GradientTape() as tape:\n"
        "    pred.assign(float(w) * x + b)\n"
        "loss = (pred - y_true) ** 2\n"
        "dw, db = tk.constant(-8.0), tk.constant(-4.0)\n"),
    "11_custom_gradients_and_numerical_stability": (
        "lse = tk.reduce_logsumexp\n"
        "z = tk.Variable([1.0, 2.0, 1000.0])\n"
        "with tk.GradientTape() as tape:\n"
        "    value = lse(z)\n"
        "grad = tape.gradient(value, z)\n"),
    "01_first_gradients": "df_da, df_db = 2 + np.cos(1.0), 1.0\n",
    "04_what_the_tape_watches": "dw2, dx, dw1, dh = 36.0, -24.0, None, -12.0\n",
    "05_persistent_and_higher_order": (
        "hessian = np.array([[4.0, 2.0], [2.0, 12.0]])\n"
        "hvp = hessian @ np.array([1.0, -1.0])\n"
        "gv = -9.0\n"),
    "12_linear_regression": (
        "B = np.stack([xq ** 2, np.ones_like(xq)], axis=1)\n"
        "a_fit, c_fit = [float(p) for p in np.linalg.lstsq(B, yq, rcond=None)[0]]\n"),
    "15_vanishing_and_exploding_gradients": (
        "def stays_in_range(x, s):\n"
        "    tk.random.set_seed(1)\n"
        "    h = x\n"
        "    for _ in range(20):\n"
        "        h = tk.layers.Dense(64, activation='relu',\n"
        "                            kernel_initializer=tk.initializers.RandomNormal(stddev=s))(h)\n"
        "    return 0.1 <= float(tk.math.reduce_std(h)) <= 10   # the last layer only\n"
        "tk.random.set_seed(0)\n"
        "x = tk.random.normal((64, 64))\n"
        "good_scales = [float(s) for s in np.round(np.arange(0.15, 0.225, 0.005), 3)\n"
        "               if stays_in_range(x, s)]\n"),
    "16_exploding_gradients_and_clipping": (
        "def clip_global(gradients, clip_norm):\n"
        "    return [t.numpy() for t in tk.clip_by_global_norm(gradients, clip_norm)[0]]\n"
        "small_step = clip_global([tk.constant([3.0, 4.0]), tk.constant([12.0])], 1.0)\n"),
}


@pytest.mark.parametrize("lesson", sorted(SHORTCUTS))
def test_an_answer_that_skips_the_point_loses_points(lesson):
    ex = read_exercise(NOTEBOOKS / f"{lesson}.md")
    cells = ex.imports + ex.setup + ex.given + [SHORTCUTS[lesson]] + [g for g, _ in ex.grades]
    results = run_cells({"shortcut": cells})["shortcut"]["results"]
    n = len(ex.imports + ex.setup + ex.given)
    assert results[n] is None, f"the shortcut answer itself should run: {results[n]}"
    failed = [r for r in results[n + 1:] if r is not None]
    assert failed and all(r[0] == "AssertionError" for r in failed), results[n + 1:]
