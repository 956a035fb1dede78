"""How long a lesson takes: a reading model for the text, code and output, and one for the exercise.

Reading: plain prose at 130 words a minute, mathematical prose (a paragraph holding a formula,
a `code` span or a math symbol) at 115, each formula read symbol by symbol on top of that
(SECONDS_PER_FORMULA for an inline $...$, SECONDS_PER_DISPLAY for a displayed $$...$$), visible
code at 5 lines a minute (a reader runs and reads each line), the printed output of the visible
cells at 10 lines a minute (the text asks for it to be read: a stepper's steps, a generated
program, a training log) and SECONDS_PER_PICTURE for each picture (a plot, a graph, a widget),
the outputs as the lesson's notebook stores them. Words are the whitespace-separated tokens of
the Markdown cells; code lines are the non-blank lines of the code cells a reader sees
(collapsed check and solution cells are not counted). A lesson states "About N minutes" with N
at least the model's figure, and no lesson reads for more than MAX_MINUTES, a class hour: a
longer one is split where its topic breaks.

The rates are calibrated on readers who worked the whole course (issue 47). The first found
mathematical prose read at 110-120 words a minute, not 130. The second measured all 34
lessons: the model without the printed output and the pictures was 19% short over the course
(23 and 26 by 50% and 43%: lesson 23 prints tapekit's own source to read); with them every
lesson's model, reading and exercise, is within a fifth of the measured time. A later reader
found the lessons that derive backward passes by hand (09, 10, 25, 25b, 26) and 23 slower
still: they state more than the model. A third reading (three readers, one part of the course
each) read the code-heavy lessons a third faster than the two before; code went from 4 lines
a minute to 5 and the exercise floor from 2 minutes a point to 1.5, and the stated times are
within a fifth of that reading and a quarter of the two before (tests/teach/test_minutes.py).

The exercise: MINUTES_PER_POINT for each of its points, rounded up, as a floor. Readers who
worked the exercises of nine lessons took 1.3 to 3.3 minutes a point, 1.7 on average. A lesson states it as
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
OUTPUT_LINES_PER_MINUTE = 10     # printed output of the visible cells
SECONDS_PER_PICTURE = 60          # a plot, a graph, a widget in a visible cell's output
MAX_MINUTES = 50
MINUTES_PER_POINT = 1.5
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


_PICTURES = ("image/png", "image/svg+xml", "application/vnd.jupyter.widget-view+json")


def shown(path):
    """(printed output lines, pictures) of the visible cells of the lesson's notebook (the
    .ipynb beside a .md), as it stores them; (0, 0) without one."""
    nb_path = Path(path).with_suffix(".ipynb")
    if not nb_path.exists():
        return 0, 0
    lines = pictures = 0
    for cell in jupytext.read(nb_path).cells:
        hidden = cell.metadata.get("jupyter", {})
        if cell.cell_type != "code" or hidden.get("source_hidden") or hidden.get("outputs_hidden"):
            continue
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            if out["output_type"] == "stream":
                lines += len(out["text"].splitlines())
            elif out["output_type"] == "error":
                lines += len(out.get("evalue", "").splitlines())
            elif any(k in data for k in _PICTURES) or "<svg" in html or "<img" in html:
                pictures += 1
            elif "text/plain" in data:
                lines += len(data["text/plain"].splitlines())
    return lines, pictures


def reading_minutes(path):
    plain, mathy, inline, display = prose(path)
    _, lines = counts(path)
    printed, pictures = shown(path)
    return math.ceil(plain / WORDS_PER_MINUTE + mathy / MATH_WORDS_PER_MINUTE
                     + (inline * SECONDS_PER_FORMULA + display * SECONDS_PER_DISPLAY) / 60
                     + lines / CODE_LINES_PER_MINUTE + printed / OUTPUT_LINES_PER_MINUTE
                     + pictures * SECONDS_PER_PICTURE / 60)


def exercise_minutes(points):
    return math.ceil(MINUTES_PER_POINT * points)


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
