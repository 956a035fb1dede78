"""How long a lesson takes: a reading model for the text and code, and one for the exercise.

Reading: prose at 130 words a minute plus visible code at 5 lines a minute (a reader runs
and reads each line). Words are the whitespace-separated tokens of the Markdown cells; code
lines are the non-blank lines of the code cells a reader sees (collapsed check and solution
cells are not counted). A lesson states "About N minutes" with N at least the model's figure,
and no lesson reads for more than MAX_MINUTES: a longer one is split where its topic breaks.

The exercise: MINUTES_PER_POINT for each of its points. Readers who worked the exercises of
nine lessons took 1.3 to 3.3 minutes a point, 1.7 on average. A lesson states it as
"About N minutes, and about M more for the exercise".

    python -m tapekit.teach minutes [LESSONS_DIR_OR_FILES ...]
"""
import math
import re
from pathlib import Path

import jupytext

WORDS_PER_MINUTE = 130
CODE_LINES_PER_MINUTE = 5
MAX_MINUTES = 35
MINUTES_PER_POINT = 2
STATED = re.compile(r"About (\d+)\s+minutes(?:, and about (\d+) more for the exercise)?")


def _hidden(cell):
    return cell.metadata.get("jupyter", {}).get("source_hidden") is True


def counts(path):
    """(prose words, visible code lines) of a lesson (.md or .ipynb)."""
    nb = jupytext.read(path)
    words = sum(len(c.source.split()) for c in nb.cells if c.cell_type == "markdown")
    lines = sum(sum(1 for ln in c.source.splitlines() if ln.strip())
                for c in nb.cells if c.cell_type == "code" and not _hidden(c))
    return words, lines


def reading_minutes(path):
    words, lines = counts(path)
    return math.ceil(words / WORDS_PER_MINUTE + lines / CODE_LINES_PER_MINUTE)


def exercise_minutes(points):
    return MINUTES_PER_POINT * points


def stated(path):
    """(reading minutes, exercise minutes) the lesson states; None where it states none."""
    m = STATED.search(Path(path).read_text(encoding="utf-8"))
    if not m:
        return None, None
    return int(m[1]), (int(m[2]) if m[2] else None)


def table(paths, points_of=None):
    """Lines of text: each lesson's stated and modelled minutes, words and lines."""
    rows = [f"{'lesson':48} {'stated':>6} {'model':>5} {'exercise':>8} {'words':>5} {'lines':>5}"]
    for path in paths:
        words, lines = counts(path)
        n, m = stated(path)
        ex = "" if points_of is None else f"{m}/{exercise_minutes(points_of(path))}"
        rows.append(f"{Path(path).stem:48} {n!s:>6} {reading_minutes(path):>5} {ex:>8} "
                    f"{words:>5} {lines:>5}")
    return rows
