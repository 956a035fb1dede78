"""A lesson's exercise block: read from its `.md` file and checked.

`read_exercise(path)` reads the block marked as described in docs/write_your_own_lesson.md
(the `## Exercise` Markdown, the reader's cell tagged `exercise`, the `solution`, the checks
tagged `grade`) into an `Exercise`, or raises `ExerciseError` naming the lesson and the cell.
`check_runs(ex)` runs the block in a fresh Python: each check must FAIL when only the skeleton
ran, and pass after the solution. assignments.py builds the nbgrader notebooks from these.
"""
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import jupytext

EXERCISE_HEADING = re.compile(r"^##\s+Exercise\b", re.M)
SOLUTION_FIRST_LINE = re.compile(r"^#\s*Solution\b")
MARKER_TAGS = ("exercise", "solution", "grade")
SETUP_TAG = "exercise-setup"     # a lesson cell the exercise builds on, copied to the assignment
LESSON_NAME = re.compile(r"^\d+[a-z]?_\w+$")


class ExerciseError(ValueError):
    """A lesson's exercise markers are missing or wrong (the message names the lesson and cell)."""


@dataclass
class Exercise:
    """One lesson's exercise block, read from its .md file."""
    path: Path
    name: str                      # NN_slug, the assignment's name
    title: str                     # the lesson's `# ...` heading, e.g. "Lesson 4: Persistent tapes"
    imports: list                  # the lesson's first code cell and its import-only cells
    setup: list                    # source of the lesson's cells tagged `exercise-setup`
    given: list                    # `exercise-setup` cells inside the block: the task's data
    markdown: list                 # the exercise's Markdown cell(s), `## Exercise` first
    skeleton: str                  # the reader's cell: it opens the assignment's answer cell
    solution: str                  # the solution's body, without its `# Solution` line
    grades: list = field(default_factory=list)   # [(source, points)]
    seconds: float = None          # the solution's run (imports, solution, checks), if run

    @property
    def points(self):
        return sum(p for _, p in self.grades)


def _where(path, index, cell):
    first = (cell.source.strip().splitlines() or [""])[0][:50]
    return f"{path.name}, cell {index + 1} ({cell.cell_type}, starting {first!r})"


def _tags(cell):
    return list(cell.metadata.get("tags", []))


def _is_import_cell(cell):
    if cell.cell_type != "code" or set(_tags(cell)) & {"check", "remove-cell", SETUP_TAG,
                                                         *MARKER_TAGS}:
        return False
    try:
        body = ast.parse(cell.source).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in body)


def has_exercise_markers(path):
    """True if a cell of the lesson is tagged `exercise` or `grade` (the new markers)."""
    nb = _read(path)
    tags = {t for c in nb.cells for t in _tags(c)}
    return "exercise" in tags or "grade" in tags


def _read(path):
    return jupytext.read(Path(path))


def read_exercise(path):
    """Read and validate the exercise block of one lesson (`NN_slug.md`); raise ExerciseError."""
    path = Path(path)
    if path.suffix != ".md":
        raise ExerciseError(f"{path}: give the lesson's MyST Markdown file (.md), the source "
                            "of its text; the .ipynb beside it only stores outputs")
    if not LESSON_NAME.match(path.stem):
        raise ExerciseError(f"{path.name}: a lesson's file is named NN_slug.md (digits, an "
                            "optional letter, an underscore, then letters, digits or _), e.g. "
                            "99_tiny_lesson.md; the name becomes the assignment's name")
    nb = _read(path)
    cells = nb.cells
    title = next((c.source.strip().splitlines()[0].lstrip("#").strip() for c in cells
                  if c.cell_type == "markdown" and c.source.strip().startswith("# ")), path.stem)

    # In MyST text, the Markdown between two code cells is one cell: the heading may sit
    # inside a cell that holds the end of the previous section too.
    heads = [(i, m) for i, c in enumerate(cells) if c.cell_type == "markdown"
             for m in EXERCISE_HEADING.finditer(c.source)]
    if not heads:
        raise ExerciseError(f"{path.name}: no exercise: no Markdown line starts with "
                            "'## Exercise' (the exercise block starts with it)")
    if len(heads) > 1:
        raise ExerciseError(f"{path.name}: {len(heads)} Markdown lines start with '## Exercise' "
                            f"(cells {', '.join(str(i + 1) for i, _ in heads)}); a lesson has "
                            "one exercise block")
    start, heading = heads[0]
    for i, c in enumerate(cells[:start]):
        found = set(_tags(c)) & set(MARKER_TAGS)
        if found:
            raise ExerciseError(f"{_where(path, i, c)} is tagged {sorted(found)} but comes "
                                "before the '## Exercise' cell; the block is: '## Exercise' "
                                "Markdown, exercise cell, solution cell, grade cell(s)")

    markdown, skeleton, solution, grades, ended = [], None, None, [], None
    setup_in_block = []
    for i in range(start, len(cells)):
        c = cells[i]
        tags = set(_tags(c))
        where = _where(path, i, c)
        if grades and "grade" not in tags and ended is None:
            ended = i       # after the last grade cell: the lesson's own ending (not assigned)
        if ended is not None:
            if tags & set(MARKER_TAGS):
                raise ExerciseError(f"{where}: tagged {sorted(tags & set(MARKER_TAGS))} after "
                                    f"the exercise block ended at cell {ended + 1}; its grade "
                                    "cells come one after the other, right after the solution")
            continue
        if c.cell_type == "markdown":
            if i == start or (skeleton is None and solution is None and not grades
                              and not setup_in_block):
                markdown.append(c.source[heading.start():] if i == start else c.source)
                markdown[-1] = markdown[-1].strip()
                continue
            raise ExerciseError(f"{where}: a Markdown cell between the exercise's code cells; "
                                "the block is '## Exercise' text, then the exercise, solution "
                                "and grade cells one after the other")
        if c.cell_type != "code":
            continue
        if len(tags & set(MARKER_TAGS)) > 1:
            raise ExerciseError(f"{where}: tagged {sorted(tags & set(MARKER_TAGS))}; a cell is "
                                "one of exercise, solution or grade")
        if SETUP_TAG in tags and not tags & set(MARKER_TAGS) and skeleton is None:
            setup_in_block.append(c.source.strip())     # given code the task starts from
            continue
        if "exercise" in tags:
            if skeleton is not None or solution is not None or grades:
                raise ExerciseError(f"{where}: a second exercise cell, or one after the "
                                    "solution; the order is exercise, solution, grade")
            skeleton = c.source
        elif "solution" in tags:
            if skeleton is None:
                raise ExerciseError(f"{where}: the solution comes before any cell tagged "
                                    "'exercise' (the reader's skeleton, '# your code here')")
            if solution is not None or grades:
                raise ExerciseError(f"{where}: a second solution cell, or one after a grade "
                                    "cell; the order is exercise, solution, grade")
            lines = c.source.splitlines()
            if not lines or not SOLUTION_FIRST_LINE.match(lines[0]):
                raise ExerciseError(f"{where}: the solution's first line must be '# Solution' "
                                    "(everything after it is what nbgrader hides)")
            solution = "\n".join(lines[1:]).strip("\n")
            if not solution.strip():
                raise ExerciseError(f"{where}: the solution cell holds only its '# Solution' line")
        elif "grade" in tags:
            if solution is None:
                raise ExerciseError(f"{where}: a grade cell before the solution cell; the "
                                    "order is exercise, solution, grade")
            points = c.metadata.get("tapekit", {}).get("points")
            if isinstance(points, bool) or not isinstance(points, int) or points < 1:
                raise ExerciseError(f"{where}: a grade cell needs metadata "
                                    f"'tapekit: {{points: N}}' with an int N >= 1, got {points!r}")
            if "assert" not in c.source:
                raise ExerciseError(f"{where}: a grade cell checks the answer with "
                                    "`assert condition, \"what was expected\"`; this one has "
                                    "no assert")
            grades.append((c.source.strip("\n"), points))
        elif set(_tags(c)) & {"check", "remove-cell"}:
            raise ExerciseError(f"{where}: a check cell inside the exercise block without the "
                                "'grade' tag; tag it [check, remove-cell, grade] with "
                                "'tapekit: {points: N}', or move it before '## Exercise'")
        else:
            hint = (" If it is the reader's cell, tag it [exercise]." if skeleton is None
                    and solution is None else "")
            raise ExerciseError(f"{where}: an untagged code cell inside the exercise block; "
                                "the block holds only the exercise, solution and grade cells "
                                f"(the assignment would lose this one).{hint}")
    if skeleton is None:
        raise ExerciseError(f"{path.name}: the exercise has no cell tagged 'exercise' (the "
                            "reader's skeleton, e.g. '# your code here') after '## Exercise'")
    if solution is None:
        raise ExerciseError(f"{path.name}: the exercise has no cell tagged 'solution' after "
                            "its exercise cell")
    if not grades:
        raise ExerciseError(f"{path.name}: the exercise has no cell tagged 'grade' (a check "
                            "with 'tapekit: {points: N}') after its solution: nothing to grade")
    # The lesson's first code cell (its imports and settings, by the course's convention),
    # and any later cell that holds only imports.
    code = [c for c in cells[:start] if c.cell_type == "code"]
    first = code[0] if code and not set(_tags(code[0])) & {"check", "remove-cell", SETUP_TAG,
                                                            *MARKER_TAGS} else None
    imports = [c.source.strip() for c in code if c is first or _is_import_cell(c)]
    setup = []
    for i, c in enumerate(cells[:start]):
        if SETUP_TAG in _tags(c):
            if c.cell_type != "code" or {"check", "remove-cell"} & set(_tags(c)):
                raise ExerciseError(f"{_where(path, i, c)}: tagged '{SETUP_TAG}', which marks "
                                    "a code cell of the lesson that the assignment copies; "
                                    "not a Markdown or check cell")
            setup.append(c.source.strip())
    return Exercise(path, path.stem, title, imports, setup, setup_in_block, markdown, skeleton,
                    solution, grades)


# --- running the block: each check fails on the skeleton and passes on the solution ---------
_RUNNER = textwrap.dedent('''
    import json, sys, time
    from IPython.core.interactiveshell import InteractiveShell
    job = json.load(open(sys.argv[1]))
    out = {}
    for run, cells in job.items():
        InteractiveShell.clear_instance()
        shell = InteractiveShell.instance()
        results, t0 = [], time.perf_counter()
        for src in cells:
            r = shell.run_cell(src, silent=True)
            err = r.error_before_exec or r.error_in_exec
            results.append(None if err is None else [type(err).__name__, str(err)])
        out[run] = {"results": results, "seconds": time.perf_counter() - t0}
    json.dump(out, open(sys.argv[2], "w"))
''')


def run_cells(runs, timeout=120):
    """Run lists of cells, each list in a fresh IPython shell (in one child Python).

    runs: {name: [cell source, ...]}. Returns {name: {"results": [None or
    [exception type, message], ...], "seconds": float}}.
    """
    with tempfile.TemporaryDirectory() as tmp:
        job, result = Path(tmp) / "job.json", Path(tmp) / "result.json"
        job.write_text(json.dumps(runs))
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0")
        proc = subprocess.run([sys.executable, "-c", _RUNNER, str(job), str(result)], cwd=tmp,
                              env=env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode or not result.exists():
            raise RuntimeError(f"running the exercise cells failed:\n{proc.stderr[-2000:]}")
        return json.loads(result.read_text())


def check_runs(ex, timeout=120):
    """Run `ex`'s block twice: after the skeleton (the lesson's exercise cell, which is also the
    release's answer cell) every check must fail with a message; after the skeleton and the
    solution (the instructor's answer cell) every check passes. Raise ExerciseError otherwise.

    Returns the seconds the solution's run took (imports, solution, checks).
    """
    before = ex.imports + ex.setup + ex.given
    res = run_cells({"skeleton": before + [ex.skeleton] + [g for g, _ in ex.grades],
                     "solution": before + [f"{ex.skeleton.rstrip()}\n{ex.solution}"]
                     + [g for g, _ in ex.grades]},
                    timeout=timeout)
    n = len(before)
    for i, r in enumerate(res["solution"]["results"]):
        if r is not None:
            what = ("an import cell" if i < len(ex.imports) else
                    f"the '{SETUP_TAG}' cell {i - len(ex.imports) + 1}" if i < n else
                    "the solution" if i == n else f"grade cell {i - n} of {len(ex.grades)}")
            hint = (f" The assignment holds only the lesson's import cells, its cells tagged "
                    f"'{SETUP_TAG}' and the exercise block: tag the lesson's cells that the "
                    f"exercise needs '{SETUP_TAG}'." if r[0] == "NameError" else "")
            raise ExerciseError(f"{ex.path.name}: {what} raised {r[0]}: {r[1]} when the "
                                "lesson's solution ran (the instructor's answer must get "
                                f"full marks).{hint}")
    for run, label in (("skeleton", "the skeleton (the lesson's exercise cell, which the "
                                    "release hands out as the answer cell)"),):
        for i, r in enumerate(res[run]["results"]):
            if i < n and r is not None:
                raise ExerciseError(f"{ex.path.name}: an import or '{SETUP_TAG}' cell raised "
                                    f"{r[0]}: {r[1]}")
            if i == n and r is not None:
                raise ExerciseError(f"{ex.path.name}: the exercise cell (the skeleton) raised "
                                    f"{r[0]}: {r[1]}; it must run without error")
            if i > n:
                k = f"grade cell {i - n} of {len(ex.grades)}"
                if r is None:
                    raise ExerciseError(f"{ex.path.name}: {k} passes on {label}: it would "
                                        "give points for no work; make it fail there")
                if r[0] != "AssertionError":
                    raise ExerciseError(f"{ex.path.name}: {k} fails on {label} with {r[0]}: "
                                        f"{r[1]}; a check fails with an AssertionError whose "
                                        "message says what is missing (test `'name' in "
                                        "globals()` first)")
                if not r[1].strip():
                    raise ExerciseError(f"{ex.path.name}: {k} fails on {label} with a bare "
                                        "AssertionError; give the assert a message that tells "
                                        "the student what was expected")
    return res["solution"]["seconds"]

