"""python -m tapekit.teach build: a value or lesson that cannot be used stops the build with a
message that names it and the fix, and nothing is written; no traceback reaches the instructor.
The build itself (courses, nbgrader) is tested in test_assignments.py and test_grading.py."""
import shutil

import pytest

from conftest import TINY
from tapekit.teach import assignments
from tapekit.teach.__main__ import main


def _build(*args):
    """Run `build` and return its exit message (SystemExit's code)."""
    with pytest.raises(SystemExit) as e:
        main(["build", *map(str, args)])
    return str(e.value.code)


def test_a_course_id_with_code_in_it_is_refused_and_nothing_is_written(tmp_path):
    message = _build(TINY, "--course", tmp_path / "course", "--no-run", "--course-id",
                     'x"\nimport os; os.system("touch pwned")')
    assert message.startswith("tapekit.teach build: the course id 'x\"\\nimport os; "
                              "os.system(\"touch pwned\")' is not a plain name"), message
    assert message.endswith("(nothing was written)")
    assert not (tmp_path / "course").exists() and not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,x", "https://x/{0}"])
def test_a_lesson_url_that_is_not_http_is_refused(url, tmp_path):
    message = _build(TINY, "--course", tmp_path / "course", "--no-run", "--lesson-url", url)
    assert message.startswith(f"tapekit.teach build: the lesson URL {url!r}"), message
    assert not (tmp_path / "course").exists()


def test_a_lesson_that_jupytext_cannot_read_is_named_with_its_line(tmp_path):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    bad = lessons / TINY.name
    bad.write_text(TINY.read_text(encoding="utf-8").replace("  points: 2\n", "  points: [2\n"),
                   encoding="utf-8")
    line = bad.read_text(encoding="utf-8").splitlines().index("  points: [2") + 1
    message = _build(lessons, "--course", tmp_path / "course", "--no-run")
    assert message.startswith("tapekit.teach build: a lesson needs fixing (nothing was written):"
                              f"\n99_tiny_lesson.md, line {line}: the options of the cell at "
                              "line "), message
    assert not (tmp_path / "course").exists()


def test_a_lesson_named_outside_ascii_in_a_folder_is_refused(tmp_path):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    shutil.copyfile(TINY, lessons / "99_leçon.md")
    message = _build(lessons, "--course", tmp_path / "course", "--no-run")
    assert "99_leçon.md: a lesson's name is ASCII" in message and "e.g. 99_lecon.md" in message
    assert not (tmp_path / "course").exists()


def test_the_timeout_reaches_the_runs(tmp_path, monkeypatch):
    seen = {}

    def build_course(lessons, course, **kwargs):
        seen.update(kwargs)
        return []
    monkeypatch.setattr(assignments, "build_course", build_course)
    main(["build", str(TINY), "--course", str(tmp_path / "course"), "--timeout", "7.5"])
    assert seen["timeout"] == 7.5 and seen["run"] is True
