"""Turn lessons' exercises into an nbgrader course directory.

A lesson is a MyST Markdown file (`NN_slug.md`, paired with `NN_slug.ipynb` by jupytext) that
ends with one exercise block, marked as described in docs/write_your_own_lesson.md:

1. a Markdown cell starting `## Exercise` (the task; it may run over several Markdown cells);
2. the reader's cell, tagged `exercise`: a starting skeleton (`# your code here`), after any
   cells tagged `exercise-setup` that give the task's data or code (copied, locked);
3. one or more graded checks, tagged `grade` (and `raises-exception`: in the lesson they fail
   until the reader answers), each with metadata `tapekit: {points: N}`;
4. last, the solution, tagged `solution`, first line `# Solution` (in the lesson it runs apart
   from the reader's names: solution.py).

`build_course(lessons, course_dir)` writes `course_dir/source/<NN_slug>/<NN_slug>.ipynb` for
each lesson: the lesson's first code cell (its imports) and other import-only cells, the
cells tagged `exercise-setup` (lesson code the exercise builds on), a title, the exercise's
Markdown, the answer cell (an nbgrader solution cell: the skeleton, then the solution's body
between `### BEGIN SOLUTION` and `### END SOLUTION`) and the checks as nbgrader autograded test
cells with their points. nbgrader clears the solution region, so the student's answer cell is
the lesson's exercise cell as it stands: its data, its stubs, or the broken code to fix.
`course_dir/nbgrader_config.py` is written once (an instructor's edits are kept).

Lessons and command-line values may come from anyone, and are data: the course id is checked
and written as a Python literal into the config (which nbgrader executes), the lesson's title
is escaped so that it shows as text, and the link to the lesson is an http(s) URL.

Before writing anything, every lesson is validated; with `run=True` (the default) the block is
also run in a fresh Python: each check must FAIL when only the skeleton ran, and pass after
the solution. Problems raise `ExerciseError` naming the lesson file and the cell. The files
are written all or none: a build that fails leaves no half-made course, and never changes a
course folder that was there.

Reading and checking a lesson's block is exercise.py's; nbgrader itself is not imported here:
grading.py runs its commands (`python -m tapekit.teach build --release` runs
`nbgrader generate_assignment` for every assignment).
"""
import os
import re
import string
import unicodedata
import urllib.parse
from importlib.metadata import metadata
from pathlib import Path

import nbformat
import nbformat.v4 as v4

from . import minutes
from .exercise import LESSON_NAME, ExerciseError, check_runs, has_exercise_markers, read_exercise


NBGRADER_CONFIG = '''\
# nbgrader's settings for this course directory (written once by `python -m tapekit.teach
# build`; edit freely, later builds keep this file). Run nbgrader's commands from this folder.
c = get_config()

c.CourseDirectory.course_id = {course_id!r}
# The student's answer cell is the lesson's exercise cell (it says `# your code here`):
# nbgrader clears the solution after it and adds nothing, no stub that raises.
c.ClearSolutions.code_stub = {{"python": ""}}
# Generous for any exercise of the course (each runs in a few seconds).
c.ExecutePreprocessor.timeout = 60
'''



# nbgrader's course_id names the course's folder in nbgrader's exchange (and its JupyterHub
# groups): a plain name, never a path.
COURSE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_course_id(course_id):
    """Refuse a course id that is not a plain name (ValueError saying what one is)."""
    if not isinstance(course_id, str) or not COURSE_ID.fullmatch(course_id):
        raise ValueError(f"the course id {course_id!r} is not a plain name: nbgrader's "
                         "course_id names the course's folder in nbgrader's exchange and its "
                         "JupyterHub groups; use ASCII letters, digits, '.', '_' and '-', "
                         "starting with a letter or digit, e.g. 'tapekit' or 'cs101-2025'")
    return course_id


# --- the Markdown the assignment writes -----------------------------------------------------
_CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>&!|$~#])")


def markdown_text(text):
    """`text` (a lesson's title) as Markdown that shows it as text: Markdown's and HTML's
    punctuation is escaped with a backslash, so no link, image, HTML tag, math or emphasis is
    made of it, except `code` spans, which Markdown shows as they are."""
    out, at = [], 0
    for m in _CODE_SPAN.finditer(text):
        out += [_MARKDOWN_PUNCTUATION.sub(r"\\\1", text[at:m.start()]), m[0]]
        at = m.end()
    return "".join(out + [_MARKDOWN_PUNCTUATION.sub(r"\\\1", text[at:])])


def check_lesson_url(url):
    """Refuse a --lesson-url that is not an http(s) URL with only {file} and {name} in it."""
    if not isinstance(url, str) or not re.match(r"https?://[^/?#]", url, re.I):
        raise ValueError(f"the lesson URL {url!r} is not an http:// or https:// URL with a "
                         "host; the assignment links to the lesson with it, e.g. "
                         "'https://example.org/lessons/{file}' ('' for no link)")
    bad = [ch for ch in url if ch.isspace() or unicodedata.category(ch)[0] == "C"]
    if bad:
        raise ValueError(f"the lesson URL {url!r} holds {bad[0]!r}: a URL has no spaces or "
                         "control characters (write a space as %20)")
    try:
        fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(url)
                  if f is not None]
    except ValueError as e:
        raise ValueError(f"the lesson URL {url!r}: {e} (write a brace as {{{{ or }}}})") from None
    for f, spec, conv in fields:
        if f not in ("file", "name") or spec or conv:
            raise ValueError(f"the lesson URL {url!r} holds "
                             f"{{{f}{'!' + conv if conv else ''}{':' + spec if spec else ''}}}"
                             ", which is not one of its two placeholders: {file} (NN_slug.ipynb) "
                             "and {name} (NN_slug)")
    return url


def lesson_link(url, name):
    """The lesson's address for a Markdown link: `url` (check_lesson_url) with {file} and
    {name} filled in, and the characters that could end the link percent-encoded."""
    href = check_lesson_url(url).format(file=name + ".ipynb", name=name)
    return urllib.parse.quote(href, safe="/:?#[]@!$&*+,;=%~")


# --- writing the nbgrader notebook --------------------------------------------------------
HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_POINTER = re.compile(r"\bsolution\b.*\b(collapsed|hidden|below|expand|click)\b|"
                      r"\b(collapsed|hidden|expand|click)\b.*\bsolution\b|"
                      r"\bskip\w* the solution\b", re.I | re.S)


def _without_solution_pointer(markdown):
    """The exercise's text without its sentence(s) pointing at the lesson's collapsed
    solution, which the assignment does not have."""
    paragraphs = []
    for para in markdown.split("\n\n"):
        if para.lstrip().startswith(("```", "#", "|", "$$")):
            paragraphs.append(para)
            continue
        kept = [s for s in _SENTENCE_END.split(para) if not _POINTER.search(s)]
        if kept:
            paragraphs.append(" ".join(kept) if len(kept) < len(_SENTENCE_END.split(para))
                              else para)
    return "\n\n".join(paragraphs)


def _nbgrader(grade_id, *, solution=False, grade=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": 3, "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def answer_source(ex):
    """The answer cell of the instructor's version: the lesson's exercise cell (what the student
    starts from), then the solution as nbgrader's solution region (what the release clears)."""
    return f"{ex.skeleton.rstrip()}\n### BEGIN SOLUTION\n{ex.solution}\n### END SOLUTION"


def assignment_notebook(ex, lesson_url=None):
    """The nbgrader source notebook of one exercise (an nbformat NotebookNode)."""

    name, title = ex.name, markdown_text(ex.title)
    m = re.match(r"Lesson (\S+): (.+)", ex.title)
    heading = (f"Exercise of lesson {markdown_text(m[1])}: {markdown_text(m[2])}" if m
               else f"Exercise: {title}")
    link = f"[{title}]({lesson_link(lesson_url, name)})" if lesson_url else \
        f"{title} (`{name}.ipynb`)"
    hidden = any(HIDDEN_BEGIN in g for g, _ in ex.grades)
    intro = (f"# {heading}\n\n"
             f"This exercise ends {link}. Write your answer in the cell that says "
             "`# your code here`, then run every cell: the tests below it check your answer "
             f"and say what is missing. {ex.points} points in all."
             + (" More tests run when your work is graded." if hidden else ""))

    def cell(maker, source, grade_id, **kw):
        c = maker(source, metadata=_nbgrader(grade_id, **kw))
        c.id = grade_id
        return c

    cells = [cell(v4.new_markdown_cell, intro, f"{name}-intro", locked=True)]
    cells += [cell(v4.new_code_cell, src, f"{name}-imports-{i + 1}", locked=True)
              for i, src in enumerate(ex.imports)]
    if ex.setup:
        cells.append(cell(v4.new_markdown_cell, "The lesson's code that this exercise builds "
                          "on (run it first):", f"{name}-setup-intro", locked=True))
        cells += [cell(v4.new_code_cell, src, f"{name}-setup-{i + 1}", locked=True)
                  for i, src in enumerate(ex.setup)]
    cells += [cell(v4.new_markdown_cell, _without_solution_pointer(md), f"{name}-task-{i + 1}",
                   locked=True)
              for i, md in enumerate(ex.markdown)]
    cells += [cell(v4.new_code_cell, src, f"{name}-given-{i + 1}", locked=True)
              for i, src in enumerate(ex.given)]      # after the task, as in the lesson
    cells.append(cell(v4.new_code_cell, answer_source(ex), f"{name}-answer", solution=True))
    cells += [cell(v4.new_code_cell, src, f"{name}-test-{i + 1}", grade=True, locked=True,
                   points=pts)
              for i, (src, pts) in enumerate(ex.grades)]
    nb = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                       "name": "python3"},
        "language_info": {"name": "python"},
    })
    return nb


def default_lesson_url(lessons_dir):
    """Where tapekit's own lessons are read online, for the assignments' link back."""
    repo_notebooks = Path(__file__).resolve().parents[2] / "notebooks"
    if Path(lessons_dir).resolve() != repo_notebooks:
        return None
    try:
        urls = dict(u.split(", ", 1) for u in metadata("tapekit").get_all("Project-URL") or [])
    except Exception:
        return None
    source = urls.get("Source")
    if not source or "/OWNER/" in source:   # the repository's owner is not set yet: no dead link
        return None
    return f"{source}/blob/main/notebooks/{{file}}"


def find_lessons(lessons_dir):
    """(with markers, without markers): the lessons `NN_slug.md` in a folder, sorted."""
    found = sorted(p for p in Path(lessons_dir).glob("*.md") if LESSON_NAME.match(p.stem))
    marked = [p for p in found if has_exercise_markers(p)]
    return marked, [p for p in found if p not in marked]


def build_course(lessons, course_dir, *, course_id="tapekit", lesson_url=None, run=True,
                 timeout=120, log=print):
    """Validate every lesson, then write course_dir/source/<name>/<name>.ipynb for each.

    `timeout`: the seconds each lesson's two runs (check_runs) may take in all. Returns the
    list of Exercise objects written (each with .points). Raises ValueError for a course id
    or lesson URL that cannot be used, and ExerciseError listing every lesson's problem
    (nothing is written then).
    """
    course_dir = Path(course_dir)
    check_course_id(course_id)
    if lesson_url:
        check_lesson_url(lesson_url)
    if course_dir.exists() and not course_dir.is_dir():
        raise ValueError(f"the course directory {course_dir} is a file; give a folder "
                         "(it is made if missing)")
    exercises, problems = [], []
    for path in lessons:
        try:
            ex = read_exercise(path)
            if run:
                ex.seconds = check_runs(ex, timeout=timeout)
            exercises.append(ex)
        except ExerciseError as e:
            problems.append(str(e))
    if problems:
        raise ExerciseError("\n".join(problems))
    names = [ex.name for ex in exercises]
    if len(set(names)) != len(names):
        raise ExerciseError(f"two lessons share an assignment name: {sorted(names)}")
    notebooks = []
    for ex in exercises:
        nb = assignment_notebook(ex, lesson_url)
        try:
            nbformat.validate(nb)
        except nbformat.ValidationError as e:
            raise ExerciseError(f"{ex.path.name}: its assignment notebook is not a valid "
                                f"notebook ({e.message}); please report this as a bug of "
                                "tapekit.teach, with the lesson") from None
        notebooks.append((ex, nb))
    _write_course(course_dir, NBGRADER_CONFIG.format(course_id=course_id), notebooks, log)
    return exercises


def _write_course(course_dir, config_text, notebooks, log):
    """Write the config (if the course has none) and the source notebooks, all or nothing:
    each file goes to a temporary file beside it first, and only when all of them are written
    are they renamed into place. If a write fails, the temporary files and the folders this
    call made are removed again: a failed build leaves no half-made course, and a course that
    was there keeps its config and every file as it was."""
    made, staged = [], []           # folders this call makes; (temporary file, file) pairs

    def mkdir(folder):
        made.extend(reversed([p for p in (folder, *folder.parents) if not p.exists()]))
        folder.mkdir(parents=True, exist_ok=True)

    def stage(path, text):
        mkdir(path.parent)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")     # the umask's permissions
        staged.append((tmp, path))
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

    try:
        config = course_dir / "nbgrader_config.py"
        if not config.exists():
            stage(config, config_text)
        mkdir(course_dir / "source")
        for ex, nb in notebooks:
            text = nbformat.writes(nb)
            stage(course_dir / "source" / ex.name / f"{ex.name}.ipynb",
                  text if text.endswith("\n") else text + "\n")
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                pass                # a folder something else has written into stays
        raise
    for tmp, path in staged:
        os.replace(tmp, path)
    for ex, _ in notebooks:
        log(f"source/{ex.name}/{ex.name}.ipynb: {len(ex.grades)} graded cell(s), "
            f"{ex.points} points")


def assignments_table(lessons):
    """The Markdown table of docs/instructors.md: each assignment, its lesson, its points, and
    the minutes the lesson states for reading it and for the exercise (minutes.py's models)."""
    rows = ["| assignment | lesson | points | reading (min) | exercise (min) |",
            "| --- | --- | ---: | ---: | ---: |"]
    for path in lessons:
        ex = read_exercise(path)
        reading, exercise = minutes.stated(path)
        rows.append(f"| `{ex.name}` | {markdown_text(ex.title)} | {ex.points} | {reading or '?'} | "
                    f"{exercise or '?'} |")
    return "\n".join(rows)
