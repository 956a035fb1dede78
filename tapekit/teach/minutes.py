"""How long a lesson takes: a reading model for the text and code, and one for the exercise.

Reading: plain prose at 130 words a minute, mathematical prose (a paragraph holding a formula,
a `code` span or a math symbol) at 115, each formula read symbol by symbol on top of that
(SECONDS_PER_FORMULA for an inline $...$, SECONDS_PER_DISPLAY for a displayed $$...$$), plus
visible code at 5 lines a minute (a reader runs and reads each line). Words are the
whitespace-separated tokens of the Markdown cells; code lines are the non-blank lines of the
code cells a reader sees (collapsed check and solution cells are not counted). A lesson states
"About N minutes" with N at least the model's figure, and no lesson reads for more than
MAX_MINUTES: a longer one is split where its topic breaks.

The rates are calibrated on a reader who worked the whole course (issue 47): 110-120 words a
minute on mathematical prose, against the 130 of plain prose that the model used for all
prose before, which put lessons 02, 09, 11 and 15 a fifth or more under the measured times.

The exercise: MINUTES_PER_POINT for each of its points. Readers who worked the exercises of
nine lessons took 1.3 to 3.3 minutes a point, 1.7 on average. A lesson states it as
"About N minutes, and about M more for the exercise".

    python -m tapekit.teach minutes [LESSONS_DIR_OR_FILES ...]
"""
import math
import re
from pathlib import Path

import jupytext

WORDS_PER_MINUTE = 130            # plain prose
MATH_WORDS_PER_MINUTE = 115       # a paragraph with a formula, a `code` span or a math symbol
SECONDS_PER_FORMULA = 5           # each inline $...$, read symbol by symbol
SECONDS_PER_DISPLAY = 15          # each displayed $$...$$
CODE_LINES_PER_MINUTE = 5
MAX_MINUTES = 35
MINUTES_PER_POINT = 2
STATED = re.compile(r"About (\d+)\s+minutes(?:, and about (\d+) more for the exercise)?")


_DISPLAY = re.compile(r"\$\$.+?\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$[^$\n]+\$")
_MATHY = re.compile(r"`[^`\n]+`|[²³·∂∑√≈×ᵀ∇εθλσ→]")


def _hidden(cell):
    return cell.metadata.get("jupyter", {}).get("source_hidden") is True


def _markdown(path):
    return [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]


def prose(path):
    """(plain words, mathematical words, inline formulas, displayed formulas) of a lesson's
    Markdown: a paragraph's words are mathematical when it holds a formula, a `code` span or a
    math symbol."""
    plain = mathy = inline = display = 0
    for source in _markdown(path):
        for para in re.split(r"\n\s*\n", source):
            d, rest = len(_DISPLAY.findall(para)), _DISPLAY.sub(" ", para)
            i = len(_INLINE.findall(rest))
            words = len(para.split())
            if d or i or _MATHY.search(rest):
                mathy += words
            else:
                plain += words
            inline, display = inline + i, display + d
    return plain, mathy, inline, display


def counts(path):
    """(prose words, visible code lines) of a lesson (.md or .ipynb)."""
    nb = jupytext.read(path)
    words = sum(len(c.source.split()) for c in nb.cells if c.cell_type == "markdown")
    lines = sum(sum(1 for ln in c.source.splitlines() if ln.strip())
                for c in nb.cells if c.cell_type == "code" and not _hidden(c))
    return words, lines


def reading_minutes(path):
    plain, mathy, inline, display = prose(path)
    _, lines = counts(path)
    return math.ceil(plain / WORDS_PER_MINUTE + mathy / MATH_WORDS_PER_MINUTE
                     + (inline * SECONDS_PER_FORMULA + display * SECONDS_PER_DISPLAY) / 60
                     + lines / CODE_LINES_PER_MINUTE)


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
