#!/usr/bin/env python
"""Keep each lesson's MyST Markdown text (notebooks/NN_*.md) and its notebook (.ipynb) in step.

usage: python tools/sync_lessons.py [--check] [LESSON ...]

The .md file is what you edit and review; the .ipynb beside it holds the same cells plus
the outputs that nbval compares. Both are committed (CONTRIBUTING.md).

- default: for each lesson, read the .md and write its cells into the .ipynb, keeping
  the .ipynb's stored outputs and widget state wherever a cell is unchanged (jupytext).
  A missing .ipynb is created (without outputs: run tools/execute_notebooks.py next).
  If the .ipynb was edited after the .md (a newer file whose cells differ), nothing is
  overwritten: the tool stops and says how to bring the edit into the .md first.
- --check: write nothing; exit 1 if a .md and its .ipynb disagree (a cell's type, source,
  tags or other metadata kept in the text, the kernel, the pairing) or a file has no pair,
  or if jupytext would lay out the .md differently when saving the .ipynb (stable text).

LESSON: .md or .ipynb paths (either file of a pair); default: every pair in notebooks/.
The comparison is the one tests/notebooks/test_lesson_pairs.py runs under `make test`.
"""
import argparse
import difflib
import sys
from pathlib import Path

import jupytext
import nbformat
from jupytext.combine import combine_inputs_with_outputs
from jupytext.config import load_jupytext_config

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
TEXT_FORMAT = "md:myst"
PAIRING = "ipynb," + TEXT_FORMAT


# --- which files pair with which -----------------------------------------------------------
def lesson_pairs(folder=NOTEBOOKS):
    """(md, ipynb) paths of every lesson in `folder`, whether or not both files exist."""
    stems = {p.stem for p in folder.glob("*.ipynb")} | {p.stem for p in folder.glob("*.md")}
    return [(folder / f"{s}.md", folder / f"{s}.ipynb") for s in sorted(stems)]


def pair_of(path):
    path = Path(path)
    return path.with_suffix(".md"), path.with_suffix(".ipynb")


# --- what must agree ------------------------------------------------------------------------
def text_view(nb):
    """The notebook as its .md text would hold it: jupytext's own filter (no outputs, no
    execution counts, no per-run metadata such as `collapsed` or `execution`)."""
    return jupytext.reads(jupytext.writes(nb, fmt=TEXT_FORMAT), fmt=TEXT_FORMAT)


def _cell_summary(cell):
    first = cell.source.strip().splitlines()[:1]
    return f"{cell.cell_type} cell starting {first[0][:60]!r}" if first else f"empty {cell.cell_type} cell"


def differences(md_path, ipynb_path):
    """Human-readable reasons why the .md and the .ipynb do not hold the same lesson ([] if
    they do)."""
    md_path, ipynb_path = Path(md_path), Path(ipynb_path)
    missing = [p for p in (md_path, ipynb_path) if not p.exists()]
    if missing:
        if len(missing) == 2:
            return [f"neither {md_path} nor {ipynb_path} exists"]
        if md_path in missing:
            fix = f"`jupytext --set-formats {PAIRING} {ipynb_path}` writes it from the notebook"
        else:
            fix = f"`make notebooks LESSONS={md_path}` writes and runs it"
        return [f"{missing[0].name} is missing: every lesson in notebooks/ is a .md and "
                f".ipynb pair ({fix})"]
    text = jupytext.read(md_path, fmt=TEXT_FORMAT)
    nb = text_view(nbformat.read(ipynb_path, as_version=4))
    problems = []
    for what, key in (("the kernel", "kernelspec"), ("the jupytext pairing", "jupytext")):
        a, b = text.metadata.get(key), nb.metadata.get(key)
        if key == "jupytext":  # text_representation describes the file, not the lesson
            a, b = (a or {}).get("formats"), (b or {}).get("formats")
        if a != b:
            problems.append(f"{what} differs: {md_path.name} has {a!r}, {ipynb_path.name} has {b!r}")
    if len(text.cells) != len(nb.cells):
        problems.append(f"{md_path.name} has {len(text.cells)} cells, "
                        f"{ipynb_path.name} has {len(nb.cells)}")
    for i, (a, b) in enumerate(zip(text.cells, nb.cells)):
        where = f"cell {i} ({_cell_summary(a)})"
        if a.cell_type != b.cell_type:
            problems.append(f"{where}: a {a.cell_type} cell in {md_path.name}, "
                            f"a {b.cell_type} cell in {ipynb_path.name}")
        if a.source != b.source:
            diff = difflib.unified_diff(b.source.splitlines(), a.source.splitlines(),
                                        ipynb_path.name, md_path.name, lineterm="", n=1)
            problems.append(f"{where}: the source differs\n  " + "\n  ".join(list(diff)[:12]))
        if a.metadata != b.metadata:
            problems.append(f"{where}: the metadata differs: {md_path.name} has "
                            f"{dict(a.metadata)}, {ipynb_path.name} has {dict(b.metadata)}")
        if len(problems) >= 10:
            problems.append("... (stopped after 10 differences)")
            break
    return problems


def text_is_stable(md_path, ipynb_path):
    """True when jupytext, saving this .ipynb (a paired JupyterLab, `jupytext --sync`), would
    write back exactly the .md on disk: the text is not reformatted behind the author's back,
    and JupyterLab opens the pair even when the .ipynb is the newer file (otherwise its
    jupytext refuses: "... is more recent than ...md")."""
    config = load_jupytext_config(str(md_path))  # notebooks/jupytext.toml
    nb = nbformat.read(ipynb_path, as_version=4)
    return jupytext.writes(nb, fmt=TEXT_FORMAT, config=config) == md_path.read_text(encoding="utf-8")


# --- .md -> .ipynb ---------------------------------------------------------------------------
def sync(md_path, ipynb_path):
    """Write the .md's cells into the .ipynb, keeping outputs. Returns what it did."""
    if not md_path.exists():
        raise SystemExit(f"{md_path} is missing: create it from the notebook with "
                         f"`jupytext --set-formats {PAIRING} {ipynb_path}`")
    if ipynb_path.exists():
        if not differences(md_path, ipynb_path):
            return "unchanged"
        if ipynb_path.stat().st_mtime > md_path.stat().st_mtime:
            raise SystemExit(
                f"{ipynb_path} was saved after {md_path.name} and their cells differ: "
                f"it was edited without jupytext pairing. Bring the edit into the text first "
                f"(`jupytext --sync {ipynb_path}` copies the newer file into the older one), "
                f"or discard it (`touch {md_path}`), then run this again.")
    # jupytext's update mode: the text gives the cells, the old notebook their outputs
    # (matched by source), its widget state and the metadata that the text leaves out.
    nb = jupytext.read(md_path, fmt=TEXT_FORMAT)
    # jupytext notes the code cells' lexer ("ipython3") for a notebook without language_info;
    # the kernel fills language_info on execution, so the note is only noise in the .ipynb
    nb.metadata.get("jupytext", {}).pop("default_lexer", None)
    if not ipynb_path.exists():
        jupytext.write(nb, ipynb_path, fmt="ipynb")
        return "created (no outputs yet)"
    old = nbformat.read(ipynb_path, as_version=4)
    nb = combine_inputs_with_outputs(nb, old, fmt=TEXT_FORMAT)
    jupytext.write(nb, ipynb_path, fmt="ipynb")
    return "updated"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lessons", nargs="*", type=Path, help="default: every pair in notebooks/")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 on a difference")
    args = ap.parse_args()
    pairs = [pair_of(p) for p in args.lessons] or lesson_pairs()
    bad = 0
    for md_path, ipynb_path in pairs:
        if args.check:
            problems = differences(md_path, ipynb_path)
            if not problems and not text_is_stable(md_path, ipynb_path):
                problems = [f"jupytext would rewrite {md_path.name} from {ipynb_path.name} "
                            f"(same cells, other layout): `jupytext --sync {md_path}` settles it"]
            for p in problems:
                print(f"{md_path.with_suffix('')}: {p}", file=sys.stderr)
            bad += bool(problems)
        else:
            print(f"{sync(md_path, ipynb_path)} {ipynb_path}")
    if bad:
        print(f"{bad} lesson(s) differ from their notebook: edit the .md, then "
              f"`make notebooks` (CONTRIBUTING.md)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
