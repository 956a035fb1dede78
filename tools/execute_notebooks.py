#!/usr/bin/env python
"""Re-execute notebooks in place so nbval has fresh reference outputs.

usage: python tools/execute_notebooks.py [--timeout 120] [--kernel python3] [--check] [NOTEBOOK...]

- with no NOTEBOOK arguments, runs every notebooks/*.ipynb of the repository
- runs each notebook from its own directory, with the given kernel (not the one stored in it)
- cells tagged `raises-exception` may raise; any other error fails that notebook (like nbconvert)
- no per-cell timing metadata (less git noise)
- no widget state is stored: every tapekit widget's output carries a PNG of its last state
  beside the widget view. With stored state, nbconvert's HTML always picks the widget view and
  loads its renderer from a CDN (blank offline), and a trusted JupyterLab shows a dead copy;
  without it, every place with no kernel (nbconvert, GitHub, the docs site, JupyterLab on an
  untrusted notebook) shows the picture, and Run All brings the live widget back
- the kernel gets PYTHONHASHSEED=0 (unless already set), the same as `make test` gives nbval,
  so outputs that depend on str/bytes hash order (set iteration) agree between both runs
- --check executes without writing anything back: "do all notebooks still run?"
- consecutive stdout (or stderr) chunks of a cell are stored as one output: how the kernel
  happened to flush them varies from run to run, the text does not
- the repository's absolute path in stored outputs (tracebacks through tapekit, warnings)
  becomes relative (`tapekit/compiler/function.py`): the stored notebook does not depend on where
  it was executed, and a reader sees the file, not the author's machine
- widget model ids (random in the kernel) are renamed to ids derived from the notebook's
  name and each widget's place in it, so re-running an unchanged lesson changes nothing

Exit status: 0 when every notebook ran, 1 otherwise.
(Recipe: shared/recipes/jupyter-testing.md §2.6.)
"""
import argparse
import json
import os
import re
import sys
import uuid
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, DeadKernelError

REPO = Path(__file__).resolve().parents[1]
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MODEL_REF = re.compile(r"IPY_MODEL_([0-9a-f]{32})")


def stable_widget_ids(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """Rename every widget model id to uuid5(name, position): the position is the order in
    which the outputs, then each model's references, reach it (deterministic, unlike the
    kernel's uuid4 ids). Works with or without stored widget state. Returns a new notebook."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    order = []

    def visit(model_id):
        if model_id not in order:
            order.append(model_id)
            for ref in MODEL_REF.findall(json.dumps(state.get(model_id, {}), sort_keys=True)):
                visit(ref)

    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            if view:
                visit(view["model_id"])
    # models no output reaches (e.g. a widget that was closed): order them by content
    rest = sorted(set(state) - set(order),
                  key=lambda m: MODEL_REF.sub("", json.dumps(state[m], sort_keys=True)))
    for model_id in rest:
        visit(model_id)
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, "tapekit-lesson:" + name)
    text = nbformat.writes(nb)
    for i, model_id in enumerate(order):
        text = text.replace(model_id, uuid.uuid5(namespace, str(i)).hex)
    return nbformat.reads(text, as_version=4)


def coalesce_streams(nb: nbformat.NotebookNode) -> None:
    """Join each run of consecutive stream outputs with the same name into one (in place)."""
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            last = merged[-1] if merged else None
            if (out.output_type == "stream" and last is not None
                    and last.output_type == "stream" and last.name == out.name):
                last.text += out.text
            else:
                merged.append(out)
        if cell.cell_type == "code":
            cell.outputs = merged


def relative_paths(nb: nbformat.NotebookNode) -> None:
    """Strip the repository's absolute path from every stored output's text (in place)."""
    prefix = str(REPO) + os.sep
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "text" in out:
                out.text = out.text.replace(prefix, "")
            if "traceback" in out:
                out.traceback = [line.replace(prefix, "") for line in out.traceback]
            for mime, value in out.get("data", {}).items():
                if isinstance(value, str):
                    out.data[mime] = value.replace(prefix, "")


def execute(path: Path, kernel: str, timeout: int) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # stale timing from earlier runs
    nb.metadata.pop("widgets", None)  # widget state of an earlier run (none is stored now)
    client = NotebookClient(
        nb,
        timeout=timeout,  # finite: nbclient can stall on `with out:` (recipe §2.7)
        kernel_name=kernel,  # ignore the kernelspec stored in the notebook
        record_timing=False,
        store_widget_state=False,  # see the module docstring
        resources={"metadata": {"path": str(path.parent)}},  # cwd = the notebook's folder
    )
    client.execute()
    nb.metadata["kernelspec"] = dict(KERNELSPEC, name=kernel)
    coalesce_streams(nb)
    relative_paths(nb)
    return stable_widget_ids(nb, path.name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path,
                    help="default: notebooks/*.ipynb of the repository")
    ap.add_argument("--timeout", type=int, default=120, help="per-cell seconds (keep finite)")
    ap.add_argument("--kernel", default="python3")
    ap.add_argument("--check", action="store_true", help="execute only; do not write outputs back")
    args = ap.parse_args()

    # Hash randomisation must not leak into stored outputs: the kernel inherits this.
    os.environ.setdefault("PYTHONHASHSEED", "0")

    paths = args.notebooks or sorted((REPO / "notebooks").glob("*.ipynb"))
    if not paths:
        print("no notebooks to execute", file=sys.stderr)
        return 0
    failed = []
    for path in paths:
        try:
            nb = execute(path, args.kernel, args.timeout)
        except (CellExecutionError, DeadKernelError, TimeoutError) as e:
            print(f"FAILED {path}:\n{e}", file=sys.stderr)
            failed.append(path)
            continue
        if args.check:
            print(f"ran {path}")
        else:
            nbformat.write(nb, path)
            print(f"executed {path}")
    if failed:
        print(f"{len(failed)} of {len(paths)} notebook(s) failed: "
              + ", ".join(map(str, failed)), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
