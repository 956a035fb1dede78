"""tools/verify_framework_snippets.py finds each marked snippet and its shown output, runs it
in a separate Python and fails on any difference. Here that Python is this one (sys.executable)
running snippets that print plain text, so neither torch nor jax is needed."""
import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "verify_framework_snippets", REPO / "tools" / "verify_framework_snippets.py")
tool = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = tool          # dataclasses look their module up by name
_spec.loader.exec_module(tool)

LESSON = """\
# Lesson 99

Some prose, and a tapekit cell the tool leaves alone:

```{code-cell} ipython3
print("not a snippet")
```

<!-- snippet: torch -->
```python
print("tensor(6.)")
```

```text
tensor(6.)
```

<!-- snippet: jax -->

```python
for i in range(2):
    print(i, "  ")
```
```text
0
1

```

A fence with no marker is not run:

```python
raise SystemExit(3)
```
"""


def _write(tmp_path, text, name="99_lesson.md"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_finds_each_marked_snippet_and_its_output(tmp_path):
    found = tool.find_snippets(_write(tmp_path, LESSON))
    assert [(s.label, s.line) for s in found] == [("torch", 9), ("jax", 18)]
    assert found[0].code == 'print("tensor(6.)")\n' and found[0].shown == "tensor(6.)\n"
    assert found[1].code.startswith("for i in range(2):") and found[1].shown == "0\n1\n\n"
    assert not any(s.problem for s in found)


def test_a_snippet_without_its_output_block_is_a_problem(tmp_path):
    text = "<!-- snippet: torch -->\n```python\nprint(1)\n```\n\nprose, not output\n"
    (s,) = tool.find_snippets(_write(tmp_path, text))
    assert "no ```text block" in s.problem
    (s,) = tool.find_snippets(_write(tmp_path, "<!-- snippet: jax -->\nprose\n"))
    assert "not followed by a ```python fence" in s.problem


def test_normalize_strips_only_trailing_whitespace():
    assert tool.normalize("a  \nb\t\n\n\n") == "a\nb"
    assert tool.normalize("  a") == "  a"           # leading spaces count
    assert tool.normalize("tensor(6.)") != tool.normalize("tensor(6.0)")


def test_matching_outputs_pass(tmp_path, capsys):
    path = _write(tmp_path, LESSON)
    assert tool.main(["--python", sys.executable, str(path)]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "FAIL" not in out and "2 snippets: 2 passed, 0 failed" in out


def test_a_different_output_fails_and_shows_the_difference(tmp_path, capsys):
    path = _write(tmp_path, LESSON.replace("```text\ntensor(6.)", "```text\ntensor(6.0)"))
    assert tool.main(["--python", sys.executable, str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "99_lesson.md:9 torch" in out
    assert "-tensor(6.0)" in out and "+tensor(6.)" in out
    assert "2 snippets: 1 passed, 1 failed" in out


def test_an_error_fails_with_its_traceback(tmp_path, capsys):
    text = "<!-- snippet: torch -->\n```python\nimport no_such_module_here\n```\n\n```text\n```\n"
    assert tool.main(["--python", sys.executable, str(_write(tmp_path, text))]) == 1
    out = capsys.readouterr().out
    assert "exited with status 1" in out and "no_such_module_here" in out


def test_stderr_is_not_compared(tmp_path):
    text = ("<!-- snippet: jax -->\n```python\nimport sys\nprint('a warning', file=sys.stderr)\n"
            "print('out')\n```\n\n```text\nout\n```\n")
    assert tool.main(["--python", sys.executable, str(_write(tmp_path, text))]) == 0


def test_each_snippet_runs_in_a_fresh_process(tmp_path):
    # the second snippet does not see the first one's name
    text = ("<!-- snippet: torch -->\n```python\nx = 1\nprint(x)\n```\n\n```text\n1\n```\n\n"
            "<!-- snippet: torch -->\n```python\nprint('x' in globals())\n```\n\n```text\nFalse\n```\n")
    assert tool.main(["--python", sys.executable, str(_write(tmp_path, text))]) == 0


def test_the_python_comes_from_the_environment(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path, LESSON)
    monkeypatch.setenv(tool.ENV_VAR, sys.executable)
    assert tool.main([str(path)]) == 0
    monkeypatch.delenv(tool.ENV_VAR)
    with pytest.raises(SystemExit) as exc:
        tool.main([str(path)])
    assert exc.value.code == 2 and tool.ENV_VAR in capsys.readouterr().err


def test_list_runs_nothing(tmp_path, capsys):
    path = _write(tmp_path, LESSON.replace('print("tensor(6.)")', "raise SystemExit(1)"))
    assert tool.main(["--list", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{path}:9 torch", f"{path}:18 jax"]


def test_no_snippets_is_a_failure(tmp_path, capsys):
    assert tool.main(["--python", sys.executable, str(_write(tmp_path, "# nothing\n"))]) == 1


def test_the_lessons_snippets_are_well_formed():
    # Every marked snippet in the course has its output block (running them needs torch and
    # jax, which only the instructor's venv has: see tools/README.md).
    found = [s for p in sorted((REPO / "notebooks").glob("*.md")) for s in tool.find_snippets(p)]
    assert found, "lesson 29 shows PyTorch and JAX snippets"
    assert not [(s.where(), s.problem) for s in found if s.problem]
    assert {s.label for s in found} <= {"torch", "jax"}


def test_the_tool_imports_neither_library():
    source = (REPO / "tools" / "verify_framework_snippets.py").read_text(encoding="utf-8")
    assert not any(line.startswith(("import torch", "import jax", "from jax", "from torch"))
                   for line in source.splitlines())
