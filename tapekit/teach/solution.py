"""A lesson's solution, run apart from the student's answer.

A lesson's exercise block is: the task, the student's cell (`# your code here`), the graded
checks, and last the collapsed solution (first line `# Solution`). A student who presses
Shift+Enter from their cell, as often as they like, or chooses Run All, runs their answer and
then the checks, which judge it. The solution comes after them, and it must not replace the
student's names either: `keep_apart("NN_slug.md")`, called in a hidden cell of the lesson
before its exercise, makes IPython run every cell whose first line is `# Solution` in a copy
of the notebook's namespace, where the exercise's own setup cells (its data, a fresh model)
run again first: a model the student's answer trained is not the one the solution trains.
The solution sees the lesson's names (np, tk, the data) and binds its own only in that copy;
after it, the lesson's graded checks (read from the lesson's `.md` file, beside the notebook)
run on the copy, so a run of the lesson (nbval's, `make notebooks`') shows that the solution
passes the same checks that judged the student.

Nothing is imported by `import tapekit`; reading the checks needs jupytext (the [lab] extra).
"""
import ast
import contextlib
import io
from pathlib import Path

from .layout import SOLUTION_FIRST_LINE


_LESSONS = {}          # id(shell) -> the Exercise whose checks a solution must pass (or None)


def keep_apart(lesson):
    """Run this notebook's `# Solution` cells in a namespace of their own, then `lesson`'s
    graded checks on what they bound. `lesson`: the lesson's .md file (relative to the
    kernel's folder, the notebook's). Outside IPython this does nothing."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    try:
        from .exercise import read_exercise
        exercise = read_exercise(Path(lesson))
    except Exception:      # no .md beside the notebook, or no jupytext: the solution still runs apart
        exercise = None
    _LESSONS[id(shell)] = exercise
    if _as_apart not in shell.input_transformers_post:
        shell.input_transformers_post.append(_as_apart)


def _as_apart(lines):
    """IPython input transformer: a cell whose first line is `# Solution` becomes a call of
    run_apart with its text; every other cell is left as it is."""
    if not lines or not SOLUTION_FIRST_LINE.match(lines[0]):
        return lines
    return [f"__import__('tapekit.teach.solution', fromlist=['run_apart'])"
            f".run_apart({''.join(lines)!r})\n"]


def run_apart(source):
    """Run a solution cell's `source` in a copy of the notebook's namespace (the value of a last
    bare expression is displayed, as a cell's is), then the lesson's graded checks there.
    The student's names are untouched. A check that fails raises AssertionError naming it."""
    from IPython import get_ipython
    from IPython.display import display
    shell = get_ipython()
    names = dict(shell.user_ns)         # a copy: what the solution binds stays in it
    exercise = _LESSONS.get(id(shell))
    # A copy of the names, not of the objects: the task's own cells (its data, a fresh model)
    # run again in the copy, so that the solution starts from them, not from the model the
    # student's answer has trained already.
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for given in (exercise.given if exercise is not None else ()):   # printed above already
            exec(compile(shell.transform_cell(given), "<the exercise's setup>", "exec"), names)
    body = source.split("\n", 1)[1] if "\n" in source else ""
    code = shell.transform_cell(body)                          # %magics as Python
    # IPython's cache keeps the text under a file name, as for any cell: inspect.getsource
    # (a check reading a function's source, tk.function) finds the solution's code.
    filename = shell.compile.cache(code)
    tree = ast.parse(code, filename)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, filename, "exec"), names)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), filename, "eval"), names)
        if value is not None:
            display(value)
    if exercise is None:
        return
    for k, (check, points) in enumerate(exercise.grades, 1):
        try:
            exec(compile(check, f"<check {k}>", "exec"), names)
        except AssertionError as e:
            raise AssertionError(f"the solution fails check {k} of {len(exercise.grades)}: "
                                 f"{e}") from None
    n = len(exercise.grades)
    print(f"The solution passes the {n} check{'s' * (n != 1)} above "
          f"({exercise.points} points), in a namespace of its own: your names are as your "
          "cell left them.")
