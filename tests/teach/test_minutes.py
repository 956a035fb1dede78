"""tapekit.teach.minutes: the reading model, calibrated on readers' measured times (issue 47).

A reader worked all 34 lessons (every exercise done before its solution) and gave
each lesson's reading and exercise minutes, below. The model of the time (prose, formulas and
visible code only) was 19% under them over the course, 43% and 50% under for 26 and 23, whose
text asks for long printed output to be read; with the printed output and the pictures counted
every lesson's model and stated minutes are within a fifth of the measured ones. A second
reader, later, found the hand-derived backward passes (09, 10, 25, 25b, 26) slower still: those
lessons state more than the model, within a fifth of both readers. (An earlier reader's
times, of five lessons before 02 and 11 were split, showed that mathematical prose
reads at 110-120 words a minute.)
"""
from pathlib import Path

import pytest

from tapekit.teach import minutes
from tapekit.teach.exercise import read_exercise

REPO = Path(__file__).resolve().parents[2]
# minutes, reading + exercise, as the reader of the whole course measured them
MEASURED = {"01": 30, "02": 38, "02b": 50, "03": 42, "03b": 43, "04": 36, "05": 41, "06": 36,
            "07": 46, "08": 52, "09": 60, "10": 41, "11": 31, "11b": 52, "12": 47, "13": 54,
            "14": 57, "15": 50, "16": 40, "17": 58, "18": 53, "19": 61, "20": 52, "21": 57,
            "22": 50, "23": 30, "23b": 43, "24": 52, "25": 47, "25b": 50, "26": 70, "27": 56,
            "28": 62, "29": 57}
# and as a second reader measured them, later (after the fixes the first one's report led to)
MEASURED_AGAIN = {"01": 40, "02": 43, "02b": 57, "03": 47, "03b": 47, "04": 40, "05": 47,
                  "06": 42, "07": 50, "08": 55, "09": 68, "10": 55, "11": 37, "11b": 59,
                  "12": 55, "13": 63, "14": 60, "15": 57, "16": 45, "17": 65, "18": 60,
                  "19": 70, "20": 60, "21": 55, "22": 56, "23": 41, "23b": 53, "24": 52,
                  "25": 55, "25b": 65, "26": 75, "27": 60, "28": 65, "29": 60}

# and as a third reading measured them (three readers side by side, 01-08, 09-18 and 19-29,
# after the second one's fixes): the midpoints of the ranges each gave, reading + exercise.
# The first of them read the code-heavy lessons a third faster than the two readers before.
MEASURED_LATEST = {"01": 26, "02": 33, "02b": 38.5, "03": 33, "03b": 32.5, "04": 30.5,
                   "05": 36.5, "06": 27.5, "07": 38, "08": 39, "09": 46, "10": 39, "11": 29,
                   "11b": 49.5, "12": 49.5, "13": 55.5, "14": 56.5, "15": 50.5, "16": 40,
                   "17": 58, "18": 57.5, "19": 60, "20": 56.5, "21": 56.5, "22": 50, "23": 35,
                   "23b": 44, "24": 45, "25": 42.5, "25b": 49.5, "26": 61, "27": 49, "28": 51,
                   "29": 53.5}
# Where the model's floor (reading + exercise) is over the latest reading by more than a fifth:
# its 76 lines of short snippets read faster than the model's 5 lines a minute.
OVER_THE_LATEST = {"06"}


def test_every_lesson_was_measured():
    lessons = {p.name.split("_")[0] for p in (REPO / "notebooks").glob("*.md")}
    assert lessons == set(MEASURED) == set(MEASURED_AGAIN) == set(MEASURED_LATEST)


@pytest.mark.parametrize("number", sorted(MEASURED))
def test_the_stated_time_is_within_a_fifth_of_the_latest_reading(number):
    path = next(iter((REPO / "notebooks").glob(f"{number}_*.md")))
    model = minutes.reading_minutes(path) + minutes.exercise_minutes(read_exercise(path).points)
    stated = sum(minutes.stated(path))
    latest = MEASURED_LATEST[number]
    # the model is a floor under the stated time (tests/notebooks/test_lessons.py); the stated
    # total is what must be right: within a fifth of the latest reading, and within a quarter
    # of the two before it, whose readers were slower on code
    if number in OVER_THE_LATEST:
        assert stated == model and stated > latest * 1.2, (number, stated, model)
    else:
        assert abs(stated - latest) <= latest / 5, (number, stated, latest)
    for measured in (MEASURED[number], MEASURED_AGAIN[number]):
        assert abs(stated - measured) <= measured / 4, (number, stated, measured)


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
