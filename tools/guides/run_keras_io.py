#!/usr/bin/env python
"""Run keras-io developer guides (issue 32) on tapekit cell by cell, as run_guides.py runs
TensorFlow's: the same extraction (extract.keras_io_cells), translation (extract.translate:
`import keras` -> `import tapekit as keras`, `tf.` -> `tk.`), worker and report.

usage: python tools/guides/run_keras_io.py FILE.py [FILE.py ...] [--compare] [--timeout 120]
                                           [--out REPORT.md] [--outputs DIR]

FILE is a local copy of a keras-team/keras-io `guides/*.py` (kept under tools/guides/.cache/,
git-ignored: nothing of the guides is committed). Cells are not patched. --compare also runs
the untranslated cells under TensorFlow/Keras 3 (a separate venv, never a dependency) and says
per cell whether the printed numbers agree.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import extract  # noqa: E402
import run_guides  # noqa: E402


# keras-io writes `from keras import layers` (older guides: `from tensorflow import keras`):
# by the contract's rule for `import keras`, that is `from tapekit import layers` (tapekit.layers
# is keras.layers) and `import tapekit as keras`.
_FROM_TF_KERAS = re.compile(r"^(\s*)from tensorflow import keras\b", re.M)
_FROM_KERAS = re.compile(r"^(\s*)from keras((?:\.\w+)*) import", re.M)


def translate(source):
    source = _FROM_TF_KERAS.sub(r"\1import tapekit as keras", source)
    return _FROM_KERAS.sub(r"\1from tapekit\2 import", extract.translate(source))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="keras-io guide .py files")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    ap.add_argument("--out", help="write the markdown report here (default: stdout)")
    ap.add_argument("--python", default=sys.executable, help="python that runs tapekit")
    ap.add_argument("--compare", action="store_true", help="also run under TensorFlow")
    ap.add_argument("--tf-python", default=os.environ.get("TF_PYTHON", "tf-venv/bin/python"))
    ap.add_argument("--outputs", help="directory: save each cell's printed output as JSON")
    args = ap.parse_args(argv)
    lines, summaries = ["# tapekit on keras-io's guides (issue 32)", ""], []
    for path in args.files:
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path, encoding="utf-8") as f:
            cells = extract.keras_io_cells(f.read())
        planned = [run_guides.Planned(cell, cell.source) for cell in cells]
        for p in planned:
            p.tk_source = translate(p.tf_source)
        results = run_guides.run(planned, args.python, True, args.timeout)
        tf_results = run_guides.run(planned, args.tf_python, False, args.timeout) \
            if args.compare else None
        if args.outputs:
            os.makedirs(args.outputs, exist_ok=True)
            for tag, res in (("tk", results), ("tf", tf_results)):
                if res is not None:
                    with open(os.path.join(args.outputs, f"{name}.{tag}.json"), "w") as f:
                        json.dump({str(k): v for k, v in res.items()}, f, indent=1)
        section, summary, _ = run_guides.report_guide(name, planned, results, tf_results)
        lines += [line.replace("(issue 23)", "(issue 32)") for line in section]
        summaries.append(summary.replace("(issue 23)", "(issue 32)"))
        print(summaries[-1], file=sys.stderr)
    lines += ["## Summary", ""] + [f"- {s}" for s in summaries]
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
