"""Run one guide's cells in order, in one namespace, as a notebook kernel would (issue 23).

usage: python _worker.py CELLS.json RESULTS.jsonl

CELLS.json: {"timeout": seconds, "cells": [{"index": i, "source": "..."}, ...]}.
RESULTS.jsonl gets one line per cell as it finishes (so a crash loses only the cell that
crashed): {"index", "status": "ok" | "error" | "timeout", "error", "output", "seconds"}.
A cell's last expression is shown like Jupyter shows it (its repr, unless None), and an
error does not stop later cells: the report counts every cell's own first error.
"""
import ast
import contextlib
import io
import json
import os
import signal
import sys
import time
import traceback
import warnings


class CellTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise CellTimeout("cell ran past its time limit")


def _compile(source, name):
    # A real file: AutoGraph (tf.function) and inspect read a function's source from it.
    with open(name, "w", encoding="utf-8") as f:
        f.write(source)
    tree = ast.parse(source, name)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, name, "exec")
    return body, (compile(last, name, "eval") if last is not None else None)


def run_cell(ns, source, name, timeout):
    out = io.StringIO()
    status, error = "ok", None
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(timeout))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            body, last = _compile(source, name)
            exec(body, ns)
            if last is not None:
                value = eval(last, ns)
                if value is not None:
                    print(repr(value))
    except CellTimeout as e:
        status, error = "timeout", f"Timeout: {e} ({timeout}s)"
    except BaseException as e:  # noqa: BLE001 - a cell's SystemExit is its error too
        status = "error"
        first = (str(e).strip().splitlines() or [""])[0]
        error = f"{type(e).__name__}: {first}"
        tb = traceback.extract_tb(e.__traceback__)
        where = [f for f in tb if f.filename == name]
        if where:
            error += f"  (line {where[-1].lineno})"
    finally:
        signal.alarm(0)
    return status, error, out.getvalue()


def main(cells_path, results_path):
    with open(cells_path, encoding="utf-8") as f:
        spec = json.load(f)
    ns = {"__name__": "__main__"}
    with open(results_path, "w", encoding="utf-8") as res:
        for cell in spec["cells"]:
            t0 = time.perf_counter()
            name = os.path.abspath(f"cell_{cell['index']}.py")
            status, error, output = run_cell(ns, cell["source"], name, spec["timeout"])
            res.write(json.dumps({"index": cell["index"], "status": status, "error": error,
                                  "output": output[-20000:],
                                  "seconds": round(time.perf_counter() - t0, 3)}) + "\n")
            res.flush()
            try:  # a cell's figures would pile up otherwise
                import matplotlib.pyplot as plt
                plt.close("all")
            except Exception:  # noqa: BLE001
                pass


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
