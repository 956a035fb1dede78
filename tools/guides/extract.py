#!/usr/bin/env python
"""Read the code cells of TensorFlow's guides at dev time (issue 23). Writes nothing.

usage: python tools/guides/extract.py [--docs GITDIR] [--keras-io FILE] [GUIDE ...]

Prints each code cell of the named guides (default: all), with its cell index and the
section heading it sits under, translated to tapekit with --translate. The guides' text
and code stay where they are (a git mirror of tensorflow/docs, a copy of keras-io's .py
guide): nothing here copies them into the repository; run_guides.py reads them the same way.

Cell numbering:
- a notebook cell is named by its index in the .ipynb's "cells" list (0-based, markdown
  cells counted), which is what "autodiff.ipynb cell 12" in tests/guides/ means;
- keras-io's guides are .py files whose module-level string literals are the text; a "cell"
  is a run of code between two of them, numbered 0, 1, 2 ... in order.
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys

DOCS_GIT = os.environ.get("TAPEKIT_TF_DOCS", "tensorflow-docs")
HERE = os.path.dirname(os.path.abspath(__file__))
KERAS_IO_FILE = os.environ.get(
    "TAPEKIT_KERAS_IO_GUIDE",
    os.path.join(HERE, ".cache", "writing_a_custom_training_loop_in_tensorflow.py"))

# name -> where it lives: ("docs", path in tensorflow/docs) or ("keras-io", None)
SOURCES = {
    "autodiff": ("docs", "site/en/guide/autodiff.ipynb"),
    "advanced_autodiff": ("docs", "site/en/guide/advanced_autodiff.ipynb"),
    "basic_training_loops": ("docs", "site/en/guide/basic_training_loops.ipynb"),
    "intro_to_modules": ("docs", "site/en/guide/intro_to_modules.ipynb"),
    "custom_training_walkthrough":
        ("docs", "site/en/tutorials/customization/custom_training_walkthrough.ipynb"),
    "custom_training_loop_keras": ("keras-io", "guides/writing_a_custom_training_loop_in_tensorflow.py"),
    "function": ("docs", "site/en/guide/function.ipynb"),
    # issue 32: Keras's own guides (local copies in KERAS_IO_DIR, named by their basename)
    "training_with_built_in_methods": ("keras-io", "guides/training_with_built_in_methods.py"),
    "writing_your_own_callbacks": ("keras-io", "guides/writing_your_own_callbacks.py"),
}
KERAS_IO_DIR = os.environ.get("TAPEKIT_KERAS_IO_DIR", os.path.join(HERE, ".cache"))


class Cell:
    """One code cell: where it is (index, section) and its source."""

    def __init__(self, index, section, source):
        self.index, self.section, self.source = index, section, source

    def __repr__(self):
        return f"Cell({self.index}, {self.section!r})"


def _read_docs(path, docs_git):
    if os.path.isdir(docs_git) and not os.path.exists(os.path.join(docs_git, path)):
        out = subprocess.run(["git", "-C", docs_git, "show", f"HEAD:{path}"],
                             capture_output=True, text=True, check=True)
        return out.stdout
    with open(os.path.join(docs_git, path), encoding="utf-8") as f:   # a checkout, not bare
        return f.read()


def notebook_cells(text):
    """Code cells of an .ipynb's JSON text, each with the last heading above it."""
    nb = json.loads(text)
    section, cells = "", []
    for i, c in enumerate(nb["cells"]):
        src = "".join(c["source"])
        if c["cell_type"] == "markdown":
            heads = [ln.lstrip("#").strip() for ln in src.splitlines() if ln.startswith("#")]
            section = heads[-1] if heads else section
        elif c["cell_type"] == "code":
            cells.append(Cell(i, section, src))
    return cells


def keras_io_cells(text):
    """Code runs of a keras-io .py guide; module-level strings are text ("## Heading" in them)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    section, cells, chunk = "", [], []

    def flush():
        if chunk:
            start, end = chunk[0].lineno - 1, chunk[-1].end_lineno
            deco = min([start] + [d.lineno - 1 for d in getattr(chunk[0], "decorator_list", [])])
            cells.append(Cell(len(cells), section, "".join(lines[deco:end]).strip("\n") + "\n"))
            chunk.clear()

    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            flush()
            heads = [ln.lstrip("#").strip() for ln in node.value.value.splitlines()
                     if ln.startswith("#")]
            section = heads[-1] if heads else section
        else:
            chunk.append(node)
    flush()
    return cells


def read_cells(name, docs_git=DOCS_GIT, keras_io=KERAS_IO_FILE):
    kind, path = SOURCES[name]
    if kind == "docs":
        return notebook_cells(_read_docs(path, docs_git))
    if name != "custom_training_loop_keras":      # issue 32's guides: one file each
        keras_io = os.path.join(KERAS_IO_DIR, os.path.basename(path))
    if not os.path.exists(keras_io):
        raise FileNotFoundError(
            f"keras-io guide {path!r} not found at {keras_io!r}: save keras-team/keras-io's "
            f"{path} there, or pass --keras-io FILE / set TAPEKIT_KERAS_IO_GUIDE (issue 32's "
            f"guides: TAPEKIT_KERAS_IO_DIR)")
    with open(keras_io, encoding="utf-8") as f:
        return keras_io_cells(f.read())


# The contract's replacements (API.md): order matters, the longest names first.
_RULES = [
    (re.compile(r"^(\s*)import tensorflow as tf\b", re.M), r"\1import tapekit as tk"),
    (re.compile(r"^(\s*)import keras\b(?!\.)", re.M), r"\1import tapekit as keras"),
    (re.compile(r"^(\s*)from tensorflow import keras\b", re.M), r"\1import tapekit as keras"),
    (re.compile(r"\btensorflow\.keras\b"), "tapekit"),
    (re.compile(r"\btf\.keras\."), "tk."),
    (re.compile(r"\btf\.keras\b"), "tk.keras"),
    (re.compile(r"\btf\."), "tk."),
]


def translate(source):
    """TensorFlow code -> tapekit code, by the contract's textual replacements only."""
    for pattern, repl in _RULES:
        source = pattern.sub(repl, source)
    return source


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("guides", nargs="*", default=list(SOURCES))
    ap.add_argument("--docs", default=DOCS_GIT, help="tensorflow/docs git dir or checkout")
    ap.add_argument("--keras-io", default=KERAS_IO_FILE, help="keras-io guide .py file")
    ap.add_argument("--translate", action="store_true", help="apply the tf -> tk replacements")
    args = ap.parse_args(argv)
    for name in args.guides:
        for cell in read_cells(name, args.docs, args.keras_io):
            src = translate(cell.source) if args.translate else cell.source
            print(f"# ===== {name} cell {cell.index} [{cell.section}]\n{src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
