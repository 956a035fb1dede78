"""tapekit.teach.exercise: a lesson's exercise block, read and checked. Each broken block gives
an error naming the lesson and the cell; a check that passes on the skeleton, fails with a
NameError, or fails on the solution is refused before anything is written.

A lesson may come from anyone (issue 43): nbgrader's markers in its text are refused wherever
nbgrader would act on them (a hypothesis property places any spelling in any cell and releases
what builds with nbgrader's own preprocessors); a lesson that cannot be read, and runs that
time out or end Python, are named with the line or the cell and the fix.
"""
import ast
import re
import tempfile
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import TINY
from tapekit.teach.assignments import build_course
from tapekit.teach.exercise import (AUTOTEST_MARKER, HIDDEN_MARKERS, MARK_SCHEME_MARKERS,
                                    NBGRADER_MARKERS, SOLUTION_MARKERS, CellsStopped, Exercise,
                                    ExerciseError, check_runs, read_exercise, run_cells)

# --- the markers ------------------------------------------------------------------------------
BROKEN = {
    "no exercise": ("## Exercise", "## Practice", r"no exercise: no Markdown line starts with '## Exercise'"),
    "no exercise cell": (":tags: [exercise]", ":tags: [other]",
                         r"untagged code cell inside the exercise block|no cell tagged 'exercise'"),
    "no solution tag": ("tags: [solution]", "tags: [other]", r"untagged code cell"),
    "solution first line": ("# Solution\n", "# the answer\n", r"first line must be '# Solution'"),
    "no grade cell": ("tags: [check, remove-cell, grade, raises-exception]", "tags: [check, remove-cell]",
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
# own gradient (11, 11b) or in place of one the task asks to write (16); a test of the last layer
# where the task asks for every layer (15). And one foreseen when 03's exercise was written: the
# symbolic tree's value where the task asks for a tape (03). Each must lose points.
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
    "10_jacobians_hessians_forward_mode": (
        "J_polar = np.array([[np.cos(np.pi / 6), -2 * np.sin(np.pi / 6)],\n"
        "                    [np.sin(np.pi / 6), 2 * np.cos(np.pi / 6)]])   # typed in: no tape\n"
        "det_polar = float(np.linalg.det(J_polar))\n"
        "p = tk.Variable([2.0, np.pi / 6])\n"
        "with tk.autodiff.ForwardAccumulator(p, tk.constant([1.0, 0.0])) as acc:\n"
        "    xy = tk.stack([p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])])\n"
        "col0 = acc.jvp(xy).numpy()\n"),
    "11_custom_gradients": (
        "my_tanh = tk.tanh\n"
        "x = tk.Variable([-1.0, 0.0, 2.0])\n"
        "with tk.GradientTape() as tape:\n"
        "    total = tk.reduce_sum(my_tanh(x))\n"
        "grad = tape.gradient(total, x)\n"),
    "11b_numerical_stability": (
        "lse = tk.reduce_logsumexp\n"
        "z = tk.Variable([1.0, 2.0, 1000.0])\n"
        "with tk.GradientTape() as tape:\n"
        "    value = lse(z)\n"
        "grad = tape.gradient(value, z)\n"),
    "03_symbolic_and_automatic": (
        "r_tree = ('mul', 'x', ('sin', ('mul', 'x', 'x')))\n"
        "dr_tree = derivative(r_tree)\n"
        "dr_nodes = size(dr_tree)\n"
        "tape_dr = float(evaluate(dr_tree, x_at))\n"),
    "01_first_gradients": "df_da, df_db = 2 + np.cos(1.0), 1.0\n",
    "04_what_the_tape_watches": "dw2, dx, dw1, dh = 36.0, -24.0, None, -12.0\n",
    "06_control_flow_and_stop_gradient": (
        "def my_relu(x):\n"
        "    return x if x > 0 else 0.0 * x\n"
        "grads_mine, grads_relu = [0.0, 1.0], [0.0, 1.0]\n"),
    "05_persistent_and_higher_order": (
        "hessian = np.array([[4.0, 2.0], [2.0, 12.0]])\n"
        "hvp = hessian @ np.array([1.0, -1.0])\n"
        "gv = -9.0\n"),
    "08_vjps_and_the_cost_of_reverse_mode": (
        "jac = np.array([[2.0, 3.0, 0.0], [0.0, 4.0, 0.0], [1.0, 0.0, -1.0]])   # typed in: no tape\n"
        "v_row1 = np.array([0.0, 1.0, 0.0])\n"),
    "09_backprop_for_vectors": (
        "def layer_grads(X, W, b, T):\n"
        "    Xv, Wv, bv = (tk.Variable(a, dtype=tk.float64) for a in (X, W, b))\n"
        "    with tk.GradientTape() as tape:\n"
        "        L = tk.reduce_mean((tk.matmul(Xv, Wv) + bv - T) ** 2)\n"
        "    gX, gW, gb = tape.gradient(L, [Xv, Wv, bv])\n"
        "    return gW.numpy(), gb.numpy(), gX.numpy()\n"
        "dW, db, dX = layer_grads(X_ex, W_ex, b_ex, T_ex)\n"),
    "12_linear_regression": (
        "B = np.stack([xq ** 2, np.ones_like(xq)], axis=1)\n"
        "a_fit, c_fit = [float(p) for p in np.linalg.lstsq(B, yq, rcond=None)[0]]\n"),
    "12_linear_regression#the numbers the task gives": "a_fit, c_fit = 0.5, -2.0\n",
    # a reader's: the answer to 18's question (a linear model's map is its weight column) is
    # also the way around the tape
    "18_small_cnn_digits": (
        "tk.random.set_seed(5)\n"
        "W = tk.random.normal((64, 10))\n"
        "image_a = tk.random.uniform((1, 64))\n"
        "image_b = tk.random.uniform((1, 64))\n"
        "saliency_a = saliency_b = W.numpy()[:, 3].reshape(8, 8)\n"),
    "13_optimization_in_pictures": (
        "H_ex = np.array([[2.0, 1.0], [1.0, 4.0]])   # typed in: no nested tapes\n"
        "L_max = float(np.linalg.eigvalsh(H_ex).max())\n"
        "lr_limit = 2.0 / L_max\n"
        "def run_gd(lr, steps=100):\n"
        "    w = tk.Variable([1.0, 1.0])\n"
        "    for _ in range(steps):\n"
        "        with tk.GradientTape() as tape:\n"
        "            value = w[0] ** 2 + w[0] * w[1] + 2.0 * w[1] ** 2\n"
        "        w.assign_sub(lr * tape.gradient(value, w))\n"
        "    return float(w[0] ** 2 + w[0] * w[1] + 2.0 * w[1] ** 2)\n"),
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
    # Answers that keep the pieces a check looks for (a tape, an accumulator, a matrix from
    # NumPy) and type or copy the number beside them: each check asks the piece for the value.
    "01_first_gradients#typed beside an empty tape": (
        "a = tk.Variable(1.0, name='a')\n"
        "b = tk.Variable(2.0, name='b')\n"
        "with tk.GradientTape() as tape:\n"
        "    pass\n"
        "df_da, df_db = 2 + np.cos(1.0), 1.0\n"),
    "04_what_the_tape_watches#typed beside an empty tape": (
        "w1 = tk.Variable(2.0, name='w1')\n"
        "w2 = tk.Variable(-1.0, name='w2')\n"
        "with tk.GradientTape(watch_accessed_variables=False) as tape:\n"
        "    tape.watch(w2)\n"
        "dw2, dx, dw1, dh = 36.0, -24.0, None, -12.0\n"),
    "08_vjps_and_the_cost_of_reverse_mode#typed beside an empty tape": (
        "with tk.GradientTape(persistent=True) as tape:\n"
        "    pass\n"
        "jac = np.array([[2.0, 3.0, 0.0], [0.0, 4.0, 0.0], [1.0, 0.0, -1.0]])\n"
        "v_row1 = np.array([0.0, 1.0, 0.0])\n"),
    "10_jacobians_hessians_forward_mode#typed beside an empty tape and accumulator": (
        "p = tk.Variable([2.0, np.pi / 6])\n"
        "with tk.GradientTape() as tape:\n"
        "    xy = tk.stack([p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])])\n"
        "J_polar = np.array([[np.cos(np.pi / 6), -2 * np.sin(np.pi / 6)],\n"
        "                    [np.sin(np.pi / 6), 2 * np.cos(np.pi / 6)]])\n"
        "det_polar = float(np.linalg.det(J_polar))\n"
        "with tk.autodiff.ForwardAccumulator(p, tk.constant([1.0, 0.0])) as acc:\n"
        "    pass\n"
        "col0 = np.array([np.cos(np.pi / 6), np.sin(np.pi / 6)])\n"),
    "17_residual_connections_and_normalization#J_hand copied from J": (
        "tk.random.set_seed(3)\n"
        "W = tk.random.normal((3, 3))\n"
        "x = tk.constant([[0.5, -1.0, 2.0]])\n"
        "with tk.GradientTape(persistent=True) as tape:\n"
        "    tape.watch(x)\n"
        "    f = tk.tanh(x @ W)\n"
        "    y = x + f\n"
        "J = tape.jacobian(y, x).numpy().reshape(3, 3)\n"
        "J_F = tape.jacobian(f, x).numpy().reshape(3, 3)\n"
        "J_hand = J.copy()\n"
        "def hand_jacobian(x, W):\n"
        "    return J_hand\n"),
    # a third reader's (issue 47): each dodged the check it names
    "02b_finite_differences#the tape's number typed, no tape": (
        "tape_dg_dx = 2 * (np.e + 1)\n"
        "def g_of_x(x):\n"
        "    return np.exp(x * y0) + x * y0\n"
        "fwd_errors = [abs((g_of_x(x0 + eps) - g_of_x(x0)) / eps - tape_dg_dx) for eps in epsilons]\n"
        "best_fwd_eps = 1e-8\n"),
    "09_backprop_for_vectors#the tape under another name": (
        "Tape = tk.GradientTape\n"
        "def layer_grads(X, W, b, T):\n"
        "    Xv, Wv, bv = (tk.Variable(a, dtype=tk.float64) for a in (X, W, b))\n"
        "    with Tape() as t:\n"
        "        L = tk.reduce_mean((tk.matmul(Xv, Wv) + bv - T) ** 2)\n"
        "    gX, gW, gb = t.gradient(L, [Xv, Wv, bv])\n"
        "    return gW.numpy(), gb.numpy(), gX.numpy()\n"
        "dW, db, dX = layer_grads(X_ex, W_ex, b_ex, T_ex)\n"),
    "10_jacobians_hessians_forward_mode#typed beside a tape asked for something else": (
        "p = tk.Variable([2.0, np.pi / 6])\n"
        "with tk.GradientTape() as tape:\n"
        "    xy = tk.stack([p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])])\n"
        "tape.gradient(xy, p)\n"
        "J_polar = np.array([[np.cos(np.pi / 6), -2 * np.sin(np.pi / 6)],\n"
        "                    [np.sin(np.pi / 6), 2 * np.cos(np.pi / 6)]])\n"
        "det_polar = 2.0\n"
        "with tk.autodiff.ForwardAccumulator(p, tk.constant([1.0, 0.0])) as acc:\n"
        "    xy2 = tk.stack([p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])])\n"
        "col0 = np.array([np.cos(np.pi / 6), np.sin(np.pi / 6)])\n"),
    "11_custom_gradients#no custom_gradient, the numbers typed": (
        "def my_tanh(x):\n"
        "    return tk.tanh(x)\n"
        "grad = 1 - np.tanh([-1.0, 0.0, 2.0]) ** 2\n"),
    # a persistent tape that recorded the right thing but was never asked: the numbers typed
    "01_first_gradients#typed beside a persistent tape": (
        "a = tk.Variable(1.0, name='a')\n"
        "b = tk.Variable(2.0, name='b')\n"
        "with tk.GradientTape(persistent=True) as tape:\n"
        "    f = a * b + tk.sin(a)\n"
        "df_da, df_db = 2 + np.cos(1.0), 1.0\n"),
    "04_what_the_tape_watches#typed beside a tape asked for dw2 only": (
        "w1 = tk.Variable(2.0, name='w1')\n"
        "w2 = tk.Variable(-1.0, name='w2')\n"
        "x = tk.constant(3.0)\n"
        "with tk.GradientTape(watch_accessed_variables=False) as tape:\n"
        "    tape.watch(w2)\n"
        "    h = w1 * x\n"
        "    y = w2 * h ** 2\n"
        "dw2 = tape.gradient(y, w2)\n"
        "dx, dw1, dh = -24.0, None, -12.0\n"),
    "08_vjps_and_the_cost_of_reverse_mode#typed beside a persistent tape that recorded y": (
        "x = tk.Variable([3.0, 2.0, 1.0], name='x')\n"
        "with tk.GradientTape(persistent=True) as tape:\n"
        "    y = tk.stack([x[0] * x[1], x[1] ** 2, x[0] - x[2]])\n"
        "jac = np.array([[2.0, 3.0, 0.0], [0.0, 4.0, 0.0], [1.0, 0.0, -1.0]])\n"
        "v_row1 = np.array([0.0, 1.0, 0.0])\n"),
    "05_persistent_and_higher_order#real tapes, the numbers typed beside them": (
        "x = tk.Variable(1.0, name='x')\n"
        "y = tk.Variable(2.0, name='y')\n"
        "v = [1.0, -1.0]\n"
        "with tk.GradientTape(persistent=True) as outer:\n"
        "    with tk.GradientTape() as inner:\n"
        "        f = x ** 2 * y + y ** 3\n"
        "    gx, gy = inner.gradient(f, [x, y])\n"
        "    gv = gx * v[0] + gy * v[1]\n"
        "hessian = np.array([[4.0, 2.0], [2.0, 12.0]])\n"
        "hvp = hessian @ np.array(v)\n"),
    "06_control_flow_and_stop_gradient#tapekit's relu, an empty tape, typed lists": (
        "my_relu = tk.nn.relu\n"
        "with tk.GradientTape() as tape:\n"
        "    pass\n"
        "grads_mine, grads_relu = [0.0, 1.0], [0.0, 1.0]\n"),
    "25_backprop_by_hand_beyond_one_layer#a tape inside the function": (
        "def mlp_tanh_grads(p, X, y):\n"
        "    v = {k: tk.Variable(a) for k, a in p.items()}\n"
        "    with tk.GradientTape() as t:\n"
        "        h = tk.tanh(tk.matmul(tk.constant(X), v['W1']) + v['b1'])\n"
        "        s = tk.matmul(h, v['W2']) + v['b2']\n"
        "        loss = tk.reduce_mean(tk.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=s))\n"
        "    g = t.gradient(loss, v)\n"
        "    return {k: g[k].numpy() for k in p}\n"
        "err_W1 = 1e-9\n"),
    "29_the_same_ideas_in_pytorch_and_jax#jvp by reverse mode, two_grads by formulas": (
        "def second_derivative(f, x):\n"
        "    x = tk.constant(x)\n"
        "    with tk.GradientTape() as outer:\n"
        "        outer.watch(x)\n"
        "        with tk.GradientTape() as inner:\n"
        "            inner.watch(x)\n"
        "            y = f(x)\n"
        "        d1 = inner.gradient(y, x)\n"
        "    return float(outer.gradient(d1, x))\n"
        "def vjp(f, x, u):\n"
        "    x = tk.constant(x)\n"
        "    with tk.GradientTape() as t:\n"
        "        t.watch(x)\n"
        "        y = f(x)\n"
        "    return t.gradient(y, x, output_gradients=tk.constant(u)).numpy()\n"
        "def jvp(f, x, t):\n"
        "    x = tk.constant(x)\n"
        "    with tk.GradientTape() as tape:\n"
        "        tape.watch(x)\n"
        "        y = f(x)\n"
        "    return tape.jacobian(y, x).numpy() @ np.array(t)\n"
        "def two_grads(x_value):\n"
        "    return 2 * x_value, float(np.cos(x_value ** 2) * 2 * x_value)\n"),
    "13_optimization_in_pictures#H_ex typed beside a tape": (
        "w = tk.Variable([1.0, 1.0])\n"
        "with tk.GradientTape() as outer:\n"
        "    with tk.GradientTape() as inner:\n"
        "        value = w[0] ** 2 + w[0] * w[1] + 2.0 * w[1] ** 2\n"
        "    gradient = inner.gradient(value, w)\n"
        "H_ex = np.array([[2.0, 1.0], [1.0, 4.0]])\n"
        "L_max = float(np.linalg.eigvalsh(H_ex).max())\n"
        "lr_limit = 2.0 / L_max\n"),
    "17_residual_connections_and_normalization#J and J_F typed, no tape": (
        "tk.random.set_seed(3)\n"
        "W = tk.random.normal((3, 3))\n"
        "x = tk.constant([[0.5, -1.0, 2.0]])\n"
        "def hand_jacobian(x, W):\n"
        "    t = np.tanh(np.asarray(x) @ np.asarray(W))[0]\n"
        "    return np.eye(3) + (1 - t ** 2)[:, None] * np.asarray(W).T\n"
        "J_hand = hand_jacobian(x, W)\n"
        "J = J_hand.copy()\n"
        "J_F = J - np.eye(3)\n"),
    # h'(0.5) typed in: no forward pass, and no tape of one's own to check it against
    "24_forward_mode_from_scratch": (
        "Dual.__pow__ = lambda self, k: Dual(self.value ** k, k * self.value ** (k - 1) * self.tangent)\n"
        "def tanh(u):\n"
        "    return Dual(np.tanh(u.value), (1 - np.tanh(u.value) ** 2) * u.tangent)\n"
        "slope = 1.5038430888360421\n"),
}


@pytest.mark.parametrize("lesson", sorted(SHORTCUTS))
def test_an_answer_that_skips_the_point_loses_points(lesson):
    ex = read_exercise(NOTEBOOKS / f"{lesson.split('#')[0]}.md")
    cells = ex.imports + ex.setup + ex.given + [SHORTCUTS[lesson]] + [g for g, _ in ex.grades]
    results = run_cells({"shortcut": cells})["shortcut"]["results"]
    missing = [r for r in results[:len(ex.imports)] if r is not None and r[0] == "ModuleNotFoundError"]
    if missing:    # the unit-test extra of the other Pythons has no scikit-learn (lesson 18's digits)
        pytest.skip(f"the lesson's imports need a package not installed here: {missing[0][1]}")
    n = len(ex.imports + ex.setup + ex.given)
    assert results[n] is None, f"the shortcut answer itself should run: {results[n]}"
    failed = [r for r in results[n + 1:] if r is not None]
    assert failed and all(r[0] == "AssertionError" for r in failed), results[n + 1:]


def _cells_before_the_exercise(lesson):
    """Every code cell of the lesson's notebook above its exercise cell, as a student runs them."""
    nb = nbformat.read(NOTEBOOKS / f"{lesson}.ipynb", as_version=4)
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "exercise" in cell.metadata.get("tags", []):
            return cells
        cells.append(cell.source)
    raise AssertionError(f"{lesson}.ipynb has no cell tagged 'exercise'")


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_shortcut_loses_points_after_the_whole_lesson_ran():
    # What the lesson's own cells leave behind (a tape, a gradient, a model) must not make a
    # shortcut pass: lesson 03's tape check once passed on the tape its section 2 recorded.
    runs, shortcut_at = {}, {}
    for lesson in sorted(SHORTCUTS):
        stem = lesson.split("#")[0]      # "lesson#which shortcut": a second one for a lesson
        before = _cells_before_the_exercise(stem)
        grades = [g for g, _ in read_exercise(NOTEBOOKS / f"{stem}.md").grades]
        runs[lesson], shortcut_at[lesson] = before + [SHORTCUTS[lesson]] + grades, len(before)
    results = run_cells(runs, timeout=900)
    wrong = {}
    for lesson, n in shortcut_at.items():
        got = results[lesson]["results"]
        failed = [r for r in got[n + 1:] if r is not None]
        if got[n] is not None or not failed or any(r[0] != "AssertionError" for r in failed):
            wrong[lesson] = got[n:]
    assert not wrong, f"the shortcut runs and keeps full marks, or a check errs: {wrong}"


# --- nbgrader's markers in a lesson's text (issue 43) -----------------------------------------
# nbgrader reacts to its markers anywhere in a line of any cell (`"END SOLUTION" in line`): a
# lesson from someone else must not be able to end the solution region early (nbgrader's
# release would hand students the rest of the solution) nor put a region where nbgrader refuses
# to release it. Each case: (what to replace in the tiny lesson, with what, the cell named,
# a piece of the message).
SOLUTION_END = "slope = tape.gradient(f, x)\n"
MARKED = {
    "END SOLUTION in a solution comment": (
        SOLUTION_END, SOLUTION_END + "# END SOLUTION: the rest is a print\n", 13,
        r"the rest of the solution"),
    "END SOLUTION in a solution string, indented": (
        "    f = x ** 3\n", '    f = x ** 3\n    note = "see END SOLUTION"\n', 13,
        r"the rest of the solution"),
    "a nested BEGIN SOLUTION in the solution": (
        SOLUTION_END, SOLUTION_END + "### BEGIN SOLUTION\n", 13, r"nested BEGIN SOLUTION"),
    "BEGIN SOLUTION in the skeleton": (
        "# your code here\n", "# your code here\n### BEGIN SOLUTION\n", 10,
        r"only solution region is the solution cell's body"),
    "END SOLUTION in the skeleton": (
        "slope = None\n", "slope = None  # END SOLUTION\n", 10, r"only solution region"),
    "a solution region in a grade cell": (
        "### BEGIN HIDDEN TESTS\n",
        "### BEGIN SOLUTION\n### END SOLUTION\n### BEGIN HIDDEN TESTS\n", 12,
        r"only solution region"),
    "a solution region in the task's Markdown": (
        "in `slope`.", "in `slope`.\n\n```python\n### BEGIN SOLUTION\nslope = 12.0\n"
        "### END SOLUTION\n```\n", 9, r"only solution region"),
    "BEGIN SOLUTION in the title": (
        "# Lesson 99: A tiny lesson", "# Lesson 99: A tiny lesson BEGIN SOLUTION", 1,
        r"only solution region"),
    "END SOLUTION in the import cell": (
        "import numpy as np\n", "import numpy as np  # END SOLUTION\n", 2, r"only solution region"),
    "hidden tests in the skeleton": (
        "# your code here\n", "### BEGIN HIDDEN TESTS\n# your code here\n### END HIDDEN TESTS\n",
        10, r"hidden tests go only in a grade cell"),
    "hidden tests in the solution": (
        SOLUTION_END, SOLUTION_END + "### END HIDDEN TESTS\n", 13, r"only in a grade cell"),
    "hidden tests in the task's Markdown": (
        "in `slope`.", "in `slope`. BEGIN HIDDEN TESTS", 9, r"only in a grade cell"),
    "an unclosed hidden-tests block": (
        "### END HIDDEN TESTS\n", "", 12, r"begun at line 2 never end"),
    "nested hidden tests": (
        "### END HIDDEN TESTS\n", "### BEGIN HIDDEN TESTS\nassert True\n### END HIDDEN TESTS\n",
        12, r"line 5 begins hidden tests inside those begun at line 2"),
    "an END HIDDEN TESTS without its BEGIN": (
        "### BEGIN HIDDEN TESTS\n", "", 12, r"line 4 ends hidden tests that no"),
    "a hidden-tests marker beside code": (
        "### BEGIN HIDDEN TESTS\n", "assert slope is not None  # BEGIN HIDDEN TESTS\n", 12,
        r"beside other text, and nbgrader drops the whole line"),
    "hidden tests that leave students a broken cell": (
        "### BEGIN HIDDEN TESTS\n", "if True:\n    ### BEGIN HIDDEN TESTS\n    pass\n", 12,
        r"without its hidden tests, as students get it, the cell is not valid Python"),
    "a mark scheme in the task": (
        "in `slope`.", "in `slope`.\n\nBEGIN MARK SCHEME\n2 points\nEND MARK SCHEME", 9,
        r"no manually graded task cells"),
    "an AUTOTEST line in a grade cell": (
        "### END HIDDEN TESTS\n", "### END HIDDEN TESTS\n# AUTOTEST slope\n", 12,
        r"autotests.yml"),
}


@pytest.mark.parametrize("case", sorted(MARKED))
def test_nbgrader_markers_in_the_lesson_text_are_refused(case, tiny_variant):
    old, new, cell, message = MARKED[case]
    path = tiny_variant(old, new)
    with pytest.raises(ExerciseError, match=message) as err:
        read_exercise(path)
    assert str(err.value).startswith(f"99_tiny_lesson.md, cell {cell} ("), str(err.value)


def test_the_markers_are_nbgraders_own():
    """The strings refused are the ones the installed nbgrader acts on, by default."""
    pytest.importorskip("nbgrader", reason="the [teach] extra (nbgrader) is not installed")
    from nbgrader.preprocessors import (ClearHiddenTests, ClearMarkScheme, ClearSolutions,
                                        InstantiateTests)
    s, h, m = ClearSolutions(), ClearHiddenTests(), ClearMarkScheme()
    assert SOLUTION_MARKERS == (s.begin_solution_delimeter, s.end_solution_delimeter)
    assert HIDDEN_MARKERS == (h.begin_test_delimeter, h.end_test_delimeter)
    assert MARK_SCHEME_MARKERS == (m.begin_mark_scheme_delimeter, m.end_mark_scheme_delimeter)
    assert AUTOTEST_MARKER == InstantiateTests().autotest_delimiter


def test_text_that_nbgrader_ignores_builds(tmp_path, tiny_variant, nbgrader_release):
    """nbgrader's tests are case-sensitive substrings: other spellings are text, and so are
    nbgrader's own stub lines, which the course's config does not add."""
    path = tiny_variant("# your code here\n",
                        "# your code here  (YOUR CODE HERE, as nbgrader says)\n")
    path.write_text(path.read_text(encoding="utf-8").replace(
        "in `slope`.", "in `slope`: begin Solution with a tape, End solution with `slope`."),
        encoding="utf-8")
    build_course([path], tmp_path / "course", run=False, log=lambda s: None)
    nb = nbgrader_release(tmp_path / "course", "99_tiny_lesson")
    text = "\n".join(c.source for c in nb.cells)
    assert "begin Solution with a tape, End solution" in text
    assert "f = x ** 3" not in text and "NotImplementedError" not in text


# --- links in the task's text ------------------------------------------------------------------
@pytest.mark.parametrize("link", [
    "[the notes](javascript:alert(1))",
    "[the notes](JaVaScRiPt:alert(1))",
    '<a href="java\tscript:alert(1)">the notes</a>',  # a browser drops the tab: javascript:
    "[the notes](&#106;avascript:alert(1))",          # an entity: still javascript:
    "[the notes][ref]\n\n[ref]: vbscript:msgbox(1)\n",  # a reference definition
    "![a plot](data:text/html;base64,PHNjcmlwdD4=)",
    '<a href="javascript:alert(1)">the notes</a>',
    "<img src='data:image/svg+xml,<svg onload=alert(1)>'>",
])
def test_a_link_that_would_run_code_in_the_task_is_refused(link, tiny_variant):
    path = tiny_variant("in `slope`.", f"in `slope`. Read {link} first.")
    with pytest.raises(ExerciseError, match=r"99_tiny_lesson\.md, cell 9 .*links to .*"
                                            r"may only be http:, https:, mailto: or relative"):
        read_exercise(path)


@pytest.mark.parametrize("link", ["[the notes](https://example.org/notes)",
                                  "[lesson 2](02_the_chain_rule.ipynb#section)",
                                  "[ask](mailto:teacher@example.org)",
                                  "`[not a link](javascript:x)` in a code span"])
def test_web_mail_and_relative_links_in_the_task_build(link, tiny_variant):
    path = tiny_variant("in `slope`.", f"in `slope`. Read {link} first.")
    assert link in read_exercise(path).markdown[0]


# --- headings, YAML, bytes and names ------------------------------------------------------------
@pytest.mark.parametrize("fence", ["```", "~~~~", "```md"])
def test_an_exercise_heading_in_a_code_fence_is_an_example(fence, tiny_variant):
    close = fence.rstrip("md")
    path = tiny_variant("## The slope of a square\n",
                        f"## The slope of a square\n\nA lesson's exercise starts so:\n\n"
                        f"{fence}\n## Exercise\n\nCompute ...\n{close}\n")
    ex = read_exercise(path)
    assert ex.markdown[0].startswith("## Exercise\n\nCompute the derivative of `f(x) = x³`")


def test_an_unclosed_fence_hides_the_rest_of_its_cell(tiny_variant):
    path = tiny_variant("## Exercise\n", "```\n## Exercise\n")
    with pytest.raises(ExerciseError, match="no Markdown line starts with '## Exercise'"):
        read_exercise(path)


def _line_of(path, text):
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


@pytest.mark.parametrize("old, new, bad, message", [
    ("  points: 2\n", "  points: [2\n", "  points: [2",
     r"the options of the cell at line \d+ are not valid YAML \(while parsing a flow sequence"),
    ("  points: 2\n", "\tpoints: 2\n", "\tpoints: 2", r"indent with spaces, not tabs"),
    ("    format_version: 0.13\n", "    format_version: [0.13\n", "    format_version: [0.13",
     r"the lesson's header \(between its first two '---' lines\) is not valid YAML"),
])
def test_yaml_that_does_not_parse_names_the_lesson_and_the_line(old, new, bad, message,
                                                               tiny_variant):
    path = tiny_variant(old, new)
    with pytest.raises(ExerciseError, match=message) as err:
        read_exercise(path)
    assert str(err.value).startswith(f"99_tiny_lesson.md, line {_line_of(path, bad)}: ")
    assert "fix it there" in str(err.value)


def test_undecodable_bytes_name_the_lesson_the_line_and_the_fix(tiny_variant):
    path = tiny_variant("store it\n", "store it\n")
    latin1 = "x\xb3".encode("latin-1")                         # x³ in Latin-1
    path.write_bytes(path.read_bytes().replace("x³".encode(), latin1, 1))
    line = next(i for i, ln in enumerate(path.read_bytes().splitlines(), 1) if latin1 in ln)
    with pytest.raises(ExerciseError, match=rf"^99_tiny_lesson\.md, line {line}, column 36: byte "
                                            r"0xb3 is not UTF-8 text .*save it with the "
                                            r"encoding UTF-8"):
        read_exercise(path)


@pytest.mark.parametrize("old, new, message", [
    (":tags: [exercise]", ":tags: 3", r"^99_tiny_lesson\.md: a cell's metadata\.tags is 3, which a "
                                      r"notebook does not allow .*tags are a list of words"),
    (":tags: [exercise]", ":tags: [exercise, 3]", r"^99_tiny_lesson\.md: a cell's "
                                                  r"metadata\.tags\.1 is 3, which a notebook"),
    ("tapekit:\n  points: 1\n", "tapekit: 1\n", r"cell 11 .*needs metadata 'tapekit: "
                                                 r"\{points: N\}'.*got 'tapekit: 1'"),
])
def test_metadata_of_the_wrong_shape_is_refused_by_name(old, new, message, tiny_variant):
    with pytest.raises(ExerciseError, match=message):
        read_exercise(tiny_variant(old, new))


def test_a_lesson_name_outside_ascii_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "99_tïny_lesson.md"
    path.write_text(TINY.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ExerciseError, match=r"99_tïny_lesson\.md: a lesson's name is ASCII .*"
                                            r"rename the file, e.g\. 99_tiny_lesson\.md"):
        build_course([path], tmp_path / "course", run=False)
    assert not (tmp_path / "course").exists()


# --- runs that do not finish --------------------------------------------------------------------
def _exercise(solution, imports=("import time",)):
    """A small exercise that needs no tapekit (its runs start quickly)."""
    return Exercise(Path("98_small.md"), "98_small", "Lesson 98: Small", list(imports), [], [],
                    ["## Exercise\n\nSet x."], "x = None\n# your code here", solution,
                    [('assert x is not None, "x is not set"', 1), ("assert x == 1, 'x is 1'", 2)])


def test_a_run_out_of_time_names_the_lesson_the_cell_and_the_limit():
    with pytest.raises(ExerciseError) as err:
        check_runs(_exercise("time.sleep(600)\nx = 1"), timeout=8)
    message = str(err.value)
    assert message.startswith("98_small.md: running the exercise block did not finish in 8 s: it "
                              "stopped while the solution ran in the solution run, before grade "
                              "cell 1 of 2"), message
    assert "--timeout SECONDS" in message and "build_course(..., timeout=SECONDS)" in message


@pytest.mark.parametrize("solution, how", [
    ("import os\nos._exit(3)", "exited with code 3"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
     r"was killed by signal 9 \(SIGKILL\)"),
])
def test_an_exercise_that_ends_python_names_the_lesson_the_code_and_the_cell(solution, how):
    with pytest.raises(ExerciseError, match=rf"^98_small\.md: the exercise process {how} while "
                                            r"the solution ran in the solution run, before grade "
                                            r"cell 1 of 2: a cell ends Python"):
        check_runs(_exercise(solution))


def test_a_grade_cell_that_ends_python_in_the_skeleton_run_is_named():
    ex = _exercise("x = 1")
    ex.grades[1] = ("import os; os._exit(0)", 2)
    with pytest.raises(ExerciseError, match=r"exited with code 0 while grade cell 2 of 2 ran in "
                                            r"the skeleton run, before the end of the run and the "
                                            r"solution run"):
        check_runs(ex)


def test_run_cells_says_where_the_child_stopped():
    with pytest.raises(CellsStopped, match=r"exited with code 4, in cell 2 of 'a'") as err:
        run_cells({"a": ["x = 1", "import os; os._exit(4)", "y = 2"]})
    assert (err.value.run, err.value.index, err.value.returncode) == ("a", 1, 4)


# --- any marker in any cell: refused by name, or released without the solution (hypothesis) ----
# Every spelling nbgrader acts on, with neighbours it does not act on (another case, spacing,
# a longer word around it) and nbgrader's own stub lines; placed in any line of any cell,
# alone, indented, in a comment or a string, among other characters.
SPELLINGS = [*SOLUTION_MARKERS, *HIDDEN_MARKERS, *MARK_SCHEME_MARKERS,
             "### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS",
             "### END HIDDEN TESTS", "#BEGIN HIDDEN TESTS", "# END HIDDEN TESTS",
             "### BEGIN MARK SCHEME", "# AUTOTEST slope", "# HASHED AUTOTEST slope",
             "# YOUR CODE HERE", "raise NotImplementedError()", "YOUR ANSWER HERE",
             "### begin solution", "### End Solution", "BEGIN  SOLUTION", "SEND SOLUTION",
             "BEGIN HIDDEN TESTSUITE", "APPEND HIDDEN TESTS"]
FILLER = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="`"),
                 max_size=8)
LINES = st.builds(lambda form, marker, a, b: form.format(m=marker, a=a, b=b),
                  st.sampled_from(["{m}", "    {m}", "{a}{m}{b}", "# {a} {m}", 'note = "{m}"',
                                   "x = 1  # {m}", "{a}"]),
                  st.sampled_from(SPELLINGS), FILLER, FILLER)
# where a line goes: (a unique piece of the tiny lesson, what replaces it given the line)
PLACES = {
    "title": ("# Lesson 99: A tiny lesson", lambda a, ln: f"{a} {ln}"),
    "task": ("in `slope`.", lambda a, ln: f"{a}\n{ln}"),
    "import cell": ("import numpy as np\n", lambda a, ln: f"{a}{ln}\n"),
    "a lesson cell": ("dy_dx = tape.gradient(y, x)\n", lambda a, ln: f"{a}{ln}\n"),
    "given cell": ("```{code-cell} ipython3\n:tags: [exercise]\n",
                   lambda a, ln: f"```{{code-cell}} ipython3\n:tags: [exercise-setup]\n\n{ln}\n"
                                 f"```\n\n{a}"),
    "skeleton": ("# your code here\n", lambda a, ln: f"{a}{ln}\n"),
    "solution start": ("# Solution\n", lambda a, ln: f"{a}{ln}\n"),
    "solution, indented": ("    f = x ** 3\n", lambda a, ln: f"{a}    {ln}\n"),
    "solution end": ("print(slope)\n", lambda a, ln: f"{a}{ln}\n"),
    "grade cell 1": ("  points: 1\n---\n", lambda a, ln: f"{a}{ln}\n"),
    "hidden tests": ("### BEGIN HIDDEN TESTS\n", lambda a, ln: f"{a}{ln}\n"),
    "after the hidden tests": ("### END HIDDEN TESTS\n", lambda a, ln: f"{a}{ln}\n"),
}
MARKER_WORDS = (*NBGRADER_MARKERS, AUTOTEST_MARKER)


def _visible(source):
    """A grade cell as nbgrader's ClearHiddenTests leaves it for students."""
    kept, hidden = [], False
    for line in source.split("\n"):
        if HIDDEN_MARKERS[0] in line:
            hidden = True
        elif HIDDEN_MARKERS[1] in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(inserts=st.lists(st.tuples(st.sampled_from(sorted(PLACES)), LINES), min_size=1,
                        max_size=3))
def test_any_marker_anywhere_is_refused_or_released_without_the_solution(inserts,
                                                                        nbgrader_release):
    text = TINY.read_text(encoding="utf-8")
    for place, line in inserts:
        anchor, put = PLACES[place]
        text = text.replace(anchor, put(anchor, line), 1)
    with tempfile.TemporaryDirectory() as tmp:
        path, course = Path(tmp) / TINY.name, Path(tmp) / "course"
        path.write_text(text, encoding="utf-8")
        try:
            build_course([path], course, run=False, log=lambda s: None)
        except ExerciseError as e:
            message = str(e)
            assert message.startswith("99_tiny_lesson.md"), message
            if any(m in message for m in MARKER_WORDS) or "hidden tests" in message:
                assert re.match(r"99_tiny_lesson\.md, cell \d+ \((code|markdown), starting ",
                                message), message
            assert not course.exists(), "a refused build writes nothing"
            event("refused")
            return
        event("released")
        ex = read_exercise(path)
        source = nbformat.read(course / "source" / ex.name / f"{ex.name}.ipynb", as_version=4)
        released = nbgrader_release(course, ex.name)      # raises where nbgrader refuses
    assert [c.id for c in released.cells] == [c.id for c in source.cells]
    for src, out in zip(source.cells, released.cells):
        meta = src.metadata["nbgrader"]
        if meta["solution"]:       # the student starts from the lesson's exercise cell
            assert out.source.strip() == ex.skeleton.strip(), (out.source, ex.skeleton)
        elif meta["grade"]:        # nbgrader puts the source's checks back when it grades
            assert src.source in [g for g, _ in ex.grades]
            assert out.source == _visible(src.source)
            try:
                ast.parse(src.source)
            except SyntaxError:
                continue
            ast.parse(out.source)  # what students run is valid Python too
        else:                      # nbgrader left every other cell as it was
            assert out.source == src.source
    shown = "\n".join([c.source for c in source.cells if not c.metadata["nbgrader"]["solution"]
                       and not c.metadata["nbgrader"]["grade"]]
                      + [ex.skeleton] + [_visible(g) for g, _ in ex.grades])
    release_text = "\n".join(c.source for c in released.cells)
    secret = ex.solution.splitlines() + [ln for g, _ in ex.grades for ln in g.splitlines()
                                         if ln not in _visible(g).splitlines()]
    leaked = [ln.strip() for ln in secret
              if ln.strip() and ln.strip() in release_text and ln.strip() not in shown]
    assert not leaked, f"the release shows students {leaked}"
