"""tapekit benchmarks: tapekit against hand-written NumPy and PyTorch, side by side, one thread each.

    python benchmarks/run.py                 # every workload (about 2-3 minutes)
    python benchmarks/run.py W1 W6           # only some (names: W1 W3 W4 W6 MLP CNN FIT KCNN KMLP)
    python benchmarks/run.py --quick         # fewer repetitions, for a smoke check
    python benchmarks/run.py W1 --tf-python $TF_PYTHON   # + tf.function (its own Python)
    python benchmarks/run.py KCNN KMLP --tf-python $TF_PYTHON   # fit vs Keras 3's fit
    make bench                               # the same as the first line, in .venv

Prints one table per workload (medians over interleaved repetitions, ratios to the
hand-written NumPy floor and to PyTorch, and each target met or missed) and writes
benchmarks/results.json. Not part of the test suite. See benchmarks/README.md.
"""
import os

# One thread each, set before anything imports NumPy (or torch): the BLAS pools read
# these once, at load time.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
try:
    import tapekit  # noqa: F401
except ModuleNotFoundError as _e:  # run from a checkout without `pip install -e .`
    if _e.name != "tapekit":
        raise
    sys.path.insert(0, ROOT)
    import tapekit  # noqa: F401

import numpy as np  # noqa: E402

import harness  # noqa: E402

WORKLOADS = ["W1", "W3", "W4", "W6", "MLP", "CNN", "FIT", "KCNN", "KMLP"]
MODULES = {"W1": "w1_overhead", "W3": "w3_hessian", "W4": "w4_jacobian", "W6": "w6_memory",
           "MLP": "mlp_step", "CNN": "cnn_step", "FIT": "fit_epoch", "KCNN": "fit_keras", "KMLP": "fit_keras"}


class Context:
    """What every workload's run(ctx) gets: the libraries and the repetition policy."""

    def __init__(self, tk, torch, torch_missing, quick, tf_python=None):
        self.tk = tk
        self.tf_python = tf_python   # W1's tf.function contender runs in this interpreter, if given
        self.torch = torch
        self.torch_missing = torch_missing
        self.quick = quick

    def reps(self, n):
        return max(5, n // 4) if self.quick else n

    def budget(self, seconds):
        return seconds / 4 if self.quick else seconds


# --- the table ------------------------------------------------------------------------------

def _fmt_value(v, unit):
    if v is None:
        return "N/A"
    if unit == "MB":
        return f"{v:.3f} MB"
    if v >= 100:
        return f"{v:.0f} {unit}"
    return f"{v:.3g} {unit}"


def _fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}x"


def format_workload(name, res):
    lines = [f"== {res['title']}"]
    if "error" in res:
        lines.append(f"   ERROR: {res['error']}")
        return "\n".join(lines)
    rows = res["rows"]
    by = {r["label"]: r["value"] for r in rows}
    base = by.get(res.get("baseline"))
    torch_row = next((r["label"] for r in rows if r["label"].startswith("PyTorch")), None)
    torch_v = by.get(torch_row) if torch_row else None
    w = max(len(r["label"]) for r in rows) + 2
    head = "held" if rows[0].get("kind") == "memory" else "median"
    lines.append(f"   {'contender':<{w}} {head:>14} {'spread':>8} {'vs NumPy':>9} {'vs PyTorch':>11}")
    for r in rows:
        spread = ""
        st = r.get("stats")
        if st and r["value"]:
            spread = f"±{50 * (st['p75'] - st['p25']) / st['median']:.0f}%"
        lines.append(f"   {r['label']:<{w}} {_fmt_value(r['value'], r['unit']):>14} {spread:>8} "
                     f"{_fmt_ratio(r['value'], base):>9} {_fmt_ratio(r['value'], torch_v):>11}"
                     + (f"   {r['note']}" if r.get("note") and r["value"] is None else ""))
        if r.get("note") and r["value"] is not None:
            lines.append(f"   {'':<{w}} ({r['note']})")
    noisy = [r["label"] for r in rows if r.get("stats") and r["value"]
             and (r["stats"]["p75"] - r["stats"]["p25"]) / r["stats"]["median"] > 0.4]
    if noisy:
        lines.append(f"   NOISY (spread > ±20%): {', '.join(noisy)}; the machine was busy, re-run for firmer ratios")
    for c in res["checks"]:
        if c["ratio"] is None:
            verdict = "not measured (a side is N/A)"
        else:
            verdict = f"{c['ratio']:.2f} -> {'MET' if c['ok'] else 'MISSED'}"
        lines.append(f"   target: {c['what']} <= {c['target']:.2f}: {verdict}")
    for note in res.get("notes", []):
        lines.append(f"   note: {note}")
    for fail in res.get("failures", []):
        lines.append(f"   FAILED: {fail}")
    return "\n".join(lines)


def summary_lines(results):
    out = ["== targets"]
    for name, res in results.items():
        if "error" in res:
            out.append(f"   {name:<4} ERROR (see above)")
            continue
        if res.get("failures"):
            out.append(f"   {name:<4} {len(res['failures'])} contender(s) FAILED verification or crashed (see above)")
        for c in res["checks"]:
            r = "N/A " if c["ratio"] is None else f"{c['ratio']:.2f}"
            v = "-" if c["ok"] is None else ("MET" if c["ok"] else "MISSED")
            out.append(f"   {name:<4} {c['what']:<40} {r:>5}  (target <= {c['target']:.2f})  {v}")
    return out


def markdown(data):
    """results.json as the Markdown table README.md shows (`run.py --markdown`)."""
    meta = data.get("meta", {})
    out = [f"Measured {meta.get('date', '?')[:10]} on {meta.get('cpus', '?')} cores ({meta.get('cpu', '?')}), "
           f"shared and noisy, one thread each; tapekit {meta.get('tapekit_commit', '?')}"
           f"{' + uncommitted changes' if meta.get('tapekit_dirty') else ''}, numpy {meta.get('numpy')}, "
           f"torch {meta.get('torch') or 'not installed'}, Python {meta.get('python')}; vector "
           f"extensions {' '.join(meta.get('vector_extensions') or ['?'])}, BLAS "
           f"{meta.get('blas', '?')} (kernel {meta.get('blas_kernel') or '?'}).", "",
           "| workload | contender | median (W6: bytes held) | spread | vs NumPy | vs PyTorch |",
           "|---|---|---:|---:|---:|---:|"]
    targets = []
    for name, res in data.get("workloads", {}).items():
        if "error" in res:
            out.append(f"| {name} | ERROR: {res['error'][:80]} | | | | |")
            continue
        rows = res["rows"]
        by = {r["label"]: r["value"] for r in rows}
        base = by.get(res.get("baseline"))
        torch_label = next((r["label"] for r in rows if r["label"].startswith("PyTorch")), None)
        tv = by.get(torch_label)
        for r in rows:
            v = r["value"]
            shown = _fmt_value(v, r["unit"]) if v is not None else (r.get("note") or "N/A").split(":")[0]
            st = r.get("stats")
            spread = f"±{50 * (st['p75'] - st['p25']) / st['median']:.0f}%" if st and v else ""
            out.append(f"| {name} | {r['label']} | {shown} | {spread} | {_fmt_ratio(v, base)} | "
                       f"{_fmt_ratio(v, tv)} |")
        for c in res["checks"]:
            got = "N/A" if c["ratio"] is None else f"{c['ratio']:.2f}"
            verdict = "-" if c["ok"] is None else ("met" if c["ok"] else "**missed**")
            targets.append(f"| {name} | {c['what']} | <= {c['target']:.2f} | {got} | {verdict} |")
    out += ["", "| workload | target | goal | measured | |", "|---|---|---:|---:|---|"] + targets
    return "\n".join(out)


# --- metadata -------------------------------------------------------------------------------

def machine_info(torch):
    info = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "tapekit": getattr(tapekit, "__version__", "?"),
        "torch": getattr(torch, "__version__", None),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "threads": "1 (OMP/OPENBLAS/MKL_NUM_THREADS=1, torch.set_num_threads(1))",
        # tapekit sets glibc's malloc thresholds at import, for the whole process (so for the
        # NumPy and PyTorch contenders too): see tapekit/_malloc.py
        "malloc_tuning": getattr(getattr(tapekit, "_malloc", None), "status", "absent"),
    }
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), None)
    except OSError:
        pass
    info.update(vector_info())
    try:
        info["loadavg_at_start"] = os.getloadavg()
    except OSError:
        pass
    try:
        # The checkout tapekit was imported from (PYTHONPATH may point at another worktree).
        # The commit names the tree; the path would name this machine, so it is not kept.
        src = os.path.dirname(os.path.dirname(os.path.abspath(tapekit.__file__)))
        info["tapekit_commit"] = subprocess.run(
            ["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
            timeout=5).stdout.strip() or None
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--", "tapekit"],
                               capture_output=True, text=True, timeout=5).stdout.strip()
        info["tapekit_dirty"] = bool(dirty)
    except (OSError, subprocess.SubprocessError):
        pass
    return info


# The x86 flags (/proc/cpuinfo) that decide which kernels NumPy, OpenBLAS, PyTorch and
# TensorFlow run: ratios move with them (AVX-512 helps PyTorch's and TensorFlow's kernels more
# than OpenBLAS's), so every result names them. ARM lists its own ("Features": asimd, sve, ...).
VECTOR_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                "avx512_bf16", "amx_tile", "asimd", "sve", "sve2")


def vector_info():
    """The processor's vector extensions, NumPy's SIMD dispatch, and the BLAS kernel in use."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((set(ln.split(":", 1)[1].split()) for ln in f
                          if ln.startswith(("flags", "Features"))), set())
        info["vector_extensions"] = [x for x in VECTOR_FLAGS if x in flags]
    except OSError:
        pass
    try:
        simd = np.show_config(mode="dicts")["SIMD Extensions"]
        info["numpy_simd"] = simd.get("found", [])
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        info["blas"] = f"{blas.get('name')} {blas.get('version')}"
    except (AttributeError, KeyError, TypeError):   # an older NumPy's show_config
        pass
    try:   # the kernel OpenBLAS chose on this processor at load time (Haswell, SkylakeX, Zen...)
        from threadpoolctl import threadpool_info
        kernels = [p.get("architecture") for p in threadpool_info() if p.get("user_api") == "blas"]
        info["blas_kernel"] = ", ".join(k for k in kernels if k) or None
    except ImportError:
        info["blas_kernel"] = None
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                    help=f"which workloads to run (default: all of {' '.join(WORKLOADS)})")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke check; noisier)")
    ap.add_argument("--out", default=os.path.join(HERE, "results.json"),
                    help="where to write the results (default: benchmarks/results.json); "
                         "workloads not run keep their previous entry")
    ap.add_argument("--no-torch", action="store_true", help="skip PyTorch even if it is installed")
    ap.add_argument("--tf-python", metavar="PATH", default=os.environ.get("TAPEKIT_BENCH_TF_PYTHON"),
                    help="a Python with tensorflow installed (never a tapekit dependency): W1 then also "
                         "times tf.function, KCNN and KMLP Keras 3's fit, in that interpreter, against "
                         "its own NumPy floor "
                         "(default: $TAPEKIT_BENCH_TF_PYTHON; without it that row is N/A)")
    ap.add_argument("--markdown", action="store_true",
                    help="print the results file (--out) as Markdown tables and exit (runs nothing)")
    ap.add_argument("--same-process", action="store_true",
                    help="run every workload in this process (default: each in a fresh process)")
    ap.add_argument("--child", metavar="JSON", help=argparse.SUPPRESS)  # one workload, for the parent
    args = ap.parse_args(argv)
    if args.markdown:
        with open(args.out) as f:
            print(markdown(json.load(f)))
        return 0

    selected = [w.upper() for w in args.workloads] or list(WORKLOADS)
    unknown = [w for w in selected if w not in MODULES]
    if unknown:
        ap.error(f"unknown workload(s) {unknown}; choose from {WORKLOADS}")

    import tapekit as tk
    if args.no_torch:
        torch, torch_missing = None, "PyTorch skipped (--no-torch)"
    else:
        torch, torch_missing = harness.import_torch()
    ctx = Context(tk, torch, torch_missing, args.quick, args.tf_python)
    meta = machine_info(torch)
    if args.child:
        results = {name: run_workload(name, ctx, meta, args) for name in selected}
        with open(args.child, "w") as f:
            json.dump(results, f, default=_json_default)
        return 0
    print(f"tapekit {meta['tapekit']} ({meta.get('tapekit_commit')}{'+dirty' if meta.get('tapekit_dirty') else ''}), "
          f"numpy {meta['numpy']}, torch {meta['torch'] or 'not installed'}, python {meta['python']}; "
          f"{meta['cpus']} CPUs ({meta.get('cpu')}), 1 thread each; {'quick' if args.quick else 'full'} run")
    print(f"vector extensions: {' '.join(meta.get('vector_extensions') or ['?'])}; NumPy's SIMD: "
          f"{' '.join(meta.get('numpy_simd') or ['?'])}; BLAS: {meta.get('blas', '?')}, kernel "
          f"{meta.get('blas_kernel') or '? (pip install threadpoolctl)'}")
    print(f"malloc tuning (tapekit/_malloc.py, process-wide, every contender): {meta['malloc_tuning']}")
    if torch is None:
        print(f"note: {torch_missing}")
    load = meta.get("loadavg_at_start")
    if load and os.cpu_count() and load[0] > 0.5 * os.cpu_count():
        print(f"note: load average {load[0]:.2f} on {os.cpu_count()} CPUs before starting: other work is "
              f"running, expect noisy numbers (the ratios of interleaved medians hold up best)")
    print("medians over interleaved repetitions; spread = half the interquartile range, relative\n")

    results = {}
    t_start = time.perf_counter()
    for name in selected:
        if args.same_process or len(selected) == 1:
            res = run_workload(name, ctx, meta, args)
        else:
            res = run_in_child(name, argv if argv is not None else sys.argv[1:], args.tf_python)
        results[name] = res
        print(format_workload(name, res))
        if "traceback" in res:
            print(res["traceback"])
        print(f"   ({res['seconds']} s)\n", flush=True)

    print("\n".join(summary_lines(results)))
    print(f"\ntotal {time.perf_counter() - t_start:.0f} s")

    previous = {}
    if os.path.exists(args.out):
        try:
            with open(args.out) as f:
                previous = json.load(f).get("workloads", {})
        except (OSError, ValueError):
            previous = {}
    merged = {k: previous[k] for k in WORKLOADS if k in previous and k not in results}
    merged.update(results)
    merged = {k: merged[k] for k in WORKLOADS if k in merged}
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "workloads": merged}, f, indent=1, default=_json_default)
        f.write("\n")
    print(f"wrote {os.path.relpath(args.out)}")
    # Missed targets are results, not errors; a crash or a wrong gradient is an error.
    return 1 if any("error" in r or r.get("failures") for r in results.values()) else 0


def run_workload(name, ctx, meta, args):
    mod = __import__(MODULES[name])
    run = getattr(mod, f"run_{name.lower()}", mod.run)   # a module may hold several workloads
    t0 = time.perf_counter()
    try:
        res = run(ctx)
    except harness.VerificationError as e:
        res = {"error": f"verification failed, not timed: {e}"}
    except Exception as e:  # a crash in one workload must not hide the others
        res = {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
    res["title"] = getattr(mod, "TITLES", {}).get(name, mod.TITLE)
    res["seconds"] = round(time.perf_counter() - t0, 1)
    res["measured_at"] = meta["date"]
    res["quick"] = args.quick
    return res


def run_in_child(name, argv, args_tf_python=None):
    """One workload in a fresh Python process: what earlier workloads left in the heap and
    the caches does not tilt its contenders (they still share one process among themselves)."""
    flags = [a for a in argv if a in ("--quick", "--no-torch")]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "result.json")
        if args_tf_python:
            flags += ["--tf-python", args_tf_python]
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), name, "--child", path] + flags,
                              capture_output=True, text=True)
        if proc.returncode != 0 or not os.path.exists(path):
            return {"title": name, "seconds": 0, "error": f"the workload's process failed "
                    f"(exit {proc.returncode}): {proc.stderr.strip()[-2000:]}"}
        with open(path) as f:
            return json.load(f)[name]


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, np.bool_):
        return bool(o)
    return str(o)


if __name__ == "__main__":
    sys.exit(main())
