"""tapekit.teach.minutes: the reading model, calibrated on a reader's measured times (issue 47).

A reader who worked the whole course measured lessons 02, 09, 11, 13 and 15 (reading and
exercise) at 67, 47, 60, 49 and 47 minutes; the old model (all prose at 130 words a minute)
gave 47, 36, 47, 42 and 35, a fifth or more under (02 has since been split into 02 and 02b:
its time is the two halves'). Mathematical prose reads at 110-120 words a
minute, and a formula costs seconds of its own.
"""
from pathlib import Path

import pytest

from tapekit.teach import minutes
from tapekit.teach.exercise import read_exercise

REPO = Path(__file__).resolve().parents[2]
MEASURED = {"02": 67, "09": 47, "11": 60, "13": 49, "15": 47}   # minutes, reading + exercise
# Lessons measured before they were split: (the parts their text is now in, the parts their
# measured exercise is now in). 02's exercise was divided between 02 and 02b; 11's measured
# exercise (the log-sum-exp) is 11b's, and 11's own exercise came with the split.
SPLIT = {"02": (("02", "02b"), ("02", "02b")), "11": (("11", "11b"), ("11b",))}


@pytest.mark.parametrize("number", sorted(MEASURED))
def test_the_model_is_within_a_fifth_of_the_measured_time(number):
    parts, exercised = SPLIT.get(number, ((number,), (number,)))
    paths = {part: next(iter((REPO / "notebooks").glob(f"{part}_*.md"))) for part in parts}
    model = (sum(minutes.reading_minutes(path) for path in paths.values())
             + sum(minutes.exercise_minutes(read_exercise(paths[p]).points) for p in exercised))
    assert abs(model - MEASURED[number]) <= MEASURED[number] / 5, (number, model)
    stated = (sum(minutes.stated(path)[0] for path in paths.values())
              + sum(minutes.stated(paths[p])[1] for p in exercised))
    assert abs(stated - MEASURED[number]) <= MEASURED[number] / 5, (number, stated)


def _lesson(tmp_path, text):
    path = tmp_path / "99_x.md"
    path.write_text("---\njupytext:\n  text_representation:\n    extension: .md\n"
                    "    format_name: myst\n---\n\n" + text, encoding="utf-8")
    return path


def test_mathematical_prose_reads_slower_and_formulas_cost_their_own_time(tmp_path):
    plain = _lesson(tmp_path, "word " * 130 + "\n")
    assert minutes.prose(plain) == (130, 0, 0, 0) and minutes.reading_minutes(plain) == 1
    # the same words with a formula: 115 a minute, plus 5 seconds for the formula
    mathy = _lesson(tmp_path, "word " * 229 + "$x^2$\n")
    assert minutes.prose(mathy) == (0, 230, 1, 0)
    assert minutes.reading_minutes(mathy) == 3          # 230/115 + 5/60 = 2.08, rounded up
    # a paragraph with a `code` span or a symbol is mathematical too; each paragraph alone
    split = _lesson(tmp_path, "a `b` c\n\nd e f\n\ng ∂ h\n\n$$y = x$$\n")
    assert minutes.prose(split) == (3, 9, 0, 1)          # "$$y = x$$" is 3 words
