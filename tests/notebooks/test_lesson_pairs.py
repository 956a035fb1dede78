"""Each lesson is two files: notebooks/NN_*.md (MyST Markdown, edited) and NN_*.ipynb (the same
cells with the outputs nbval compares). These tests fail when the two disagree or one is
missing, and check that the comparison (tools/sync_lessons.py) really catches each kind of
difference, on modified copies in a temporary folder.
"""
import importlib.util
import json
import os
import shutil
from pathlib import Path

import jupytext
import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"

_spec = importlib.util.spec_from_file_location("sync_lessons", REPO / "tools" / "sync_lessons.py")
sync_lessons = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sync_lessons)

PAIRS = sync_lessons.lesson_pairs(NOTEBOOKS)


def test_every_lesson_is_a_pair():
    assert len(PAIRS) >= 10
    for md, ipynb in PAIRS:
        assert md.exists() and ipynb.exists(), f"{md.stem}: both .md and .ipynb must exist"


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p[0].stem)
def test_text_and_notebook_agree(pair):
    problems = sync_lessons.differences(*pair)
    assert not problems, (
        f"{pair[0].name} and {pair[1].name} disagree (edit the .md, then `make notebooks`):\n"
        + "\n".join(problems))


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p[0].stem)
def test_text_is_myst_paired_with_the_notebook(pair):
    md, ipynb = pair
    header = md.read_text(encoding="utf-8").split("\n---\n", 1)[0]
    assert "format_name: myst" in header and "formats: ipynb,md:myst" in header
    meta = json.loads(ipynb.read_text(encoding="utf-8"))["metadata"]
    assert meta["jupytext"] == {"formats": "ipynb,md:myst"}


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p[0].stem)
def test_solutions_are_collapsed_in_the_text_too(pair):
    """The collapsed-source flag lives in the .md (JupyterLab opening the .md hides it too)."""
    text = jupytext.read(pair[0])
    solutions = [c for c in text.cells if c.cell_type == "code"
                 and c.source.lstrip().startswith("# Solution")]
    assert solutions, f"{pair[0].name} has no '# Solution' cell"
    for cell in solutions:
        assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, cell.source[:80]
        assert "solution" in cell.metadata.get("tags", []), cell.source[:80]


# --- the check itself, on modified copies ------------------------------------------------------
LESSON = "01_first_gradients"


@pytest.fixture
def pair(tmp_path):
    for name in (f"{LESSON}.md", f"{LESSON}.ipynb", "jupytext.toml"):
        shutil.copy(NOTEBOOKS / name, tmp_path / name)
    return tmp_path / f"{LESSON}.md", tmp_path / f"{LESSON}.ipynb"


def edit_md(md, old, new):
    text = md.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    md.write_text(text.replace(old, new), encoding="utf-8")


def edit_ipynb(ipynb, change):
    nb = nbformat.read(ipynb, as_version=4)
    change(nb)
    nbformat.write(nb, ipynb)


def first_code_index(nb, startswith):
    return next(i for i, c in enumerate(nb.cells) if c.source.startswith(startswith))


def test_the_copy_agrees(pair):
    assert sync_lessons.differences(*pair) == []


def test_a_changed_line_of_code_is_caught(pair):
    edit_md(pair[0], "y = x ** 2\n", "y = x ** 3\n")
    problems = sync_lessons.differences(*pair)
    assert len(problems) == 1 and "source differs" in problems[0]
    assert "+    y = x ** 3" in problems[0] and "-    y = x ** 2" in problems[0]


def test_a_changed_word_of_text_is_caught(pair):
    edit_md(pair[0], "# Lesson 1: First gradients", "# Lesson 1: First gradient")
    assert "source differs" in " ".join(sync_lessons.differences(*pair))


def test_a_changed_cell_type_is_caught(pair):
    def to_markdown(nb):
        i = first_code_index(nb, "x = tk.Variable(3.0")
        nb.cells[i] = nbformat.v4.new_markdown_cell(nb.cells[i].source)
    edit_ipynb(pair[1], to_markdown)
    assert "a code cell in" in " ".join(sync_lessons.differences(*pair))


def test_a_lost_tag_or_collapsed_source_is_caught(pair):
    edit_md(pair[0], "tags: [solution]\n", "")
    problems = sync_lessons.differences(*pair)
    assert len(problems) == 1 and "metadata differs" in problems[0] and "solution" in problems[0]

    shutil.copy(NOTEBOOKS / f"{LESSON}.md", pair[0])
    edit_ipynb(pair[1], lambda nb: nb.cells[-1].metadata.pop("jupyter"))
    problems = sync_lessons.differences(*pair)
    assert len(problems) == 1 and "source_hidden" in problems[0]


def test_an_added_or_removed_cell_is_caught(pair):
    n = len(nbformat.read(pair[1], as_version=4).cells)
    edit_ipynb(pair[1], lambda nb: nb.cells.pop(3))
    problems = sync_lessons.differences(*pair)
    assert f"has {n} cells, {LESSON}.ipynb has {n - 1}" in problems[0]


def test_a_changed_kernel_is_caught(pair):
    edit_md(pair[0], "  name: python3\n", "  name: tapekit-dev\n")
    assert "the kernel differs" in " ".join(sync_lessons.differences(*pair))


@pytest.mark.parametrize("missing", [".md", ".ipynb"])
def test_a_missing_half_is_caught(pair, missing):
    md = pair[0]
    md.with_suffix(missing).unlink()
    assert [m for m, _ in sync_lessons.lesson_pairs(md.parent)] == [md]
    problems = sync_lessons.differences(*pair)
    assert len(problems) == 1 and f"{LESSON}{missing} is missing" in problems[0]


def test_outputs_and_per_run_metadata_are_not_compared(pair):
    def rerun(nb):
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
                cell.metadata["collapsed"] = True
        nb.metadata["widgets"] = {"state": "anything"}
    edit_ipynb(pair[1], rerun)
    assert sync_lessons.differences(*pair) == []


def test_a_text_jupytext_would_rewrite_is_caught(pair, capsys, monkeypatch):
    """Same cells, but saving the notebook would lay the .md out differently."""
    md, ipynb = pair
    assert sync_lessons.text_is_stable(md, ipynb)
    edit_md(md, "  display_name: Python 3 (ipykernel)\n  language: python\n",
            "  language: python\n  display_name: Python 3 (ipykernel)\n")  # same kernelspec
    assert sync_lessons.differences(md, ipynb) == []
    assert not sync_lessons.text_is_stable(md, ipynb)
    monkeypatch.setattr("sys.argv", ["sync_lessons.py", "--check", str(md)])
    assert sync_lessons.main() == 1
    assert "would rewrite" in capsys.readouterr().err


def test_check_exits_1_and_names_the_file(pair, capsys, monkeypatch):
    edit_md(pair[0], "y = x ** 2\n", "y = x ** 3\n")
    monkeypatch.setattr("sys.argv", ["sync_lessons.py", "--check", str(pair[0])])
    assert sync_lessons.main() == 1
    assert LESSON in capsys.readouterr().err


# --- sync: .md -> .ipynb keeps outputs ----------------------------------------------------------
def test_sync_writes_the_text_and_keeps_the_outputs(pair):
    md, ipynb = pair
    before = nbformat.read(ipynb, as_version=4)
    edit_md(md, "# Lesson 1: First gradients", "# Lesson 1: Your first gradients")
    assert sync_lessons.sync(md, ipynb) == "updated"
    after = nbformat.read(ipynb, as_version=4)
    assert sync_lessons.differences(md, ipynb) == []
    assert after.cells[0].source.startswith("# Lesson 1: Your first gradients")
    assert [c.get("outputs") for c in after.cells] == [c.get("outputs") for c in before.cells]
    assert after.metadata == before.metadata
    assert [c.metadata for c in after.cells] == [c.metadata for c in before.cells]


def test_sync_of_a_changed_code_cell_keeps_the_other_outputs(pair):
    md, ipynb = pair
    before = nbformat.read(ipynb, as_version=4)
    i = first_code_index(before, "x = tk.Variable(3.0")
    edit_md(md, "y = x ** 2\n", "y = x ** 3\n")
    sync_lessons.sync(md, ipynb)
    after = nbformat.read(ipynb, as_version=4)
    assert "y = x ** 3" in after.cells[i].source  # its output is stale until `make notebooks`
    others = [j for j, c in enumerate(before.cells) if c.cell_type == "code" and j != i]
    assert [after.cells[j].outputs for j in others] == [before.cells[j].outputs for j in others]


def test_sync_refuses_to_overwrite_a_newer_notebook_edit(pair):
    md, ipynb = pair
    edit_ipynb(ipynb, lambda nb: nb.cells[0].__setitem__("source", "# Edited in the notebook"))
    os.utime(md, (1, 1))  # the .md is older
    with pytest.raises(SystemExit, match="edited without jupytext pairing"):
        sync_lessons.sync(md, ipynb)
    assert nbformat.read(ipynb, as_version=4).cells[0].source == "# Edited in the notebook"
