"""docs/course_plans.md (issue 47): every lesson in exactly one group, with the README's minutes,
and each group's total the sum of its rows, so the page an instructor plans with stays true
when a lesson is added or re-timed."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| (\d\d[a-z]?) \| .*? \| (\d+) \+ (\d+) \|$")
TOTAL = re.compile(r"^\| \| \*\*in all(, with the core)?\*\* \| \*\*(\d+) \+ (\d+)\*\* \|$")


def _readme_minutes():
    found = {}
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| (\d\d[a-z]?) \| \[.*?\]\(notebooks/.*?\) \| .*? \| (\d+) \+ (\d+) \|", line)
        if m:
            found[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return found


def _groups():
    groups, rows = [], None
    for line in (REPO / "docs" / "course_plans.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            rows = []
            groups.append((line[3:], rows, []))
        elif (m := ROW.match(line)) and rows is not None:
            rows.append((m.group(1), int(m.group(2)), int(m.group(3))))
        elif (m := TOTAL.match(line)):
            groups[-1][2].append((bool(m.group(1)), int(m.group(2)), int(m.group(3))))
    return [g for g in groups if g[1]]


def test_every_lesson_is_in_one_group_with_the_readmes_minutes():
    readme = _readme_minutes()
    listed = [(k, r, e) for _, rows, _ in _groups() for k, r, e in rows]
    assert sorted(k for k, _, _ in listed) == sorted(readme), "a lesson missing or listed twice"
    wrong = [(k, (r, e), readme[k]) for k, r, e in listed if (r, e) != readme[k]]
    assert not wrong, f"minutes differ from the README's: {wrong}"


def test_each_groups_total_is_its_sum():
    groups = _groups()
    assert [name for name, _, _ in groups][:3] == [
        "A two-week autodiff unit: the core", "A full course: the core and these",
        "Optional: TensorFlow's training machinery as tapekit builds it"]
    core = groups[0][1]
    for name, rows, totals in groups:
        assert len(totals) == 1, name
        with_core, reading, exercise = totals[0]
        counted = rows + (core if with_core else [])
        assert (reading, exercise) == (sum(r for _, r, _ in counted), sum(e for _, _, e in counted)), name
