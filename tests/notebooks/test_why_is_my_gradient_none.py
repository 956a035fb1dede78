"""Lesson 07's exercise: what the student sees before submitting agrees with autograde."""
import pytest


def _one_slip():
    """tests/course/test_one_slip.py, imported once (pytest may have imported it already)."""
    import importlib.util
    import sys
    from pathlib import Path
    if "test_one_slip" not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "course" / "test_one_slip.py"
        spec = importlib.util.spec_from_file_location("test_one_slip", path)
        sys.modules["test_one_slip"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["test_one_slip"]


@pytest.mark.slow
def test_no_slip_shows_full_marks_that_autograde_takes_away():
    # Visible checks catch what the hidden tests catch (issue 47): each slip in SLIPS[7]
    # that autograde marks down is marked down before submitting too.
    points, graded = _one_slip()._graded(7)
    seen_full = [name for name, r in graded.items() if r["hidden"][0] < points == r["visible"][0]]
    assert not seen_full, f"full marks seen, fewer at autograde: {seen_full}"
