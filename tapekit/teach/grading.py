"""Grading with nbgrader's own commands: release the assignments, submit answers, autograde.

`generate_release(course_dir, names)` runs `nbgrader generate_assignment`;
`grade_answers(course_dir, {(assignment, student): code})` submits each answer into the
release, runs `nbgrader autograde`, `generate_feedback` and `export`, and reads back each
score and failing check.
"""
import csv
import os
import subprocess
import sys
from pathlib import Path

import nbformat


def nbgrader_env():
    """os.environ with this Python's scripts folder first on PATH: nbgrader's gradebook runs
    the `alembic` command by name, which fails from a venv that is not activated."""
    scripts = str(Path(sys.executable).parent)
    return dict(os.environ, PATH=os.pathsep.join([scripts, os.environ.get("PATH", "")]))


def nbgrader(course_dir, *args, check=True):
    """Run `python -m nbgrader ARGS` in course_dir; return the CompletedProcess."""
    cmd = [sys.executable, "-m", "nbgrader", *args]
    proc = subprocess.run(cmd, cwd=course_dir, capture_output=True, text=True, env=nbgrader_env())
    if check and proc.returncode:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed in {course_dir}:\n"
                           f"{proc.stdout[-2000:]}{proc.stderr[-3000:]}")
    return proc


def generate_release(course_dir, names, log=print):
    """`nbgrader generate_assignment` for each name, run in course_dir (needs nbgrader).

    One nbgrader run releases all of them when they are every assignment in source/ (each
    run costs nbgrader's start-up, seconds); otherwise one run per name.
    """
    names = list(names)
    every = sorted(p.name for p in (Path(course_dir) / "source").iterdir() if p.is_dir())
    for which in (["*"] if sorted(names) == every else names):
        nbgrader(course_dir, "generate_assignment", f"--assignment={which}", "--force",
                 "--log-level=WARN")
    for name in names:
        log(f"release/{name}/{name}.ipynb")


# --- grading answers with nbgrader's own commands -----------------------------------------
def submit(course_dir, name, student, answer):
    """Write `student`'s submission of assignment `name`: the release with `answer` (the code
    a student types) in the answer cell, or the release untouched when answer is None."""
    course_dir = Path(course_dir)
    nb = nbformat.read(course_dir / "release" / name / f"{name}.ipynb", as_version=4)
    if answer is not None:
        cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
        if len(cells) != 1:
            raise ValueError(f"release/{name}: expected one answer cell, found {len(cells)}")
        cells[0].source = answer
    out = course_dir / "submitted" / student / name / f"{name}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def grade_answers(course_dir, answers, feedback=True):
    """Submit and grade answers with nbgrader's CLI: autograde, generate_feedback, export.

    answers: {(assignment name, student id): answer code or None (the untouched release)}.
    Every assignment is graded in one `nbgrader autograde` run (one run per assignment costs
    nbgrader's start-up each time). Returns {(name, student): {"score": float, "max_score":
    float, "failures": [(grade_id, exception name, message), ...], "feedback": Path or None}}.
    """
    course_dir = Path(course_dir)
    for (name, student), answer in answers.items():
        submit(course_dir, name, student, answer)
    nbgrader(course_dir, "autograde", "--assignment=*", "--force", "--log-level=WARN")
    if feedback:
        nbgrader(course_dir, "generate_feedback", "--assignment=*", "--force",
                 "--log-level=WARN")
    nbgrader(course_dir, "export", "--to=grades.csv", "--log-level=WARN")
    with open(course_dir / "grades.csv", newline="") as f:
        rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    out = {}
    for name, student in answers:
        row = rows[(name, student)]
        graded = course_dir / "autograded" / student / name / f"{name}.ipynb"
        nb = nbformat.read(graded, as_version=4)
        failures = []
        for c in nb.cells:
            meta = c.metadata.get("nbgrader", {})
            if meta.get("grade") and c.cell_type == "code":
                for o in c.get("outputs", []):
                    if o.output_type == "error":
                        failures.append((meta["grade_id"], o.ename, o.evalue))
        html = course_dir / "feedback" / student / name / f"{name}.html"
        out[(name, student)] = {"score": float(row["raw_score"]),
                                "max_score": float(row["max_score"]),
                                "failures": failures,
                                "feedback": html if html.exists() else None}
    return out

