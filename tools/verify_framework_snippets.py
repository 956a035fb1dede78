"""Run the lessons' PyTorch and JAX snippets under the real libraries and compare their output.

A lesson may show code for another library that its own cells do not run (lesson 29 shows
PyTorch and JAX beside tapekit). Each such snippet is a Markdown fence marked by an HTML
comment, followed by the output it prints, which the lesson shows as a ``text`` fence:

    <!-- snippet: torch -->
    ```python
    import torch
    print(torch.tensor(2.0) * 3)
    ```

    ```text
    tensor(6.)
    ```

JupyterLab and the documentation site hide the comment and show the two fences. This tool
finds every marked snippet in the lessons' ``.md`` files, runs each in a fresh subprocess of
the given Python (a venv that has torch and jax: never tapekit's own, and never a
dependency of the package or of ``make test``), and compares what it prints on stdout with
the shown output, exactly, after stripping trailing whitespace from each line and trailing
blank lines. It prints one line per snippet and a summary, and exits 1 when a snippet
printed something else, failed, or has no output block after it; 0 when all agree. The tool
itself imports neither torch nor jax.

    python tools/verify_framework_snippets.py --python /path/to/venv/bin/python [FILES...]

Without FILES it reads notebooks/*.md; without --python it takes $TAPEKIT_FRAMEWORK_PYTHON.
``--list`` prints the snippets found without running them.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENV_VAR = "TAPEKIT_FRAMEWORK_PYTHON"
MARKER = re.compile(r"^<!--\s*snippet:\s*([\w.-]+)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,})\s*(\w*)\s*$")


@dataclass
class Snippet:
    path: Path
    line: int           # 1-based line of the marker
    label: str          # the marker's word: torch, jax, ...
    code: str
    shown: str | None   # the output block's text; None when the snippet has none
    problem: str = ""   # why the snippet could not be read, if it could not

    def where(self):
        try:
            name = self.path.resolve().relative_to(REPO)
        except ValueError:
            name = self.path
        return f"{name}:{self.line}"


def _fence(lines, i, language):
    """(text, index after the closing fence) of the fence opening at lines[i] in `language`,
    or None when lines[i] does not open one."""
    m = FENCE.match(lines[i]) if i < len(lines) else None
    if not m or m.group(2) != language:
        return None
    ticks = m.group(1)
    for j in range(i + 1, len(lines)):
        if lines[j].rstrip() == ticks:
            return "\n".join(lines[i + 1:j]) + "\n", j + 1
    return None


def _skip_blank(lines, i):
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def find_snippets(path):
    """Every marked snippet of one Markdown file, with the output block shown after it."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        start, label = i + 1, m.group(1)
        code = _fence(lines, _skip_blank(lines, i + 1), "python")
        if code is None:
            found.append(Snippet(Path(path), start, label, "", None,
                                 "the marker is not followed by a ```python fence"))
            i += 1
            continue
        text, i = code
        shown = _fence(lines, _skip_blank(lines, i), "text")
        if shown is None:
            found.append(Snippet(Path(path), start, label, text, None,
                                 "no ```text block of its output follows the snippet"))
            continue
        found.append(Snippet(Path(path), start, label, text, shown[0]))
        i = shown[1]
    return found


def normalize(text):
    """The text with trailing whitespace stripped from each line and trailing blank lines."""
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


def run_snippet(python, snippet, timeout=600):
    """(stdout, stderr, returncode) of the snippet run by `python` in a fresh process, in an
    empty temporary directory."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "snippet.py"
        script.write_text(snippet.code, encoding="utf-8")
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}
        env.pop("PYTHONPATH", None)          # the venv's own packages, not this repository's
        try:
            proc = subprocess.run([python, str(script)], cwd=tmp, env=env, capture_output=True,
                                  text=True, encoding="utf-8", timeout=timeout)
        except subprocess.TimeoutExpired:
            return "", f"timed out after {timeout} s", -1
    return proc.stdout, proc.stderr, proc.returncode


def check(python, snippet, timeout=600):
    """None when the snippet prints its shown output, else a message saying what differs."""
    if snippet.problem:
        return snippet.problem
    out, err, rc = run_snippet(python, snippet, timeout)
    if rc != 0:
        tail = "\n".join(err.strip().splitlines()[-8:])
        return f"exited with status {rc}:\n{tail}"
    if normalize(out) != normalize(snippet.shown):
        diff = difflib.unified_diff(normalize(snippet.shown).splitlines(),
                                    normalize(out).splitlines(), "shown", "printed", lineterm="")
        return "printed other than the output the lesson shows:\n" + "\n".join(diff)
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path,
                        help="lesson .md files (default: notebooks/*.md)")
    parser.add_argument("--python", default=os.environ.get(ENV_VAR),
                        help=f"the Python that has torch and jax (default: ${ENV_VAR})")
    parser.add_argument("--list", action="store_true", help="list the snippets, run nothing")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per snippet")
    args = parser.parse_args(argv)
    files = args.files or sorted((REPO / "notebooks").glob("*.md"))
    snippets = [s for f in files for s in find_snippets(f)]
    if args.list:
        for s in snippets:
            print(f"{s.where()} {s.label}" + (f" ({s.problem})" if s.problem else ""))
        return 0
    if not args.python:
        parser.error(f"say which Python runs the snippets: --python PATH or ${ENV_VAR}")
    if not snippets:
        print("no snippets found (a snippet is a ```python fence after <!-- snippet: NAME -->)")
        return 1
    failed = 0
    for s in snippets:
        problem = check(args.python, s, args.timeout)
        print(f"{'PASS' if problem is None else 'FAIL'} {s.where()} {s.label}")
        if problem is not None:
            failed += 1
            print("    " + problem.replace("\n", "\n    "))
    print(f"{len(snippets)} snippets: {len(snippets) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
