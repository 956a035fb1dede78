"""Lesson 24's claims checked off the page."""
from pathlib import Path

import jupytext

REPO = Path(__file__).resolve().parents[2]
LESSON = REPO / "notebooks" / "24_forward_mode_from_scratch.md"


def test_the_dual_class_is_about_40_lines():
    """The lesson says forward mode takes 'about 40 lines': the Dual cell's non-blank lines."""
    nb = jupytext.read(LESSON)
    cell = next(c.source for c in nb.cells if c.source.startswith("class Dual:"))
    lines = [ln for ln in cell.splitlines() if ln.strip()]
    assert 35 <= len(lines) <= 45, len(lines)
