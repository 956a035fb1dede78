#!/usr/bin/env python3
"""How long a lesson takes to work through, by a reading model (issue 30).

The model: prose read at 130 words a minute, plus visible code read and run at 5 lines a
minute. Words are the whitespace-separated tokens of the Markdown cells; code lines are the
non-blank lines of the code cells a reader sees (collapsed check and solution cells are not
counted). A lesson states "About N minutes" with N at least the model's figure, and no
lesson is longer than MAX_MINUTES: a longer one is split where its topic breaks.

    python tools/lesson_minutes.py                 # every lesson: stated, model, words, lines
    python tools/lesson_minutes.py notebooks/04_*.md
"""
import math
import re
import sys
from pathlib import Path

import jupytext

WORDS_PER_MINUTE = 130
CODE_LINES_PER_MINUTE = 5
MAX_MINUTES = 35


def _hidden(cell):
    return cell.metadata.get("jupyter", {}).get("source_hidden") is True


def counts(path):
    """(prose words, visible code lines) of a lesson (.md or .ipynb)."""
    nb = jupytext.read(path)
    words = sum(len(c.source.split()) for c in nb.cells if c.cell_type == "markdown")
    lines = sum(sum(1 for ln in c.source.splitlines() if ln.strip())
                for c in nb.cells if c.cell_type == "code" and not _hidden(c))
    return words, lines


def model_minutes(path):
    words, lines = counts(path)
    return math.ceil(words / WORDS_PER_MINUTE + lines / CODE_LINES_PER_MINUTE)


def stated_minutes(path):
    match = re.search(r"About (\d+)\s+minutes", Path(path).read_text(encoding="utf-8"))
    return int(match.group(1)) if match else None


def main(argv):
    paths = [Path(p) for p in argv] or sorted(Path(__file__).resolve().parents[1].glob("notebooks/*.md"))
    print(f"{'lesson':58} stated model words lines")
    for path in paths:
        words, lines = counts(path)
        print(f"{path.stem:58} {stated_minutes(path)!s:>6} {model_minutes(path):>5} {words:>5} {lines:>5}")


if __name__ == "__main__":
    main(sys.argv[1:])
