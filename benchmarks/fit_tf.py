"""KCNN / KMLP: Keras 3's `fit` on TensorFlow, timed in TensorFlow's own interpreter.

TensorFlow is never a tapekit dependency, so this file runs in another Python (a venv with
tensorflow-cpu and keras): `fit_keras.py` starts it as a subprocess when run.py is given
`--tf-python PATH` (or TAPEKIT_BENCH_TF_PYTHON). It builds the model of fit_floor.py in Keras
from the same weights and checks one epoch of fit against one hand-written NumPy epoch (loss,
accuracy, weights). Then it waits on its standard input: at each line "rep" it runs one
repetition, the NumPy epoch and Keras's fit epoch in a shuffled order, one thread each, and
answers with their times; the main process runs its own repetitions in between, so the two
processes' repetitions are interleaved in time as contenders are within one process. Lines
it writes for the main process start with "FITTF ". Only ratios cross processes: the main
process compares Keras's fit / NumPy epoch, from these times, with tapekit's.

glibc's malloc thresholds are set as `import tapekit` sets them in the main process (the
same file, tapekit/_malloc.py, loaded on its own), so the two NumPy floors run on the same
allocator settings.

    $TF_PYTHON benchmarks/fit_tf.py CNN      # then type: rep, rep, ..., end
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

from fit_floor import SHAPES, NumpyEpoch, build_model, fit_epoch, make_problem, verify_fit  # noqa: E402
from harness import one_repetition  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIX = "FITTF "
LABELS = ("NumPy epoch", "Keras fit")


def tune_malloc():
    """tapekit/_malloc.py's tune(), without importing tapekit (not installed in this venv)."""
    spec = importlib.util.spec_from_file_location("tapekit_malloc", os.path.join(ROOT, "tapekit", "_malloc.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.tune()
    return mod.status


def say(obj):
    print(PREFIX + json.dumps(obj), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("shape", choices=SHAPES)
    ap.add_argument("--seed", type=int, default=1, help="of the shuffled orders")
    args = ap.parse_args(argv)
    malloc = tune_malloc()
    import keras
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    weights, x, y = make_problem(args.shape)
    checked = verify_fit("Keras", args.shape, build_model(keras, args.shape, weights), weights, x, y)
    model = build_model(keras, args.shape, weights)
    contenders = dict(zip(LABELS, (NumpyEpoch(args.shape, weights, x, y), lambda: fit_epoch(model, x, y))))
    for fn in contenders.values():   # warm-up, as harness.interleaved: tracing, caches, allocators
        fn()
        fn()
    say({"tensorflow": tf.__version__, "keras": keras.__version__, "numpy": np.__version__,
         "python": sys.version.split()[0], "malloc_tuning": malloc, "jit_compile": bool(model.jit_compile),
         "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default (on)"), "checked": checked})
    rng = random.Random(args.seed)
    for line in sys.stdin:
        if line.strip() != "rep":
            break
        say(one_repetition(contenders, rng))
    return 0


if __name__ == "__main__":
    sys.exit(main())
