"""Shared by tests/teach: the tiny lesson of docs/write_your_own_lesson.md, and variants of it."""
from pathlib import Path

import pytest

TINY = Path(__file__).resolve().parent / "lesson" / "99_tiny_lesson.md"


@pytest.fixture
def tiny_variant(tmp_path):
    """make(old, new, count=1): a copy of the tiny lesson in tmp_path with `old` replaced by `new`."""
    def make(old, new, count=1):
        text = TINY.read_text(encoding="utf-8")
        assert text.count(old) >= count, f"the tiny lesson no longer holds {old!r}"
        path = tmp_path / TINY.name
        path.write_text(text.replace(old, new, count), encoding="utf-8")
        return path
    return make
