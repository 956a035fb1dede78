"""Differential test of the Keras layer: random programs (keras_generate.py) in Keras 3 and tapekit.

    python tools/tf_diff/keras_diff.py [--seed S] [-n N] [--family loss,metric,...]
                                       [--only ID,...] [--show ID] [--out mismatches.json]

Run from the tapekit tree to test, like diff.py (same --tf-python/--tapekit-python/--wtpy).
Compares every out(value) in order: dtype and shape exactly, values with rtol 2e-5 (float32),
NaN where NaN; both raising is agreement, one raising is a mismatch. One line per mismatching
program, then a count per family; exit status 1 on mismatches.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import diff  # noqa: E402
import keras_generate  # noqa: E402


def side(cmd, path, env):
    done = subprocess.run(cmd + [path], env=env, capture_output=True, text=True, cwd=os.getcwd())
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def compare(t, k, where):
    """[(where, keras, tapekit)] for every difference of two summaries."""
    if isinstance(t, dict) and "keys" in t or isinstance(k, dict) and "keys" in k:
        if not (isinstance(t, dict) and isinstance(k, dict)) or t.get("keys") != k.get("keys"):
            return [(where, str(t.get("keys") if isinstance(t, dict) else t)[:100],
                     str(k.get("keys") if isinstance(k, dict) else k)[:100])]
        return [d for key, a, b in zip(t["keys"], t["vals"], k["vals"])
                for d in compare(a, b, f"{where}[{key}]")]
    if isinstance(t, list) and isinstance(k, list) and len(t) == len(k):
        return [d for i, (a, b) in enumerate(zip(t, k)) for d in compare(a, b, f"{where}[{i}]")]
    return diff.compare(t, k, where, f32=True)


def compare_results(t, k):
    diffs = []
    for i, (a, b) in enumerate(zip(t["outs"], k["outs"])):
        diffs += compare(a, b, f"out{i}")
    if (t["error"] is None) != (k["error"] is None):
        diffs.append(("raises", str(t["error"]), str(k["error"])))
    elif t["error"] is None and len(t["outs"]) != len(k["outs"]):
        diffs.append(("outs", len(t["outs"]), len(k["outs"])))
    return diffs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-n", type=int, default=500)
    p.add_argument("--family", default="", help="families to draw, comma separated")
    p.add_argument("--tf-python", default=os.environ.get("TF_PYTHON", "tf-venv/bin/python"))
    p.add_argument("--tapekit-python", default=os.environ.get("TAPEKIT_PYTHON", sys.executable))
    p.add_argument("--wtpy", default=os.environ.get("TAPEKIT_WTPY", ""))
    p.add_argument("--only", default="")
    p.add_argument("--show", type=int, default=None)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    fams = [f for f in args.family.split(",") if f] or None
    progs = keras_generate.programs(args.seed, args.n, fams)
    ids = [int(i) for i in args.only.split(",") if i] or list(range(len(progs)))
    if args.show is not None:
        ids = [args.show]
    batch = [progs[i] for i in ids]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="", KERAS_BACKEND="tensorflow",
               PYTHONPATH=HERE)
    script = os.path.join(HERE, "keras_interp.py")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(batch, fh)
    tk_cmd = [args.tapekit_python] + ([args.wtpy] if args.wtpy else []) + [script, "tk"]
    if not args.wtpy:
        env["PYTHONPATH"] = os.getcwd() + os.pathsep + HERE
    try:
        theirs = side([args.tf_python, script, "tf"], fh.name, env)
        ours = side(tk_cmd, fh.name, env)
    finally:
        os.unlink(fh.name)
    bad, per_family = [], collections.Counter()
    for i, prog, t, k in zip(ids, batch, theirs, ours):
        diffs = compare_results(t, k)
        if args.show is not None:
            print(keras_generate.code(prog))
            print("keras:  ", json.dumps(t)[:3000])
            print("tapekit:", json.dumps(k)[:3000])
        if diffs:
            bad.append({"id": i, "family": prog["family"], "code": prog["code"], "diffs": diffs})
            per_family[prog["family"]] += 1
            print(f"#{i} {prog['family']}: " + " | ".join(f"{w}: keras {a} / tk {b}" for w, a, b in diffs[:3]))
    counts = collections.Counter(prog["family"] for prog in batch)
    raises = sum(1 for t in theirs if t["error"])
    print(f"programs {len(batch)} (seed {args.seed}): " +
          ", ".join(f"{f} {counts[f]} ({per_family[f]} mismatching)" for f in sorted(counts)) +
          f"; Keras raised on {raises}; mismatching programs {len(bad)}")
    return diff.finish(bad, args.out)


if __name__ == "__main__":
    sys.exit(main())
