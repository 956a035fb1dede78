"""W1 under TensorFlow's tf.function, timed in TensorFlow's own interpreter.

TensorFlow is never a tapekit dependency, so this file runs in another Python (a venv with
tensorflow-cpu): `w1_overhead.py` starts it as a subprocess when run.py is given
`--tf-python PATH` (or TAPEKIT_BENCH_TF_PYTHON). It times the hand-written NumPy chain and
the same chain under tf.function (forward under a tf.GradientTape + gradient) interleaved,
one thread each, exactly as harness.interleaved times the contenders in the main process, and
prints one JSON object: the medians and the ratio tf.function / NumPy. Only that ratio
crosses processes; the absolute times of two interpreters are not compared.

    $TF_PYTHON benchmarks/w1_tf.py --reps 300 --budget 30
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

from harness import assert_close, interleaved  # noqa: E402
from w1_overhead import N_OPS, make_inputs, numpy_chain  # noqa: E402


def tf_chain(tf, x, c1, c2, n_ops=N_OPS):
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = x
        for k in range(n_ops):
            r = k % 4
            if r == 0:
                h = h * c1
            elif r == 1:
                h = h + c2
            elif r == 2:
                h = tf.sin(h)
            else:
                h = tf.tanh(h)
    return h, tape.gradient(h, x)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--budget", type=float, default=30.0)
    args = ap.parse_args(argv)
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    x, c1, c2 = make_inputs()
    tx, tc1, tc2 = tf.constant(x), tf.constant(c1), tf.constant(c2)
    for n in (N_OPS, 40):   # verified before timing, as the main process verifies its contenders
        f = tf.function(lambda a, n=n: tf_chain(tf, a, tc1, tc2, n))
        h_np, g_np = numpy_chain(x, c1, c2, n)
        h, g = f(tx)
        assert_close(f"W1[{n} ops] tf.function output vs NumPy", h.numpy(), h_np, rtol=1e-4, atol=0)
        assert_close(f"W1[{n} ops] tf.function gradient vs NumPy", g.numpy(), g_np, rtol=1e-3, atol=0)
    contenders = {"NumPy by hand": lambda: numpy_chain(x, c1, c2),
                  "tf.function": lambda: f_full(tx)}
    f_full = tf.function(lambda a: tf_chain(tf, a, tc1, tc2))
    f_full(tx)
    stats = interleaved(contenders, reps=args.reps, time_budget=args.budget)
    out = {"tensorflow": tf.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
           "stats": stats, "ratio": stats["tf.function"]["median"] / stats["NumPy by hand"]["median"]}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
