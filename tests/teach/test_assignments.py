"""tapekit.teach.assignments: lessons' exercise blocks -> an nbgrader course, graded by nbgrader
(tapekit.teach.grading); the marker checks are in test_exercise.py.

- the source notebook: nbgrader cells with stable, unique ids, points, no skeleton;
- the walk-through of docs/write_your_own_lesson.md on tests/teach/lesson/99_tiny_lesson.md:
  pair, execute, nbval with the packaged rules, build, release, grade three submissions with
  nbgrader's CLI (the instructor's answer: full marks; the untouched release: 0; a wrong
  answer: less, with a message a student can act on), feedback;
- every lesson in notebooks/ with exercise markers, graded the same way in one course run,
  with tests/course/wrong_answers/<slug>.py as the wrong answer;
- the packaged nbval rules equal notebooks/nbval_sanitize.cfg; docs/instructors.md's table;
- values from elsewhere are data (issue 43): the course id (the written config, executed, sets
  exactly it), the lesson's title (rendered, it makes no link or tag), the lesson URL
  (http(s) only); a build that fails while writing leaves no course and changes none.
TAPEKIT_NOTEBOOKS / TAPEKIT_WRONG_ANSWERS point the course test at other folders.
"""
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapekit.teach import sanitize_path
from tapekit.teach.assignments import (assignment_notebook, assignments_table, build_course,
                                       find_lessons)
from tapekit.teach.exercise import ExerciseError, read_exercise
from tapekit.teach.grading import generate_release, grade_answers, nbgrader

REPO = Path(__file__).resolve().parents[2]
TINY = Path(__file__).resolve().parent / "lesson" / "99_tiny_lesson.md"
NOTEBOOKS = Path(os.environ.get("TAPEKIT_NOTEBOOKS") or REPO / "notebooks")
WRONG = Path(os.environ.get("TAPEKIT_WRONG_ANSWERS") or REPO / "tests" / "course" / "wrong_answers")
COURSE_LESSONS = find_lessons(NOTEBOOKS)[0]


def _slug(path):
    return re.sub(r"^\d+[a-z]?_", "", Path(path).stem)


# --- the source notebook --------------------------------------------------------------------
def test_source_notebook_cells():
    ex = read_exercise(TINY)
    nb = assignment_notebook(ex)
    meta = [c.metadata["nbgrader"] for c in nb.cells]
    ids = [m["grade_id"] for m in meta]
    assert ids == [c.id for c in nb.cells] and len(set(ids)) == len(ids)
    assert ids == [c.id for c in assignment_notebook(read_exercise(TINY)).cells], "ids are stable"
    answer = [c for c, m in zip(nb.cells, meta) if m["solution"]]
    assert len(answer) == 1
    lines = answer[0].source.splitlines()
    # the student starts from the lesson's exercise cell; nbgrader clears what follows it
    assert lines[:2] == ["# your code here", "slope = None"]
    assert lines[2] == "### BEGIN SOLUTION" and lines[-1] == "### END SOLUTION"
    assert "# Solution" not in answer[0].source and "f = x ** 3" in answer[0].source
    graded = [(m["grade_id"], m["points"]) for m in meta if m["grade"]]
    assert graded == [("99_tiny_lesson-test-1", 1), ("99_tiny_lesson-test-2", 2)]
    assert ex.points == 3
    text = "\n".join(c.source for c in nb.cells)
    assert "import tapekit as tk" in nb.cells[1].source
    assert "x = tk.Variable(3.0)" not in text, "only the import cell comes from the lesson body"
    assert "collapsed" not in text, "the lesson's pointer to its collapsed solution is dropped"
    assert nb.cells[0].source.startswith("# Exercise of lesson 99: A tiny lesson")


def test_packaged_sanitize_rules_are_the_lessons_rules():
    packaged = Path(sanitize_path())
    assert packaged.read_bytes() == (REPO / "notebooks" / "nbval_sanitize.cfg").read_bytes(), \
        "copy notebooks/nbval_sanitize.cfg to tapekit/teach/nbval_sanitize.cfg (one set of rules)"
    out = subprocess.run([sys.executable, "-m", "tapekit.teach", "sanitize-path"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert Path(out) == packaged


def test_instructors_page_table_is_the_course():
    page = (REPO / "docs" / "instructors.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- assignments-table -->\n(.*?)\n<!-- /assignments-table -->", page, re.S)
    assert m, "docs/instructors.md lost its <!-- assignments-table --> markers"
    expected = assignments_table(find_lessons(REPO / "notebooks")[0])
    assert m[1].strip() == expected, ("docs/instructors.md's table is out of date; paste the "
                                      "output of `python -m tapekit.teach table notebooks`:\n"
                                      + expected)


# --- nbgrader's own commands ------------------------------------------------------------------
def _run(cmd, cwd):
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _released_text(course, name):
    """Every cell's source and every output's text in the released notebook."""
    nb = nbformat.read(course / "release" / name / f"{name}.ipynb", as_version=4)
    return "\n".join([c.source for c in nb.cells]
                     + [str(o) for c in nb.cells for o in c.get("outputs", [])])


def _assert_graded(result, ex, name, wrong_code):
    full = result[(name, "instructor")]
    assert full["score"] == full["max_score"] == ex.points, (name, full["failures"])
    blank = result[(name, "blank")]
    assert blank["score"] == 0 and blank["max_score"] == ex.points, name
    assert all(f[1] == "AssertionError" and f[2].strip() for f in blank["failures"]), blank["failures"]
    wrong = result[(name, "wrong")]
    assert wrong["score"] < ex.points, f"{name}: the wrong answer got full marks:\n{wrong_code}"
    assert wrong["failures"], name
    for grade_id, ename, message in wrong["failures"]:
        assert ename == "AssertionError" and len(message.split()) >= 4, \
            f"{name}, {grade_id}: a student gets {ename}: {message!r}, not a sentence to act on"
    page = html.unescape(re.sub(r"<[^>]+>", "", wrong["feedback"].read_text(encoding="utf-8")))
    assert " ".join(wrong["failures"][0][2].split()) in " ".join(page.split()), \
        f"{name}: the feedback page does not show the student the failing test's message"


@pytest.mark.slow
def test_tiny_lesson_walkthrough_of_the_page(tmp_path):
    """docs/write_your_own_lesson.md, step by step."""
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    md = lessons / TINY.name
    shutil.copyfile(TINY, md)
    py = sys.executable
    # the pair: the .ipynb, executed
    _run([py, "-m", "jupytext", "--to", "ipynb", "--execute", md.name], lessons)
    ipynb = md.with_suffix(".ipynb")
    assert ipynb.exists()
    # nbval with tapekit's rules: the stored outputs are what a fresh run prints
    _run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-current-env",
          "--nbval-sanitize-with", sanitize_path(), ipynb.name], lessons)
    # the course
    course = tmp_path / "course"
    _run([py, "-m", "tapekit.teach", "build", str(lessons), "--course", str(course), "--release"],
         tmp_path)
    name = md.stem
    ex = read_exercise(md)
    released = _released_text(course, name)
    for line in ex.solution.splitlines() + ["BEGIN SOLUTION", "BEGIN HIDDEN TESTS",
                                            "np.isclose(float(slope), 12.0)"]:
        if line.strip():
            assert line.strip() not in released, f"the release gives away {line.strip()!r}"
    assert "# your code here" in released
    wrong = (TINY.parent / "wrong_answers" / "tiny_lesson.py").read_text(encoding="utf-8")
    t0 = time.perf_counter()
    result = grade_answers(course, {(name, "instructor"): ex.solution, (name, "blank"): None,
                                    (name, "wrong"): wrong})
    print(f"grading 3 submissions: {time.perf_counter() - t0:.1f} s")
    _assert_graded(result, ex, name, wrong)
    assert result[(name, "wrong")]["score"] == 1, "the form test passes, the value test fails"
    assert "differentiate x ** 3, not x ** 2" in result[(name, "wrong")]["failures"][0][2]


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory):
    """Every marked lesson of the course, built, released and graded in one nbgrader run."""
    course = tmp_path_factory.mktemp("course")
    t0 = time.perf_counter()
    exercises, problems = {}, {}
    for lesson in COURSE_LESSONS:     # one lesson at a time: a broken one fails only its test
        try:
            (ex,) = build_course([lesson], course, log=lambda s: None)
            exercises[ex.name] = ex
        except ExerciseError as e:
            problems[lesson.stem] = str(e)
    if exercises:
        generate_release(course, list(exercises), log=lambda s: None)
    t1 = time.perf_counter()
    answers, wrong = {}, {}
    for name, ex in exercises.items():
        path = WRONG / f"{_slug(name)}.py"
        wrong[name] = path.read_text(encoding="utf-8") if path.exists() else None
        answers[(name, "instructor")] = ex.solution
        answers[(name, "blank")] = None
        if wrong[name] is not None:
            answers[(name, "wrong")] = wrong[name]
    # Only the wrong answers' feedback pages are read (_assert_graded): nbgrader renders those
    # alone, not one page per submission (two thirds of them never opened).
    result = grade_answers(course, answers, feedback=False) if answers else {}
    if any(student == "wrong" for _, student in answers):
        nbgrader(course, "generate_feedback", "--assignment=*", "--student=wrong", "--force",
                 "--log-level=WARN")
        for (name, student), graded in result.items():
            if student == "wrong":
                graded["feedback"] = course / "feedback" / student / name / f"{name}.html"
    t2 = time.perf_counter()
    print(f"\n{len(exercises)} assignments, {sum(e.points for e in exercises.values())} points: "
          f"build + release {t1 - t0:.1f} s, grading {len(answers)} submissions {t2 - t1:.1f} s")
    return course, exercises, wrong, result, problems


# The first of these tests also pays for graded_course (about 3 minutes alone, more beside the
# other pieces of `make test`, and growing with the course): beyond `make test`'s 300 s.
@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("lesson", COURSE_LESSONS, ids=lambda p: p.stem)
def test_course_assignment_is_graded_by_nbgrader(graded_course, lesson):
    course, exercises, wrong, result, problems = graded_course
    name = lesson.stem
    assert name not in problems, f"python -m tapekit.teach build refuses it:\n{problems.get(name)}"
    ex = exercises[name]
    assert 3 <= ex.points <= 10, f"{name}: {ex.points} points; an exercise is worth 3-10"
    assert wrong[name] is not None, (f"{name}: no wrong answer in "
                                     f"tests/course/wrong_answers/{_slug(name)}.py")
    released = _released_text(course, name)
    body = [ln.strip() for ln in ex.solution.splitlines()
            if ln.strip() and not ln.strip().startswith("#") and len(ln.strip()) > 12]
    # What the student may see: the lesson's code, the task's text, given cells and exercise
    # cell, and the visible part of each test. A solution line found in the release outside
    # those leaked.
    visible_tests = [re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", g, flags=re.S)
                     for g, _ in ex.grades]
    shown = "\n".join(ex.imports + ex.setup + ex.given + ex.markdown + [ex.skeleton]
                      + visible_tests)
    leaked = [ln for ln in body if ln in released and ln not in shown]
    assert not leaked, f"{name}: the release holds solution lines {leaked}"
    # The student starts from the lesson's exercise cell (07: the broken step to fix; 02: the
    # steps to sweep), and no sentence points at a solution the release does not hold.
    nb = nbformat.read(course / "release" / name / f"{name}.ipynb", as_version=4)
    answers = [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert [a.strip() for a in answers] == [ex.skeleton.strip()], answers
    assert "solution" not in " ".join(c.source for c in nb.cells if c.cell_type == "markdown"), \
        f"{name}: the release's text still mentions the solution"
    _assert_graded(result, ex, name, wrong[name])


def test_exercise_setup_cells_are_copied_locked(tiny_variant):
    path = tiny_variant("```{code-cell} ipython3\nx = tk.Variable(3.0)",
                         "```{code-cell} ipython3\n:tags: [exercise-setup]\n\nx = tk.Variable(3.0)")
    ex = read_exercise(path)
    assert ex.setup == [TINY.read_text().split("```{code-cell} ipython3\n")[2].split("```")[0].strip()]
    nb = assignment_notebook(ex)
    setup = [c for c in nb.cells if c.id == "99_tiny_lesson-setup-1"]
    assert len(setup) == 1 and setup[0].source.startswith("x = tk.Variable(3.0)")
    assert setup[0].metadata["nbgrader"]["locked"] and not setup[0].metadata["nbgrader"]["grade"]
    ids = [c.id for c in nb.cells]
    assert ids.index("99_tiny_lesson-setup-1") < ids.index("99_tiny_lesson-answer")


def test_given_cells_inside_the_block_follow_the_task_text(tiny_variant):
    """`exercise-setup` cells between the task and the reader's cell give the task's data: the
    assignment shows them where the lesson does, after the task and before the answer cell."""
    path = tiny_variant("```{code-cell} ipython3\n:tags: [exercise]\n",
                         "```{code-cell} ipython3\n:tags: [exercise-setup]\n\npoint = 2.0\n```\n\n"
                         "```{code-cell} ipython3\n:tags: [exercise]\n")
    ex = read_exercise(path)
    assert ex.given == ["point = 2.0"] and "point = 2.0" not in ex.setup
    ids = [c.id for c in assignment_notebook(ex).cells]
    given = ids.index("99_tiny_lesson-given-1")
    assert ids.index("99_tiny_lesson-task-1") < given < ids.index("99_tiny_lesson-answer")


@pytest.mark.parametrize("lesson", COURSE_LESSONS, ids=lambda p: p.stem)
def test_no_placeholder_follows_the_answer_marker(lesson):
    """Placeholders (`x = None`) sit above '# your code here': below it they reset a student's
    answer typed under the marker when the cell runs (a correct answer to 06 scored 0/5 so)."""
    lines = read_exercise(lesson).skeleton.splitlines()
    marker = next(i for i, line in enumerate(lines) if line.lstrip().startswith("# your code here"))
    resets = [line for line in lines[marker + 1:]
              if re.fullmatch(r"\s*[\w, =]+= (None|\[\])\s*(#.*)?", line)]
    assert not resets, f"{lesson.name}: placeholders after the marker: {resets}"


@pytest.mark.parametrize("lesson", COURSE_LESSONS, ids=lambda p: p.stem)
def test_every_check_states_its_points_in_its_first_line(lesson):
    """The first line is what a collapsed check shows: students see what each check is worth."""
    for source, points in read_exercise(lesson).grades:
        first = source.strip().splitlines()[0]
        assert first.endswith(f"({points} point{'s' if points != 1 else ''})"), (lesson.name, first)


# --- values from the command line and the lesson are data (issue 43) ---------------------------
def _config_values(course):
    """What the course's nbgrader_config.py sets, executed as nbgrader executes it."""
    from traitlets.config.loader import PyFileConfigLoader
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    return {section: dict(values) for section, values in config.items()}


EXPECTED_CONFIG = {"ClearSolutions": {"code_stub": {"python": ""}},
                   "ExecutePreprocessor": {"timeout": 60}}


@pytest.mark.parametrize("course_id", ["tapekit", "cs101-2025", "A.b_c-9"])
def test_the_config_sets_the_course_id_and_nothing_else(course_id, tmp_path):
    build_course([TINY], tmp_path, course_id=course_id, run=False, log=lambda s: None)
    assert _config_values(tmp_path) == {"CourseDirectory": {"course_id": course_id},
                                        **EXPECTED_CONFIG}


HOSTILE_IDS = ['x"\nimport os; os.system("touch pwned")', "x'; import os #", "a\\", "{course_id}",
               "{}", "../../etc", "a/b", " tapekit", "tapekit ", "", "-rf", ".hidden", "kurs-ä",
               "a\nc.Exchange.root = '/'", "a\x00b"]


@pytest.mark.parametrize("course_id", HOSTILE_IDS)
def test_a_course_id_that_is_not_a_plain_name_is_refused_before_writing(course_id, tmp_path):
    with pytest.raises(ValueError, match=r"the course id .* is not a plain name: nbgrader's "
                                         r"course_id names the course's folder"):
        build_course([TINY], tmp_path / "course", course_id=course_id, run=False)
    assert not (tmp_path / "course").exists()


@settings(max_examples=60, deadline=None)
@given(course_id=st.text(max_size=12))
def test_any_course_id_is_refused_or_written_as_exactly_itself(course_id):
    with tempfile.TemporaryDirectory() as tmp:
        try:
            build_course([TINY], Path(tmp) / "c", course_id=course_id, run=False,
                         log=lambda s: None)
        except ValueError:
            assert not (Path(tmp) / "c").exists()
            return
        assert _config_values(Path(tmp) / "c") == {"CourseDirectory": {"course_id": course_id},
                                                    **EXPECTED_CONFIG}


def _rendered(markdown):
    """The HTML a CommonMark renderer makes of `markdown`. markdown-it drops javascript: and
    data: links itself; JupyterLab's renderer (marked) does not, so neither does this one."""
    from markdown_it import MarkdownIt
    md = MarkdownIt("commonmark")
    md.validateLink = lambda url: True
    return md.render(markdown)


def _intro_html(tiny_variant, title, lesson_url=None):
    path = tiny_variant("# Lesson 99: A tiny lesson", f"# {title}")
    ex = read_exercise(path)
    assert ex.title == title.strip()
    return ex, _rendered(assignment_notebook(ex, lesson_url).cells[0].source)


HOSTILE_TITLES = {
    "a javascript link": "Lesson 99: [click](javascript:alert(1))",
    "an autolink": "Lesson 99: <javascript:alert(1)> and <https://evil.example>",
    "HTML": 'Lesson 99: <a href="javascript:alert(1)">x</a><script>alert(1)</script>',
    "an image with a data URL": "Lesson 99: ![x](data:text/html;base64,PHNjcmlwdD4=)",
    "a reference link": "Lesson 99: [x][r] [r]: javascript:alert(1)",
    "quotes, backslashes and braces": "Lesson 99: it's \"{name}\" {0} {} \\ \\\\ %s",
    "entities and math": "Lesson 99: &lt;b&gt; &amp; $\\href{javascript:x}{y}$",
    "emphasis and a closing #": "Lesson 99: *a* _b_ ~~c~~ | d ##",
}


@pytest.mark.parametrize("case", sorted(HOSTILE_TITLES))
def test_a_hostile_title_shows_as_its_text(case, tiny_variant):
    title = HOSTILE_TITLES[case]
    ex, page = _intro_html(tiny_variant, title, "https://example.org/{file}")
    assert re.findall(r"<(\w+)", page) == ["h1", "p", "a", "code"], page
    assert re.findall(r'href="([^"]*)"', page) == ["https://example.org/99_tiny_lesson.ipynb"]
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert f"Exercise of lesson 99: {title[len('Lesson 99: '):]}" in text
    assert f"This exercise ends {title}." in text


def test_a_title_keeps_its_code_spans(tiny_variant):
    ex, page = _intro_html(tiny_variant, "Lesson 99: Control flow and `stop_gradient`")
    assert "<h1>Exercise of lesson 99: Control flow and <code>stop_gradient</code></h1>" in page


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
                     min_size=1, max_size=40))
def test_any_title_makes_no_link_nor_tag_and_keeps_its_text(title, tiny_variant):
    title = "Lesson 99: " + title
    try:
        ex, page = _intro_html(tiny_variant, title.strip(), "https://example.org/{file}")
    except ExerciseError as e:                      # nbgrader's markers are refused
        assert str(e).startswith("99_tiny_lesson.md, cell 1 (markdown"), str(e)
        return
    tags = re.findall(r"<(\w+)", page)
    assert [t for t in tags if t != "code"] == ["h1", "p", "a"], page
    assert re.findall(r'href="([^"]*)"', page) == ["https://example.org/99_tiny_lesson.ipynb"]
    text = html.unescape(re.sub(r"<[^>]+>", "", page))

    def words(s):
        return " ".join(s.replace("`", "").split())
    assert words(ex.title) in words(text.split("\n")[1]), (ex.title, page)


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JavaScript:alert(1)//https://x", "data:text/html,<script>x</script>",
    "vbscript:x", "ftp://example.org/{file}", "//example.org/{file}", "https:///{file}",
    "example.org/{file}", " https://example.org/{file}", "https://example.org/a b/{file}",
    "https://example.org/{file}\njavascript:x", "https://example.org/{0}", "https://example.org/{}",
    "https://example.org/{file.__class__}", "https://example.org/{file!r}",
    "https://example.org/{name:>9}", "https://example.org/{file", "https://example.org/}"])
def test_a_lesson_url_that_is_not_http_is_refused_before_writing(url, tmp_path):
    with pytest.raises(ValueError, match=r"the lesson URL .*"):
        build_course([TINY], tmp_path / "course", lesson_url=url, run=False)
    assert not (tmp_path / "course").exists()


@pytest.mark.parametrize("url, href", [
    ("HTTPS://example.org/lessons/{file}", "HTTPS://example.org/lessons/99_tiny_lesson.ipynb"),
    ("http://example.org/{name}/{file}?a=1&b={{x}}",
     "http://example.org/99_tiny_lesson/99_tiny_lesson.ipynb?a=1&amp;b=%7Bx%7D"),
    ("https://example.org/a)[x](javascript:alert(1)/{file}",
     "https://example.org/a%29%5Bx%5D%28javascript:alert%281%29/99_tiny_lesson.ipynb"),
    ("https://example.org/<b>\"'\\`/{file}",
     "https://example.org/%3Cb%3E%22%27%5C%60/99_tiny_lesson.ipynb"),
    ("https://example.org/lektion-ü/{file}",
     "https://example.org/lektion-%C3%BC/99_tiny_lesson.ipynb"),
])
def test_a_lesson_url_becomes_one_link_to_it(url, href):
    page = _rendered(assignment_notebook(read_exercise(TINY), url).cells[0].source)
    assert re.findall(r'href="([^"]*)"', page) == [href], page


def test_a_course_path_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "course").write_text("notes")
    with pytest.raises(ValueError, match=r"the course directory .*course is a file; give a folder"):
        build_course([TINY], tmp_path / "course", run=False)
    assert (tmp_path / "course").read_text() == "notes"


def test_the_assignments_table_escapes_titles(tiny_variant):
    path = tiny_variant("# Lesson 99: A tiny lesson", "# Lesson 99: a | b <i>x</i> `c_d`")
    row = assignments_table([path]).splitlines()[2]
    assert row.startswith(r"| `99_tiny_lesson` | Lesson 99: a \| b \<i\>x\</i\> `c_d` | 3 |")


# --- a failed build leaves nothing behind, and never an instructor's course ---------------------
def _two_lessons(tmp_path):
    """The tiny lesson, retitled (its notebook differs from TINY's), and a copy of it."""
    (tmp_path / "lessons").mkdir()
    first, second = tmp_path / "lessons" / TINY.name, tmp_path / "lessons" / "98_tiny_again.md"
    text = TINY.read_text(encoding="utf-8")
    first.write_text(text.replace("A tiny lesson", "A tiny lesson, again"), encoding="utf-8")
    second.write_text(text, encoding="utf-8")
    return [first, second]


def _fail_on_second_notebook(monkeypatch):
    import tapekit.teach.assignments as assignments
    writes = nbformat.writes
    calls = []

    def failing(nb, *args, **kwargs):
        calls.append(nb)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return writes(nb, *args, **kwargs)
    monkeypatch.setattr(assignments.nbformat, "writes", failing)


def test_a_build_that_fails_while_writing_leaves_no_course(tmp_path, monkeypatch):
    _fail_on_second_notebook(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        build_course(_two_lessons(tmp_path), tmp_path / "build" / "course", run=False,
                     log=lambda s: None)
    assert not (tmp_path / "build").exists()


def test_a_build_that_fails_keeps_an_existing_course_as_it_was(tmp_path, monkeypatch):
    course = tmp_path / "course"
    build_course([TINY], course, run=False, log=lambda s: None)
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text() + "c.Exchange.root = 'mine'\n")
    (course / "gradebook.db").write_text("the grades")
    before = {p: p.read_bytes() for p in course.rglob("*") if p.is_file()}
    _fail_on_second_notebook(monkeypatch)
    with pytest.raises(OSError):
        build_course(_two_lessons(tmp_path), course, run=False, log=lambda s: None)
    after = {p: p.read_bytes() for p in course.rglob("*") if p.is_file()}
    assert after == before, "the course keeps its files as they were, its edited config too"
    assert not (course / "source" / "98_tiny_again").exists()


# --- one slip does not cost every point (issue 47): lesson 05, graded by nbgrader ------------
_HESSIAN_05 = '''x = tk.Variable(1.0, name="x")
y = tk.Variable(2.0, name="y")
v = [1.0, -1.0]
with tk.GradientTape(persistent=True) as outer:
    with tk.GradientTape() as inner:
        f = x ** 2 * y + y ** {power}
    gx, gy = inner.gradient(f, [x, y])
{inside}
hessian = np.array([[float(d) for d in outer.gradient(gx, [x, y])],
                    [float(d) for d in outer.gradient(gy, [x, y])]])
{after}
'''
TYPO_05 = _HESSIAN_05.format(        # y**2 for y**3, everything else right
    power=2, inside="    gv = gx * v[0] + gy * v[1]",
    after="hvp = np.array([float(d) for d in outer.gradient(gv, [x, y])])")
LATE_GV_05 = _HESSIAN_05.format(     # gv computed after the block: outer never saw it
    power=3, inside="", after="gv = gx * v[0] + gy * v[1]\nhvp = hessian @ np.array(v)")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_lesson_05_one_slip_costs_only_its_points(tmp_path):
    """A typo in f (y**2 for y**3) used to score 0/6 with feedback blaming the H v method: now
    the checks compare H v with the student's own hessian @ v and outer.gradient(gv), and gv
    with the student's own gx·v[0] + gy·v[1], so the typo loses the Hessian's values (2) only,
    4/6, and the feedback names the wrong entry. A gv computed after the outer block used to pass every visible check:
    the visible "was gv recorded" check now asks the tape, and says so."""
    lesson = NOTEBOOKS / "05_persistent_and_higher_order.md"
    course = tmp_path / "course"
    (ex,) = build_course([lesson], course, log=lambda s: None)
    generate_release(course, [ex.name], log=lambda s: None)
    result = grade_answers(course, {(ex.name, "typo"): TYPO_05, (ex.name, "late"): LATE_GV_05,
                                    (ex.name, "instructor"): ex.solution}, feedback=False)
    assert result[(ex.name, "instructor")]["score"] == ex.points == 6
    typo = result[(ex.name, "typo")]
    assert typo["score"] == 4, typo
    messages = " ".join(m for _, _, m in typo["failures"])
    assert "hessian[1][1] = d²f/dy² = 6y should be 12, got 2" in messages, messages
    assert "multiplying a gradient by v" not in messages
    late = result[(ex.name, "late")]
    assert late["score"] == 4, late
    (failed,) = late["failures"]
    assert failed[0] == f"{ex.name}-test-3" and "did not record gv" in failed[2], failed
    # that check is visible: the student sees it fail before submitting
    released = _released_text(course, ex.name)
    assert "outer.gradient(gv, [x, y])" in released and "did not record gv" in released
