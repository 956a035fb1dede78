#!/usr/bin/env python
"""Run TensorFlow's guides on tapekit and report, cell by cell, what runs (issue 23).

usage: python tools/guides/run_guides.py [GUIDE ...] [--timeout 120] [--out REPORT.md]
                                         [--compare [--tf-python $TF_PYTHON]]

For each guide (default: all of extract.SOURCES), from the local copies extract.py reads:
1. take every code cell, apply patches.py (out-of-scope cells skipped, stand-in data for
   downloads and tf.data) and the contract's replacements (extract.translate);
2. run the in-scope cells in order in one namespace, in a fresh subprocess per guide
   (PYTHONPATH = this repository, MPLBACKEND=Agg, a temporary working directory), with a
   time limit per cell; a failing cell does not stop the ones after it;
3. print a markdown report: per guide a table of cells (status and first error), then a
   summary, then every failure grouped by its error (the to-do list).
--compare also runs the same patched cells untranslated under TensorFlow (a separate venv;
never a dependency of tapekit) and says per cell whether the printed numbers agree.
Exit status: 0 (the report is the result; failures are expected while features are missing).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import extract  # noqa: E402
import patches  # noqa: E402


class Planned:
    """A cell as it will run: its code for TensorFlow and for tapekit, or why it is skipped."""

    def __init__(self, cell, tf_source=None, skip=None, patched=False):
        self.cell, self.tf_source, self.skip, self.patched = cell, tf_source, skip, patched
        self.tk_source = extract.translate(tf_source) if tf_source is not None else None


def plan(name, cells):
    table = patches.GUIDES.get(name, {})
    scope = table.get("SCOPE")
    out = []
    for cell in cells:
        i = cell.index
        if scope is not None and i not in scope:
            out.append(Planned(cell, skip=table["SCOPE_REASON"]))
        elif i in table.get("SKIP", {}):
            out.append(Planned(cell, skip=table["SKIP"][i]))
        elif i in table.get("REPLACE", {}):
            out.append(Planned(cell, table["REPLACE"][i], patched=True))
        elif i in table.get("SUB", {}):
            src, missing = cell.source, []
            for old, new in table["SUB"][i]:
                if old not in src:
                    missing.append(old.splitlines()[0])
                src = src.replace(old, new)
            p = Planned(cell, src, patched=True)
            if missing:
                p.stale = f"patch no longer applies (not found: {missing[0]!r})"
            out.append(p)
        else:
            out.append(Planned(cell, cell.source))
    return out


def run(planned, python, translate, timeout, prelude=""):
    """Run the in-scope cells in a fresh `python`; {cell index: result dict}."""
    cells = [{"index": "prelude", "source": prelude}] if prelude else []
    cells += [{"index": p.cell.index, "source": p.tk_source if translate else p.tf_source}
              for p in planned if p.skip is None]
    env = dict(os.environ, PYTHONPATH=REPO, MPLBACKEND="Agg", TF_CPP_MIN_LOG_LEVEL="3",
               PYTHONHASHSEED="0", PYTHONWARNINGS="ignore", TQDM_DISABLE="1")
    with tempfile.TemporaryDirectory(prefix="guide-") as tmp:
        spec, res = os.path.join(tmp, "cells.json"), os.path.join(tmp, "results.jsonl")
        with open(spec, "w", encoding="utf-8") as f:
            json.dump({"timeout": timeout, "cells": cells}, f)
        try:
            subprocess.run([python, os.path.join(HERE, "_worker.py"), spec, res], cwd=tmp,
                           env=env, timeout=timeout * (len(cells) + 1) + 60,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except subprocess.TimeoutExpired:
            pass
        results = {}
        if os.path.exists(res):
            with open(res, encoding="utf-8") as f:
                for line in f:
                    r = json.loads(line)
                    results[r["index"]] = r
    for c in cells:
        results.setdefault(c["index"], {"status": "error", "output": "", "seconds": 0,
                                        "error": "WorkerDied: the guide's process ended first"})
    return results


_DTYPE_WORDS = re.compile(r"\b(float|int|uint|complex)(8|16|32|64)\b|\bbfloat16\b")
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\bnan\b|[-+]?\binf\b")


_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+|\b0x[0-9a-fA-F]+")


def numbers(text):
    """The numbers a cell printed, sorted (tensor reprs differ in order: shape vs value);
    Keras's timings and its bars' unfinished states (clock-dependent) left out."""
    text = _TIMING.sub("", _ANSI.sub("", _PARTIAL_BAR.sub("", text)))
    found = _NUMBER.findall(_DTYPE_WORDS.sub(" ", _ADDRESS.sub(" ", text)))
    return sorted(float(x) for x in found)


def compare(tk_out, tf_out, rtol=1e-4, atol=1e-5):
    a, b = numbers(tk_out), numbers(tf_out)
    if not a and not b:
        return "same (no numbers)"
    if len(a) != len(b):
        return f"differ: {len(a)} numbers vs TF's {len(b)}"
    bad = [(x, y) for x, y in zip(a, b) if abs(x - y) > atol + rtol * abs(y)]
    return "same numbers" if not bad else f"differ: {bad[0][0]:g} vs TF's {bad[0][1]:g}"


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# A Keras 3 bar state that is not the final one: drawn mid-run (when depends on the clock)
# and followed on its line by other output, rather than ending the line. Left out of the
# comparison, with its time and metrics.
_PARTIAL_BAR = re.compile(r"\x1b\[1m\d+/\d+\x1b\[0m \x1b\[32m\u2501*\x1b\[0m\x1b\[37m\u2501*"
                          r"\x1b\[0m \x1b\[1m\d+s\x1b\[0m \d+(?:ms|s|us)/step"
                          r"(?: - [\w]+: [-+.\deE]+)*+ *(?![ \x08]*(?:\n|$))\x08*")
_OBJECT = re.compile(r"<([\w.]+\.)?(\w+) object at 0x[0-9a-fA-F]+>")
# Keras 3's timings: " 3s 2ms/step" after the bar (verbose=1), " - 0s - 134ms/step" (verbose=2)
_TIMING = re.compile(r"( - \d+s)? -? ?\d+(\.\d+)?(s|ms|us)/step|(?<=\u2501) \d+s(?= )")


def layout(text):
    """What a cell printed, minus what cannot match across frameworks: the numbers (each
    becomes #), Keras's timings, colour codes, and the progress bar's redrawn states (a
    line keeps what follows its last carriage return)."""
    lines = []
    text = _OBJECT.sub(r"<\2 object>", _PARTIAL_BAR.sub("", text))
    for line in _ANSI.sub("", text).split("\n"):
        line = [part for part in line.split("\r") if part.strip()] or [""]
        line = _TIMING.sub("", line[-1].replace("\b", "")).rstrip()
        lines.append(re.sub(r" +#", " #", _NUMBER.sub("#", line)))   # "{:7.2f}" padding
    return "\n".join(lines).strip()


def compare_layout(tk_out, tf_out):
    """For cells with random numbers: is the printed text the same, numbers aside?"""
    a, b = layout(tk_out).splitlines(), layout(tf_out).splitlines()
    if a == b:
        return "random: same text, numbers aside"
    for i, (x, y) in enumerate(zip(a + [""] * len(b), b + [""] * len(a))):
        if x != y:
            return f"random: text differs at line {i + 1}: {x[:70]!r} vs TF's {y[:70]!r}"
    return "random: text differs"


def _cell_md(text):
    return text.replace("|", "\\|").replace("\n", " ")


def report_guide(name, planned, results, tf_results=None):
    kind = {"function": "function (issue 24)", "training_with_built_in_methods": "issue 32",
            "writing_your_own_callbacks": "issue 32"}.get(name, "issue 23")
    rows = ["| cell | section | status | first error |", "|---|---|---|---|"]
    counts = collections.Counter()
    failures = []
    random_cells = patches.GUIDES.get(name, {}).get("RANDOM", set())
    if tf_results is not None:
        rows = ["| cell | section | status | first error | vs TensorFlow |",
                "|---|---|---|---|---|"]
    if "prelude" in results and results["prelude"]["status"] != "ok":
        failures.append((name, "prelude", results["prelude"]["error"]))
    for p in planned:
        i, counts["total"] = p.cell.index, counts["total"] + 1
        if p.skip is not None:
            status, err = f"out of scope: {p.skip}", ""
        else:
            counts["in scope"] += 1
            r = results[i]
            ok = r["status"] == "ok"
            counts["ok"] += ok
            status = ("ok" if ok else "**FAIL**") + (" (patched)" if p.patched else "")
            err = r["error"] or ""
            if getattr(p, "stale", None):
                err = (err + "; " if err else "") + p.stale
            if not ok:
                # A NameError after an earlier failure most likely follows from it.
                roots = [f for f in failures if not f[2].startswith("(follows")]
                if roots and (r["error"] or "").startswith("NameError"):
                    err += f" (follows cell {roots[-1][1]}'s failure)"
                    failures.append((name, i, "(follows an earlier failure) " + r["error"]))
                else:
                    failures.append((name, i, r["error"]))
        row = f"| {i} | {_cell_md(p.cell.section)[:40]} | {status} | {_cell_md(err)} |"
        if tf_results is not None:
            if p.skip is not None:
                cmp = ""
            else:
                t = tf_results.get(i, {})
                if t.get("status") != "ok":
                    cmp = f"TF: {t.get('error')}"
                elif results[i]["status"] != "ok":
                    cmp = "TF ok"
                elif i in random_cells:
                    cmp = compare_layout(results[i]["output"], t["output"])
                else:
                    cmp = compare(results[i]["output"], t["output"])
            row += f" {_cell_md(cmp)} |"
        rows.append(row)
    summary = (f"**{name}** ({kind}): {counts['total']} code cells, {counts['in scope']} in "
               f"scope, {counts['ok']} run ok, {counts['in scope'] - counts['ok']} fail")
    return [f"## {name}", "", *rows, "", summary, ""], summary, failures


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("guides", nargs="*", default=list(extract.SOURCES))
    ap.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    ap.add_argument("--out", help="write the markdown report here (default: stdout)")
    ap.add_argument("--python", default=sys.executable, help="python that runs tapekit")
    ap.add_argument("--compare", action="store_true", help="also run under TensorFlow")
    ap.add_argument("--tf-python", default=os.environ.get("TF_PYTHON", "tf-venv/bin/python"))
    ap.add_argument("--docs", default=extract.DOCS_GIT)
    ap.add_argument("--keras-io", default=extract.KERAS_IO_FILE)
    ap.add_argument("--outputs", help="directory: save each cell's printed output as JSON")
    ap.add_argument("--tf-results", help="directory of a previous --outputs run: compare with "
                                         "its <guide>.tf.json instead of running TensorFlow again")
    args = ap.parse_args(argv)

    lines, summaries, failures = ["# tapekit on TensorFlow's guides (issue 23)", ""], [], []
    for name in args.guides:
        try:
            cells = extract.read_cells(name, args.docs, args.keras_io)
        except (OSError, subprocess.CalledProcessError) as e:
            summaries.append(f"**{name}**: not run: {e}")
            continue
        planned = plan(name, cells)
        prelude = patches.GUIDES.get(name, {}).get("PRELUDE", "")
        results = run(planned, args.python, True, args.timeout, prelude)
        tf_results = None
        if args.tf_results:
            with open(os.path.join(args.tf_results, f"{name}.tf.json"), encoding="utf-8") as f:
                tf_results = {(int(k) if k.isdigit() else k): v for k, v in json.load(f).items()}
        elif args.compare:
            tf_results = run(planned, args.tf_python, False, args.timeout, prelude)
        if args.outputs:
            os.makedirs(args.outputs, exist_ok=True)
            for tag, res in (("tk", results), ("tf", tf_results)):
                if res is not None:
                    with open(os.path.join(args.outputs, f"{name}.{tag}.json"), "w") as f:
                        json.dump({str(k): v for k, v in res.items()}, f, indent=1)
        section, summary, fails = report_guide(name, planned, results, tf_results)
        lines += section
        summaries.append(summary)
        failures += fails
        print(summary, file=sys.stderr)

    lines += ["## Summary", ""] + [f"- {s}" for s in summaries] + ["", "## Failures by error", ""]
    groups = collections.defaultdict(list)
    for name, i, err in failures:
        key = re.sub(r"\s+\(line \d+\)$", "", err or "")
        groups[key].append(f"{name} {i}")
    for err, where in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"- `{err}`: {', '.join(where)}")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
