"""Sweep every differentiable op's gradient against TensorFlow at singular points.

Run in the TensorFlow venv (a dev tool: TensorFlow is never a tapekit dependency):

    $TF_PYTHON tools/tf_sweep/sweep.py [--tapekit-python PY] [--pythonpath DIR]

TensorFlow's side runs here; tapekit's side runs in a subprocess of tapekit's venv with
PYTHONPATH set to the tree to test. Prints a table of every point where the two differ
(value, NaN, inf or None), and a summary: cases, points, recorded tapekit ops, mismatches.
Exit status 1 when any mismatch is left.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402
import compute  # noqa: E402


def tapekit_side(python, pythonpath):
    env = dict(os.environ, PYTHONPATH=pythonpath)
    done = subprocess.run([python, os.path.join(HERE, "compute.py")], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def same(a, b):
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return a == b
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        return False
    return bool(np.all((np.isnan(a) & np.isnan(b)) | np.isclose(a, b, rtol=2e-5, atol=1e-6)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tapekit-python", default=os.environ.get("TAPEKIT_PYTHON", sys.executable))
    p.add_argument("--pythonpath", default=os.path.dirname(os.path.dirname(HERE)))
    args = p.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    theirs = compute.run(tf)
    side = tapekit_side(args.tapekit_python, args.pythonpath)
    ours, ops = side["results"], side["ops"]
    inputs = {label: arrays for label, _, arrays in cases.all_cases()}
    rows, points = [], 0
    for key in sorted(theirs):
        label, g, order = key.split("|")
        t, k = theirs[key], ours.get(key, "missing")
        arrays = inputs[label]
        n = arrays[0].size if label.count("#") == 0 and len(arrays[0].shape) == 1 and "#" not in label else 1
        points += arrays[0].size if "#" not in label else 1
        if isinstance(t, list) and isinstance(k, list) and len(t) == len(k):
            for i, (a, b) in enumerate(zip(t, k)):
                if same(a, b):
                    continue
                if a is None or b is None or "#" in label:
                    rows.append((label, g, order, f"arg {i}", str(a), str(b)))
                    continue
                a, b = np.asarray(a), np.asarray(b)
                bad = ~((np.isnan(a) & np.isnan(b)) | np.isclose(a, b, rtol=2e-5, atol=1e-6))
                for j in np.flatnonzero(bad):
                    at = ", ".join(f"{arr[j]:g}" for arr in arrays) if arrays[0].size == a.size else j
                    rows.append((label, g, order, f"d/arg{i} at ({at})", f"{a[j]:g}", f"{b[j]:g}"))
        elif not same(t, k):
            rows.append((label, g, order, "", str(t)[:40], str(k)[:40]))
    kept = [r for r in rows if cases.kept(r[0])]
    fix = [r for r in rows if not cases.kept(r[0])]
    for title, table in (("Mismatches to fix", fix), ("Differences kept on purpose", kept)):
        print(f"{title}: {len(table)}")
        if table:
            print(f"{'case':24} {'g':5} {'ord':3} {'where':34} {'tensorflow':>12} {'tapekit':>12}")
        for r in table:
            print(f"{r[0]:24} {r[1]:5} {r[2]:3} {r[3]:34} {r[4][:40]:>12} {r[5][:40]:>12}")
        print()
    why = sorted({cases.kept(r[0]) for r in kept})
    for w in why:
        print(f"kept: {w}")
    labels = {k.split("|")[0].split("#")[0] for k in theirs}
    print(f"\n{len(labels)} cases, {len(theirs)} gradient calls, {points} points; "
          f"{len(ops)} tapekit ops recorded: {' '.join(ops)}")
    print(f"{len(fix)} mismatches to fix, {len(kept)} kept on purpose")
    return 1 if fix else 0


if __name__ == "__main__":
    sys.exit(main())
