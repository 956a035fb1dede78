"""A lesson's exercise block: read from its `.md` file and checked.

`read_exercise(path)` reads the block marked as described in docs/write_your_own_lesson.md
(the `## Exercise` Markdown, the reader's cell tagged `exercise`, the checks tagged `grade`,
then the `solution`, last) into an `Exercise`, or raises `ExerciseError` naming the lesson and the cell.
A lesson may come from anyone: its text must not hold nbgrader's own markers where nbgrader
would act on them (see NBGRADER_MARKERS), since the release would then show students the
solution or refuse to run. `check_runs(ex)` runs the block in a fresh Python: each check must
FAIL when only the skeleton ran, and pass after the solution. assignments.py builds the
nbgrader notebooks from these.
"""
import ast
import html
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
from markdown_it import MarkdownIt   # jupytext's Markdown parser, installed with it
import nbformat
import yaml

from .layout import SOLUTION_FIRST_LINE


EXERCISE_HEADING = re.compile(r"^##\s+Exercise\b", re.M)
MARKER_TAGS = ("exercise", "solution", "grade")
SETUP_TAG = "exercise-setup"     # a lesson cell the exercise builds on, copied to the assignment
LESSON_NAME = re.compile(r"^\d+[a-z]?_\w+$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")     # a Markdown code fence's opening or closing

# What nbgrader 0.9's `generate_assignment` acts on in a cell's source, with its default
# delimiters (ClearSolutions.begin/end_solution_delimeter, ClearHiddenTests.begin/
# end_test_delimeter, ClearMarkScheme.begin/end_mark_scheme_delimeter; tests compare them with
# the installed nbgrader). Each is found by `delimiter in line`: case-sensitive, anywhere in
# the line (a comment, a string, a Markdown sentence), in every cell, code or Markdown. A BEGIN
# starts a region that runs to the next line holding its END (both lines dropped), a lone END
# line is dropped, and a region outside a cell of its kind (or nested, or unclosed) stops the
# release. InstantiateTests acts on a code cell holding AUTOTEST anywhere: it loads the
# course's autotests.yml (the release fails without one) and rewrites the comment lines.
SOLUTION_MARKERS = ("BEGIN SOLUTION", "END SOLUTION")
HIDDEN_MARKERS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
MARK_SCHEME_MARKERS = ("BEGIN MARK SCHEME", "END MARK SCHEME")
AUTOTEST_MARKER = "AUTOTEST"
NBGRADER_MARKERS = SOLUTION_MARKERS + HIDDEN_MARKERS + MARK_SCHEME_MARKERS
# The block's order. The solution comes last, after the checks: a student who presses
# Shift+Enter from their cell, or chooses Run All, has their own answer checked before any
# solution runs (and solution.py runs it in a namespace of its own, so it never replaces it).
ORDER_CELLS = "the exercise cell, the grade cell(s), then the solution"
ORDER = f"the order is {ORDER_CELLS} (last, after the checks)"
HIDDEN_LINE = re.compile(r"[ \t]*#+[ \t]*(BEGIN|END) HIDDEN TESTS[ \t]*")   # a line of its own


class ExerciseError(ValueError):
    """A lesson's exercise markers are missing or wrong (the message names the lesson and cell)."""


@dataclass
class Exercise:
    """One lesson's exercise block, read from its .md file."""
    path: Path
    name: str                      # NN_slug, the assignment's name
    title: str                     # the lesson's `# ...` heading, e.g. "Lesson 4: Persistent tapes"
    imports: list                  # the lesson's first code cell and its import-only cells
    setup: list                    # source of the lesson's cells tagged `exercise-setup`
    given: list                    # `exercise-setup` cells inside the block: the task's data
    markdown: list                 # the exercise's Markdown cell(s), `## Exercise` first
    skeleton: str                  # the reader's cell: it opens the assignment's answer cell
    solution: str                  # the solution's body, without its `# Solution` line
    grades: list = field(default_factory=list)   # [(source, points)]
    seconds: float = None          # the solution's run (imports, solution, checks), if run

    @property
    def points(self):
        return sum(p for _, p in self.grades)


def _where(path, index, cell):
    first = (cell.source.strip().splitlines() or [""])[0][:50]
    return f"{path.name}, cell {index + 1} ({cell.cell_type}, starting {first!r})"


def _tags(cell):
    return list(cell.metadata.get("tags", []))


def _is_import_cell(cell):
    if cell.cell_type != "code" or set(_tags(cell)) & {"check", "remove-cell", SETUP_TAG,
                                                         *MARKER_TAGS}:
        return False
    try:
        body = ast.parse(cell.source).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in body)


def _exercise_headings(source):
    """Where the lines starting '## Exercise' begin in a Markdown cell, except inside a fenced
    code block (``` or ~~~), where such a line is an example of Markdown, not a heading."""
    fence, at = None, 0
    for line in source.split("\n"):
        m = _FENCE.match(line)
        if fence is None:
            if m and not (m[1][0] == "`" and "`" in line[m.end():]):
                fence = m[1]
            elif EXERCISE_HEADING.match(line):
                yield at
        elif m and m[1][0] == fence[0] and len(m[1]) >= len(fence) and not line[m.end():].strip():
            fence = None
        at += len(line) + 1


def _check_markers(where, text, role):
    """Refuse nbgrader's markers (NBGRADER_MARKERS) in text the assignment copies, except
    hidden tests in a grade cell, as whole, balanced lines that leave valid Python.

    role: "title", "markdown", "code" (imports, setup), "exercise", "solution" or "grade".
    """
    found = [m for m in NBGRADER_MARKERS if m in text]
    if role not in ("title", "markdown") and AUTOTEST_MARKER in text:
        found.append(AUTOTEST_MARKER)
    for m in found:
        if m in HIDDEN_MARKERS and role == "grade":
            continue
        if m in SOLUTION_MARKERS and role == "solution":
            why = ("the assignment puts the solution between '### BEGIN SOLUTION' and "
                   "'### END SOLUTION', so nbgrader's release would "
                   + ("end the hidden part at this line and show students the rest of the "
                      "solution" if m.startswith("END") else
                      "refuse it (a nested BEGIN SOLUTION)"))
        elif m in SOLUTION_MARKERS:
            why = ("the assignment's only solution region is the solution cell's body: "
                   "nbgrader's release would clear this text from that line on, drop the "
                   "line, or refuse the notebook")
        elif m in HIDDEN_MARKERS:
            why = ("hidden tests go only in a grade cell (tagged [check, remove-cell, grade]): "
                   "nbgrader's release refuses them elsewhere, and drops a lone END line")
        elif m in MARK_SCHEME_MARKERS:
            why = ("the assignments have no manually graded task cells, so nbgrader's release "
                   "would refuse the notebook or drop the line")
        else:
            why = ("nbgrader then looks for tests in an autotests.yml, which the course does "
                   "not have (its release fails), to replace comment lines with; write checks "
                   "as asserts")
        raise ExerciseError(f"{where}: holds {m!r}, which nbgrader reads as its marker "
                            f"anywhere in a line (in a comment, a string or text alike): {why}; "
                            f"reword it so that no line holds {m!r}")
    if role != "grade" or not set(found) & set(HIDDEN_MARKERS):
        return
    lines, begun, visible = text.split("\n"), None, []
    for k, line in enumerate(lines, 1):
        marker = next((m for m in HIDDEN_MARKERS if m in line), None)
        if marker is None:
            if begun is None:
                visible.append(line)
            continue
        if not HIDDEN_LINE.fullmatch(line):
            raise ExerciseError(f"{where}: line {k} holds {marker!r} beside other text, and "
                                "nbgrader drops the whole line; put '### BEGIN HIDDEN TESTS' "
                                "and '### END HIDDEN TESTS' on lines of their own")
        if marker.startswith("BEGIN") and begun is not None:
            raise ExerciseError(f"{where}: line {k} begins hidden tests inside those begun at "
                                f"line {begun}, which nbgrader refuses; end the first with "
                                "'### END HIDDEN TESTS' before beginning more")
        if marker.startswith("END") and begun is None:
            raise ExerciseError(f"{where}: line {k} ends hidden tests that no '### BEGIN "
                                "HIDDEN TESTS' line began (nbgrader would drop it); add the "
                                "BEGIN line above the hidden asserts, or remove this line")
        begun = k if marker.startswith("BEGIN") else None
    if begun is not None:
        raise ExerciseError(f"{where}: the hidden tests begun at line {begun} never end, and "
                            "nbgrader's release refuses the notebook; end them with a line "
                            "'### END HIDDEN TESTS'")
    try:
        ast.parse(text)
    except SyntaxError:
        return              # IPython syntax (a %magic): the runs check the cell as it is
    try:
        ast.parse("\n".join(visible))
    except SyntaxError as e:
        raise ExerciseError(f"{where}: without its hidden tests, as students get it, the cell "
                            f"is not valid Python ({e.msg}, line {e.lineno} of what remains): "
                            "nbgrader removes the lines from '### BEGIN HIDDEN TESTS' to "
                            "'### END HIDDEN TESTS'; keep whole statements between them") from None


# Link targets the task's Markdown may hold: web pages, mail, and addresses without a scheme
# (a page or a file beside the assignment, an #anchor). javascript:, data:, vbscript: and the
# like would run or show content of the lesson writer's choosing when a student clicks.
SAFE_LINK_SCHEMES = ("http", "https", "mailto")
_HTML_URL_ATTR = re.compile(r"""\b(?:href|src|action|formaction|xlink:href|srcset|poster)\s*=\s*
                                (?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I | re.X)


def _link_scheme(url):
    """The scheme of a link target as a browser reads it (it drops ASCII whitespace and control
    characters first: 'java\tscript:' is javascript:), lower case; '' for none."""
    cleaned = "".join(ch for ch in html.unescape(url) if ord(ch) > 32 and ord(ch) != 127)
    m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", cleaned)
    return m[1].lower() if m else ""


def _check_links(where, text):
    """Refuse a link, image or HTML address in the task's Markdown whose scheme is not
    SAFE_LINK_SCHEMES: the assignment copies that text to every student's notebook."""
    md = MarkdownIt("commonmark")
    md.validateLink = lambda url: True    # see every target, also those it would drop
    urls = []
    for token in md.parse(text):
        for t in [token, *(token.children or [])]:
            if t.type in ("link_open", "image"):
                urls.append(t.attrGet("href") if t.type == "link_open" else t.attrGet("src"))
            elif t.type in ("html_inline", "html_block"):
                urls += [next(g for g in m.groups() if g is not None)
                         for m in _HTML_URL_ATTR.finditer(t.content)]
    for url in urls:
        scheme = _link_scheme(url or "")
        if scheme and scheme not in SAFE_LINK_SCHEMES:
            raise ExerciseError(f"{where}: links to {url[:60]!r}, a {scheme}: address; the "
                                "assignment copies this text to every student, so its links "
                                f"may only be {', '.join(s + ':' for s in SAFE_LINK_SCHEMES)} "
                                "or relative addresses; link to a web page instead")


def has_exercise_markers(path):
    """True if a cell of the lesson is tagged `exercise` or `grade` (the new markers)."""
    nb = _read(path)
    tags = {t for c in nb.cells for t in _tags(c)}
    return "exercise" in tags or "grade" in tags


def _read(path):
    """The lesson as a notebook; undecodable bytes, YAML that does not parse and metadata that a
    notebook does not allow raise ExerciseError naming the file (and the line, where known)."""
    path = Path(path)
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        begins = data.rfind(b"\n", 0, e.start) + 1
        column = len(data[begins:e.start].decode("utf-8", "replace")) + 1   # in characters
        raise ExerciseError(f"{path.name}, line {line}, column {column}: byte "
                            f"0x{data[e.start]:02x} is not UTF-8 text ({e.reason}); a lesson "
                            "is a UTF-8 file: save it with the encoding UTF-8 (for a Latin-1 "
                            "file: iconv -f latin1 -t utf-8)") from None
    try:
        return jupytext.read(path)      # it validates the notebook: tags are a list of words
    except Exception as e:
        raise ExerciseError(_unreadable(path, data.decode("utf-8"), e)) from None


def _unreadable(path, text, error):
    """The message for a lesson that jupytext cannot read: the file, the line, the fix."""
    yaml_error = next((e for e in (error, error.__context__)
                       if isinstance(e, yaml.MarkedYAMLError)), None)
    cell_line = re.search(r"\bat line (\d+)", str(error))        # jupytext names the cell's line
    if isinstance(error, nbformat.ValidationError) and error.path:
        return (f"{path.name}: a cell's {'.'.join(map(str, error.path))} is "
                f"{error.instance!r}, which a notebook does not allow ({error.message}); fix "
                "that cell's options (e.g. tags are a list of words: 'tags: [exercise]')")
    if yaml_error is None:
        where = f"{path.name}, line {cell_line[1]}" if cell_line else path.name
        return (f"{where}: jupytext cannot read it as a MyST Markdown lesson ({error}); "
                "fix the cell there (a code cell is ```{code-cell} ipython3 ... ```, its "
                "options YAML between '---' lines)")
    what = (f"the options of the cell at line {cell_line[1]} are" if cell_line
            else "the lesson's header (between its first two '---' lines) is")
    line, mark = None, yaml_error.context_mark or yaml_error.problem_mark
    if mark is not None and mark.buffer:
        # the YAML that failed is a piece of the file: find it, from the cell jupytext names
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        after = 0
        if cell_line:
            after = sum(len(ln) + 1 for ln in text.split("\n")[:int(cell_line[1]) - 1])
        found = text.find(mark.buffer.rstrip("\0"), after)
        if found >= 0:
            line = text.count("\n", 0, found) + mark.line + 1
    problem = "; ".join(p for p in (yaml_error.context, yaml_error.problem) if p)
    hint = ", indent with spaces, not tabs" if "\\t" in problem or "\t" in problem else ""
    return (f"{path.name}{f', line {line}' if line else ''}: {what} not valid YAML "
            f"({problem}); fix it there{hint} (YAML is 'key: value' lines, lists in [ ], "
            "e.g. 'tags: [exercise]')")


def read_exercise(path):
    """Read and validate the exercise block of one lesson (`NN_slug.md`); raise ExerciseError."""
    path = Path(path)
    if path.suffix != ".md":
        raise ExerciseError(f"{path}: give the lesson's MyST Markdown file (.md), the source "
                            "of its text; the .ipynb beside it only stores outputs")
    if not LESSON_NAME.match(path.stem):
        raise ExerciseError(f"{path.name}: a lesson's file is named NN_slug.md (digits, an "
                            "optional letter, an underscore, then letters, digits or _), e.g. "
                            "99_tiny_lesson.md; the name becomes the assignment's name")
    if not path.stem.isascii():
        ascii_name = unicodedata.normalize("NFKD", path.stem).encode("ascii", "ignore").decode()
        raise ExerciseError(f"{path.name}: a lesson's name is ASCII letters, digits and _ (it "
                            "becomes the assignment's name, its folder and its cells' ids, "
                            "which nbformat allows in ASCII only); rename the file, e.g. "
                            f"{ascii_name}.md")
    nb = _read(path)
    cells = nb.cells
    titled = next((i for i, c in enumerate(cells)
                   if c.cell_type == "markdown" and c.source.strip().startswith("# ")), None)
    title = (path.stem if titled is None else
             cells[titled].source.strip().splitlines()[0].lstrip("#").strip())

    # In MyST text, the Markdown between two code cells is one cell: the heading may sit
    # inside a cell that holds the end of the previous section too.
    heads = [(i, at) for i, c in enumerate(cells) if c.cell_type == "markdown"
             for at in _exercise_headings(c.source)]
    if not heads:
        raise ExerciseError(f"{path.name}: no exercise: no Markdown line starts with "
                            "'## Exercise' (the exercise block starts with it)")
    if len(heads) > 1:
        raise ExerciseError(f"{path.name}: {len(heads)} Markdown lines start with '## Exercise' "
                            f"(cells {', '.join(str(i + 1) for i, _ in heads)}); a lesson has "
                            "one exercise block")
    start, heading = heads[0]
    copied = []     # (cell index, the text the assignment copies, its role): checked for markers
    if titled is not None:
        copied.append((titled, title, "title"))
    for i, c in enumerate(cells[:start]):
        found = set(_tags(c)) & set(MARKER_TAGS)
        if found:
            raise ExerciseError(f"{_where(path, i, c)} is tagged {sorted(found)} but comes "
                                "before the '## Exercise' cell; the block is: '## Exercise' "
                                f"Markdown, then {ORDER_CELLS}")

    markdown, skeleton, solution, grades, ended = [], None, None, [], None
    setup_in_block = []
    for i in range(start, len(cells)):
        c = cells[i]
        tags = set(_tags(c))
        where = _where(path, i, c)
        if solution is not None and ended is None:
            ended = i       # after the solution: the lesson's own ending (not assigned)
        if ended is not None:
            if tags & set(MARKER_TAGS):
                raise ExerciseError(f"{where}: tagged {sorted(tags & set(MARKER_TAGS))} after "
                                    f"the solution (cell {ended}), which ends the exercise "
                                    f"block; {ORDER}")
            continue
        if c.cell_type == "markdown":
            if i == start or (skeleton is None and not grades and not setup_in_block):
                markdown.append(c.source[heading:] if i == start else c.source)
                markdown[-1] = markdown[-1].strip()
                copied.append((i, markdown[-1], "markdown"))
                continue
            raise ExerciseError(f"{where}: a Markdown cell between the exercise's code cells; "
                                f"the block is '## Exercise' text, then {ORDER_CELLS}, one "
                                "after the other")
        if c.cell_type != "code":
            continue
        if len(tags & set(MARKER_TAGS)) > 1:
            raise ExerciseError(f"{where}: tagged {sorted(tags & set(MARKER_TAGS))}; a cell is "
                                "one of exercise, solution or grade")
        if SETUP_TAG in tags and not tags & set(MARKER_TAGS) and skeleton is None:
            setup_in_block.append(c.source.strip())     # given code the task starts from
            copied.append((i, c.source, "code"))
            continue
        if "exercise" in tags:
            if skeleton is not None or grades:
                raise ExerciseError(f"{where}: a second exercise cell, or one after a grade "
                                    f"cell; {ORDER}")
            skeleton = c.source
            copied.append((i, c.source, "exercise"))
        elif "grade" in tags:
            if skeleton is None:
                raise ExerciseError(f"{where}: a grade cell before the cell tagged 'exercise' "
                                    f"(the reader's skeleton, '# your code here'); {ORDER}")
            if "raises-exception" not in tags:
                raise ExerciseError(f"{where}: a grade cell of the lesson is also tagged "
                                    "'raises-exception' ([check, remove-cell, grade, "
                                    "raises-exception]): it fails until the reader answers, "
                                    "and with the tag the lesson's run (nbval, Run All) goes on "
                                    "past it to the solution")
            meta = c.metadata.get("tapekit", {})
            points = meta.get("points") if isinstance(meta, dict) else f"tapekit: {meta!r}"
            if isinstance(points, bool) or not isinstance(points, int) or points < 1:
                raise ExerciseError(f"{where}: a grade cell needs metadata "
                                    f"'tapekit: {{points: N}}' with an int N >= 1, got {points!r}")
            if "assert" not in c.source:
                raise ExerciseError(f"{where}: a grade cell checks the answer with "
                                    "`assert condition, \"what was expected\"`; this one has "
                                    "no assert")
            grades.append((c.source.strip("\n"), points))
            copied.append((i, c.source, "grade"))
        elif "solution" in tags:
            if skeleton is None:
                raise ExerciseError(f"{where}: the solution comes before any cell tagged "
                                    "'exercise' (the reader's skeleton, '# your code here')")
            if not grades:
                raise ExerciseError(f"{where}: the solution comes before the grade cells; "
                                    f"{ORDER}")
            lines = c.source.splitlines()
            if not lines or not SOLUTION_FIRST_LINE.match(lines[0]):
                raise ExerciseError(f"{where}: the solution's first line must be '# Solution' "
                                    "(everything after it is what nbgrader hides)")
            solution = "\n".join(lines[1:]).strip("\n")
            if not solution.strip():
                raise ExerciseError(f"{where}: the solution cell holds only its '# Solution' line")
            copied.append((i, c.source, "solution"))
        elif set(_tags(c)) & {"check", "remove-cell"}:
            raise ExerciseError(f"{where}: a check cell inside the exercise block without the "
                                "'grade' tag; tag it [check, remove-cell, grade, raises-exception] "
                                "with 'tapekit: {points: N}', or move it before '## Exercise'")
        else:
            hint = (" If it is the reader's cell, tag it [exercise]." if skeleton is None
                    else "")
            raise ExerciseError(f"{where}: an untagged code cell inside the exercise block; "
                                f"the block holds only {ORDER_CELLS} (the assignment would "
                                f"lose this one).{hint}")
    if skeleton is None:
        raise ExerciseError(f"{path.name}: the exercise has no cell tagged 'exercise' (the "
                            "reader's skeleton, e.g. '# your code here') after '## Exercise'")
    if not grades:
        raise ExerciseError(f"{path.name}: the exercise has no cell tagged 'grade' (a check "
                            "with 'tapekit: {points: N}') after its exercise cell: nothing to "
                            "grade")
    if solution is None:
        raise ExerciseError(f"{path.name}: the exercise has no cell tagged 'solution' after "
                            "its grade cells")
    # The lesson's first code cell (its imports and settings, by the course's convention),
    # and any later cell that holds only imports.
    code = [(i, c) for i, c in enumerate(cells[:start]) if c.cell_type == "code"]
    first = code[0][1] if code and not set(_tags(code[0][1])) & {"check", "remove-cell",
                                                                 SETUP_TAG, *MARKER_TAGS} else None
    imports = [c.source.strip() for _, c in code if c is first or _is_import_cell(c)]
    copied += [(i, c.source, "code") for i, c in code if c is first or _is_import_cell(c)]
    setup = []
    for i, c in enumerate(cells[:start]):
        if SETUP_TAG in _tags(c):
            if c.cell_type != "code" or {"check", "remove-cell"} & set(_tags(c)):
                raise ExerciseError(f"{_where(path, i, c)}: tagged '{SETUP_TAG}', which marks "
                                    "a code cell of the lesson that the assignment copies; "
                                    "not a Markdown or check cell")
            setup.append(c.source.strip())
            copied.append((i, c.source, "code"))
    for i, text, role in sorted(copied, key=lambda x: x[0]):
        _check_markers(_where(path, i, cells[i]), text, role)
        if role == "markdown":
            _check_links(_where(path, i, cells[i]), text)
    return Exercise(path, path.stem, title, imports, setup, setup_in_block, markdown, skeleton,
                    solution, grades)


# --- running the block: each check fails on the skeleton and passes on the solution ---------
_RUNNER = textwrap.dedent('''
    import json, sys, time
    from IPython.core.interactiveshell import InteractiveShell
    job = json.load(open(sys.argv[1]))
    progress = open(sys.argv[3], "a")       # which cell runs: read if the process stops early
    out = {}

    def message(err):
        try:
            return str(err)
        except BaseException:
            return "(its message could not be turned into text)"

    for run, cells in job.items():
        InteractiveShell.clear_instance()
        shell = InteractiveShell.instance()
        results, t0 = [], time.perf_counter()
        for k, src in enumerate(cells):
            progress.write(json.dumps([run, k]) + "\\n")
            progress.flush()
            r = shell.run_cell(src, silent=True)
            err = r.error_before_exec or r.error_in_exec
            results.append(None if err is None else [type(err).__name__, message(err)])
        out[run] = {"results": results, "seconds": time.perf_counter() - t0}
    json.dump(out, open(sys.argv[2], "w"))
''')


class CellsStopped(RuntimeError):
    """The Python running the cells stopped before it finished them: in cell `index` of the
    list `run` (both None: before the first cell), with `returncode` (None: out of time)."""

    def __init__(self, message, run, index, returncode, timeout):
        super().__init__(message)
        self.run, self.index, self.returncode, self.timeout = run, index, returncode, timeout


def run_cells(runs, timeout=120):
    """Run lists of cells, each list in a fresh IPython shell (in one child Python).

    runs: {name: [cell source, ...]}. Returns {name: {"results": [None or
    [exception type, message], ...], "seconds": float}}. Raises CellsStopped when the child
    runs longer than `timeout` seconds in all, or exits (os._exit, a crash) before the end.
    """
    with tempfile.TemporaryDirectory() as tmp:
        job, result, progress = (Path(tmp) / n for n in ("job.json", "result.json", "progress"))
        job.write_text(json.dumps(runs))
        progress.touch()
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0")
        # its own process group, so that a timeout also ends what the cells started
        proc = subprocess.Popen([sys.executable, "-c", _RUNNER, str(job), str(result),
                                 str(progress)], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                errors="replace", start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout)
            returncode = proc.returncode
        except subprocess.TimeoutExpired:
            if hasattr(os, "killpg"):
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
            _, stderr = proc.communicate()
            returncode = None
        if returncode == 0 and result.exists():
            return json.loads(result.read_text())
        try:
            run, index = json.loads(progress.read_text().splitlines()[-1])
        except (IndexError, ValueError):         # no cell had begun
            run, index = None, None
        how = (f"did not finish in {timeout:g} s" if returncode is None else
               f"exited with code {returncode}" if returncode >= 0 else
               f"was killed by signal {-returncode} ({signal.Signals(-returncode).name})")
        cell = "before the first cell" if run is None else f"in cell {index + 1} of {run!r}"
        raise CellsStopped(f"running the exercise cells {how}, {cell}"
                           + (f":\n{stderr[-2000:]}" if stderr.strip() else ""),
                           run, index, returncode, timeout)


def _cell_label(ex, run, i):
    """What cell i of check_runs' `run` ("skeleton" or "solution") is, in words."""
    n = len(ex.imports + ex.setup + ex.given)
    if i < len(ex.imports):
        return "an import cell"
    if i < n:
        return f"the '{SETUP_TAG}' cell {i - len(ex.imports) + 1}"
    if i == n:
        return "the solution" if run == "solution" else "the exercise cell (the skeleton)"
    return f"grade cell {i - n} of {len(ex.grades)}"


def _stopped(ex, e):
    """The ExerciseError for check_runs' child Python stopped early (CellsStopped e)."""
    cells = len(ex.imports + ex.setup + ex.given) + 1 + len(ex.grades)
    if e.run is None:
        where = "before its first cell ran (while Python and IPython started)"
    else:
        nxt = ("the end of the run" if e.index + 1 >= cells else
               _cell_label(ex, e.run, e.index + 1))
        where = (f"while {_cell_label(ex, e.run, e.index)} ran in the {e.run} run, before "
                 f"{nxt}" + (" and the solution run" if e.run == "skeleton" else ""))
    if e.returncode is None:
        return (f"{ex.path.name}: running the exercise block did not finish in {e.timeout:g} s: "
                f"it stopped {where} (the build runs the block twice in a fresh Python, with the "
                "skeleton, then with the solution, in that time in all). Make the cell "
                "faster, or give it more time: python -m tapekit.teach build --timeout "
                "SECONDS (build_course(..., timeout=SECONDS)); nbgrader's autograde allows "
                "each cell c.ExecutePreprocessor.timeout seconds (nbgrader_config.py)")
    how = (f"exited with code {e.returncode}" if e.returncode >= 0 else
           f"was killed by signal {-e.returncode} ({signal.Signals(-e.returncode).name})")
    tail = str(e).partition(":\n")[2]
    return (f"{ex.path.name}: the exercise process {how} {where}: a cell ends Python "
            "(os._exit, or a crash), so the cells after it never ran and nbgrader's autograde "
            "would lose the student's kernel there too; make every cell return (raise an "
            "exception rather than end Python)"
            + (f". Its last output:\n{tail}" if tail else ""))


def check_runs(ex, timeout=120):
    """Run `ex`'s block twice: after the skeleton (the lesson's exercise cell, which is also the
    release's answer cell) every check must fail with a message; after the skeleton and the
    solution (the instructor's answer cell) every check passes. Raise ExerciseError otherwise
    (also when the runs take longer than `timeout` seconds in all, or end Python).

    Returns the seconds the solution's run took (imports, solution, checks).
    """
    before = ex.imports + ex.setup + ex.given
    try:
        res = run_cells({"skeleton": before + [ex.skeleton] + [g for g, _ in ex.grades],
                         "solution": before + [f"{ex.skeleton.rstrip()}\n{ex.solution}"]
                         + [g for g, _ in ex.grades]},
                        timeout=timeout)
    except CellsStopped as e:
        raise ExerciseError(_stopped(ex, e)) from None
    n = len(before)
    for i, r in enumerate(res["solution"]["results"]):
        if r is not None:
            what = _cell_label(ex, "solution", i)
            hint = (f" The assignment holds only the lesson's import cells, its cells tagged "
                    f"'{SETUP_TAG}' and the exercise block: tag the lesson's cells that the "
                    f"exercise needs '{SETUP_TAG}'." if r[0] == "NameError" else "")
            raise ExerciseError(f"{ex.path.name}: {what} raised {r[0]}: {r[1]} when the "
                                "lesson's solution ran (the instructor's answer must get "
                                f"full marks).{hint}")
    for run, label in (("skeleton", "the skeleton (the lesson's exercise cell, which the "
                                    "release hands out as the answer cell)"),):
        for i, r in enumerate(res[run]["results"]):
            if i < n and r is not None:
                raise ExerciseError(f"{ex.path.name}: an import or '{SETUP_TAG}' cell raised "
                                    f"{r[0]}: {r[1]}")
            if i == n and r is not None:
                raise ExerciseError(f"{ex.path.name}: the exercise cell (the skeleton) raised "
                                    f"{r[0]}: {r[1]}; it must run without error")
            if i > n:
                k = f"grade cell {i - n} of {len(ex.grades)}"
                if r is None:
                    raise ExerciseError(f"{ex.path.name}: {k} passes on {label}: it would "
                                        "give points for no work; make it fail there")
                if r[0] != "AssertionError":
                    raise ExerciseError(f"{ex.path.name}: {k} fails on {label} with {r[0]}: "
                                        f"{r[1]}; a check fails with an AssertionError whose "
                                        "message says what is missing (test `'name' in "
                                        "globals()` first)")
                if not r[1].strip():
                    raise ExerciseError(f"{ex.path.name}: {k} fails on {label} with a bare "
                                        "AssertionError; give the assert a message that tells "
                                        "the student what was expected")
    return res["solution"]["seconds"]

