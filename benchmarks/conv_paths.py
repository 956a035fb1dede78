"""Convolution and pooling kernels: tapekit's path against NumPy alternatives (issue 33).

A standalone measurement, NumPy only (not a run.py workload): it times the kernels, not
the ops around them. On the shapes of the CNN step (W5: cnn_step.py) and of the fit CNN
(KCNN: fit_floor.py), forward and backward, one thread, interleaved (harness.interleaved):

- conv2d, its input gradient and its filter gradient:
  - "tapekit": tapekit/ops/conv.py as it is (im2col by one copy per filter tap, one
    matmul; col2im for the input gradient);
  - "swv+tensordot": numpy.lib.stride_tricks.sliding_window_view and np.tensordot (the
    input gradient as the full correlation of the padded cotangent with the flipped kernel);
  - "swv+einsum": the same windows through np.einsum(..., optimize=True);
  - "per-tap matmul": no im2col, one matmul per filter tap on a strided view, summed;
- a 1x1 convolution: tapekit's path against a reshape and one matmul (no im2col, no col2im);
- 2x2 max pooling with stride 2 (stride == window), forward and backward:
  - "tapekit": pooling.first_max_index + gather_windows, scatter_windows backward;
  - "reshape+argmax": x reshaped to (N, P, 2, P, 2, C), the windows copied to a last axis
    of 4, argmax (the first maximum, TensorFlow's tie rule), take/put_along_axis;
  - "reshape views": the maximum of the 4 strided views of that reshape (no copy, no
    index); backward sends each window's gradient to the first view equal to the max;
  - "views -> index": tapekit's design kept (the flat index of each first maximum, then
    gather / scatter), the index found on those 4 views instead of 4 contiguous copies;
- 2x2 average pooling with stride 2: tapekit's (pooling.py) against the reshape's views
  (forward: the 4 views added in tapekit's order; backward: one broadcast assignment).

Each alternative is checked against tapekit's result first (bit-equal, or the largest
difference relative to the largest value); the table gives medians and each one's ratio
to tapekit's path on the same shape and direction.

    python benchmarks/conv_paths.py [--reps 30] [--budget 20]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

from harness import interleaved  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from tapekit.ops import conv, pooling  # noqa: E402

STRIDE, NO_PADS = (1, 1), (0, 0, 0, 0)

# name: (images NHWC, kernel HWIO); all stride 1, 'VALID' (as in both benchmarks)
CONVS = {"W5 conv 32x28x28x1 -> 8": ((32, 28, 28, 1), (3, 3, 1, 8)),
         "KCNN conv1 64x28x28x1 -> 16": ((64, 28, 28, 1), (3, 3, 1, 16)),
         "KCNN conv2 64x13x13x16 -> 32": ((64, 13, 13, 16), (3, 3, 16, 32))}
ONE_BY_ONE = {"1x1 on W5's map 32x26x26x8 -> 8": ((32, 26, 26, 8), (1, 1, 8, 8)),
              "1x1 on KCNN's map 64x13x13x16 -> 32": ((64, 13, 13, 16), (1, 1, 16, 32))}
POOLS = {"W5 pool 32x26x26x8": (32, 26, 26, 8),
         "KCNN pool1 64x26x26x16": (64, 26, 26, 16),
         "KCNN pool2 64x11x11x32": (64, 11, 11, 32)}


# --- convolution: the alternatives ---------------------------------------------------------------

def swv(x, fh, fw):
    """(N, Ho, Wo, C, fh, fw) windows of x, a view."""
    return sliding_window_view(x, (fh, fw), axis=(1, 2))


def conv_tensordot(x, w):
    return np.tensordot(swv(x, *w.shape[:2]), w, axes=([3, 4, 5], [2, 0, 1]))


def conv_einsum(x, w):
    return np.einsum("nhwcij,ijco->nhwo", swv(x, *w.shape[:2]), w, optimize=True)


def conv_per_tap(x, w):
    fh, fw = w.shape[:2]
    ho, wo = x.shape[1] - fh + 1, x.shape[2] - fw + 1
    out = x[:, :ho, :wo, :] @ w[0, 0]
    for a in range(fh):
        for b in range(fw):
            if a or b:
                out += x[:, a:a + ho, b:b + wo, :] @ w[a, b]
    return out


def full_padded(dy, fh, fw):
    """dy zero-padded by (fh - 1, fw - 1) on each side: the input gradient is its correlation
    with the kernel flipped in space and with in/out channels swapped."""
    n, ho, wo, co = dy.shape
    out = np.zeros((n, ho + 2 * (fh - 1), wo + 2 * (fw - 1), co), dy.dtype)
    out[:, fh - 1:fh - 1 + ho, fw - 1:fw - 1 + wo] = dy
    return out


def flipped(w):
    return np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))   # (fh, fw, co, ci)


def dx_tensordot(dy, w):
    return conv_tensordot(full_padded(dy, *w.shape[:2]), flipped(w))


def dx_einsum(dy, w):
    return conv_einsum(full_padded(dy, *w.shape[:2]), flipped(w))


def dx_per_tap(dy, w):
    return conv_per_tap(full_padded(dy, *w.shape[:2]), flipped(w))


def dw_tensordot(x, dy, fh, fw):
    return np.tensordot(swv(x, fh, fw), dy, axes=([0, 1, 2], [0, 1, 2])).transpose(1, 2, 0, 3)


def dw_einsum(x, dy, fh, fw):
    return np.einsum("nhwcij,nhwo->ijco", swv(x, fh, fw), dy, optimize=True)


def dw_per_tap(x, dy, fh, fw):
    n, ho, wo, co = dy.shape
    d2 = dy.reshape(-1, co)
    out = np.empty((fh, fw, x.shape[3], co), dy.dtype)
    for a in range(fh):
        for b in range(fw):
            out[a, b] = x[:, a:a + ho, b:b + wo, :].reshape(-1, x.shape[3]).T @ d2
    return out


def conv_tapekit(x, w):
    return conv._conv2d(x, w, STRIDE, NO_PADS)


def dx_tapekit(dy, w, hw):
    return conv._conv2d_backprop_input(dy, w, hw, STRIDE, NO_PADS)


def dw_tapekit(x, dy, fh, fw):
    return conv._conv2d_backprop_filter(x, dy, (fh, fw), STRIDE, NO_PADS)


# --- 1x1: a reshape and one matmul -------------------------------------------------------------------

def conv_1x1(x, w):
    return (x.reshape(-1, x.shape[3]) @ w.reshape(w.shape[2:])).reshape(x.shape[:3] + (w.shape[3],))


def dx_1x1(dy, w):
    return (dy.reshape(-1, dy.shape[3]) @ w.reshape(w.shape[2:]).T).reshape(dy.shape[:3] + (w.shape[2],))


def dw_1x1(x, dy):
    return (x.reshape(-1, x.shape[3]).T @ dy.reshape(-1, dy.shape[3])).reshape((1, 1, x.shape[3], dy.shape[3]))


# --- pooling (2x2, stride 2) ---------------------------------------------------------------------------

def blocks(x):
    """(N, P, 2, P, 2, C) view of x's 2x2 windows (an odd last row/column dropped, as 'VALID')."""
    n, h, w, c = x.shape
    return x[:, :h // 2 * 2, :w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2, c)


def max_tapekit(x):
    index = pooling.first_max_index(x, (2, 2), (2, 2), NO_PADS)
    return pooling.gather_windows(x, index), index


def max_tapekit_back(dy, index, shape):
    return pooling.scatter_windows(dy, index, shape)


def max_argmax(x):
    b = blocks(x)
    n, p, _, q, _, c = b.shape
    wins = b.transpose(0, 1, 3, 5, 2, 4).reshape(n, p, q, c, 4)       # a copy
    k = wins.argmax(axis=-1)[..., None]
    return np.take_along_axis(wins, k, axis=-1)[..., 0], k


def max_argmax_back(dy, k, shape):
    n, p, q, c = dy.shape
    d = np.zeros((n, p, q, c, 4), dy.dtype)
    np.put_along_axis(d, k, dy[..., None], axis=-1)
    dx = np.zeros(shape, dy.dtype)
    blocks(dx)[...] = d.reshape(n, p, q, c, 2, 2).transpose(0, 1, 4, 2, 5, 3)
    return dx


VIEWS = ((0, 0), (0, 1), (1, 0), (1, 1))


def max_views(x):
    b = blocks(x)
    v = [b[:, :, i, :, j] for i, j in VIEWS]
    return np.maximum(np.maximum(v[0], v[1]), np.maximum(v[2], v[3])), None


def max_views_back(dy, x, y):
    dx = np.zeros(x.shape, dy.dtype)
    b, db = blocks(x), blocks(dx)
    free = np.ones(y.shape, bool)
    for i, j in VIEWS:
        hit = b[:, :, i, :, j] == y
        hit &= free
        free &= ~hit
        np.multiply(dy, hit, out=db[:, :, i, :, j])
    return dx


@functools.lru_cache(maxsize=8)
def corners(shape):
    """Flat position of each 2x2 window's top-left pixel plus its channel, (N, P, Q, C); kept, as
    pooling._corners keeps it."""
    n, h, w, c = shape
    out = (np.arange(h // 2)[:, None, None] * (2 * w * c) + np.arange(w // 2)[:, None] * (2 * c)) + np.arange(c)
    out = out + np.arange(n)[:, None, None, None] * (h * w * c)
    out.flags.writeable = False
    return out


def max_views_index(x):
    """tapekit's outputs (the maxima and the flat index of each window's first maximum), found
    on the 4 strided views instead of 4 contiguous copies; backward is tapekit's scatter."""
    n, h, w, c = x.shape
    b = blocks(x)
    v = [b[:, :, i, :, j] for i, j in VIEWS]
    best = np.maximum(np.maximum(v[0], v[1]), np.maximum(v[2], v[3]))
    if np.isnan(best).any():          # NaN is the max (np.maximum propagates it), as tapekit
        def is_max(t):
            return (t == best) | np.isnan(t)
    else:
        def is_max(t):
            return t == best
    found = is_max(v[0])
    first = np.zeros(best.shape, np.uint8)
    for t in v[1:]:
        first += ~found
        found |= is_max(t)
    index = np.array([0, c, w * c, w * c + c]).take(first)
    index += corners(x.shape)
    return best, index


def avg_tapekit(x):
    return pooling._avg_pool(x, (2, 2), (2, 2), NO_PADS)


def avg_tapekit_back(dy, hw):
    return pooling._avg_pool_backprop(dy, hw, (2, 2), (2, 2), NO_PADS)


def avg_views(x):
    b = blocks(x)
    total = b[:, :, 0, :, 0] + b[:, :, 0, :, 1]      # tapekit's order: (0,0) (0,1) (1,0) (1,1)
    total += b[:, :, 1, :, 0]
    total += b[:, :, 1, :, 1]
    total /= np.float32(4)
    return total


def avg_views_back(dy, shape):
    dx = np.zeros(shape, dy.dtype)
    blocks(dx)[...] = (dy / np.float32(4))[:, :, None, :, None]
    return dx


# --- checks and timing ---------------------------------------------------------------------------------

def agreement(got, want):
    """'bit-equal' or the largest difference relative to the largest |value|."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if np.array_equal(got, want):
        return "bit-equal"
    rel = float(np.max(np.abs(got.astype(np.float64) - want)) / np.max(np.abs(want)))
    assert rel < 1e-5, rel
    return f"differs by {rel:.1e} (relative)"


def conv_methods(name, x, w, dy):
    """{method: (forward, input gradient, filter gradient)}, each a zero-argument callable."""
    fh, fw = w.shape[:2]
    methods = {"tapekit": (lambda: conv_tapekit(x, w), lambda: dx_tapekit(dy, w, x.shape[1:3]),
                           lambda: dw_tapekit(x, dy, fh, fw))}
    if name in ONE_BY_ONE:
        methods["reshape+matmul"] = (lambda: conv_1x1(x, w), lambda: dx_1x1(dy, w), lambda: dw_1x1(x, dy))
        return methods
    methods["swv+tensordot"] = (lambda: conv_tensordot(x, w), lambda: dx_tensordot(dy, w),
                                lambda: dw_tensordot(x, dy, fh, fw))
    methods["swv+einsum"] = (lambda: conv_einsum(x, w), lambda: dx_einsum(dy, w), lambda: dw_einsum(x, dy, fh, fw))
    methods["per-tap matmul"] = (lambda: conv_per_tap(x, w), lambda: dx_per_tap(dy, w),
                                 lambda: dw_per_tap(x, dy, fh, fw))
    return methods


def groups():
    """{(shape name, direction): {method: (callable, agreement with tapekit)}}."""
    rng = np.random.default_rng(0)
    out = {}
    for name, (xs, ws) in {**CONVS, **ONE_BY_ONE}.items():
        x = rng.random(xs, dtype=np.float32)
        w = rng.standard_normal(ws).astype(np.float32)
        dy = rng.standard_normal(conv_tapekit(x, w).shape).astype(np.float32)
        methods = conv_methods(name, x, w, dy)
        wants = [f() for f in methods["tapekit"]]
        for k, direction in enumerate(("forward", "input gradient", "filter gradient")):
            out[(name, direction)] = {m: (fns[k], "-" if m == "tapekit" else agreement(fns[k](), wants[k]))
                                      for m, fns in methods.items()}
    for name, xs in POOLS.items():
        x = rng.standard_normal(xs).astype(np.float32)
        y, index = max_tapekit(x)
        dy = rng.standard_normal(y.shape).astype(np.float32)
        dx = max_tapekit_back(dy, index, xs)
        (ya, k), (yv, _), (yi, ii) = max_argmax(x), max_views(x), max_views_index(x)
        assert np.array_equal(ii, index)
        out[(name, "max forward")] = {"tapekit": (lambda x=x: max_tapekit(x), "-"),
                                      "reshape+argmax": (lambda x=x: max_argmax(x), agreement(ya, y)),
                                      "reshape views": (lambda x=x: max_views(x), agreement(yv, y)),
                                      "views -> index": (lambda x=x: max_views_index(x),
                                                         agreement(yi, y) + ", the same index")}
        out[(name, "max backward")] = {
            "tapekit": (lambda dy=dy, i=index, s=xs: max_tapekit_back(dy, i, s), "-"),
            "reshape+argmax": (lambda dy=dy, k=k, s=xs: max_argmax_back(dy, k, s),
                               agreement(max_argmax_back(dy, k, xs), dx)),
            "reshape views": (lambda dy=dy, x=x, y=yv: max_views_back(dy, x, y),
                              agreement(max_views_back(dy, x, yv), dx))}
        out[(name, "max forward + backward")] = {
            "tapekit": (lambda x=x, dy=dy: max_tapekit_back(dy, max_tapekit(x)[1], x.shape), "-"),
            "reshape+argmax": (lambda x=x, dy=dy: max_argmax_back(dy, max_argmax(x)[1], x.shape), "as above"),
            "reshape views": (lambda x=x, dy=dy: max_views_back(dy, x, max_views(x)[0]), "as above"),
            "views -> index": (lambda x=x, dy=dy: max_tapekit_back(dy, max_views_index(x)[1], x.shape),
                               "as above")}
        ya = avg_tapekit(x)
        da = avg_tapekit_back(dy, xs[1:3])
        out[(name, "avg forward")] = {"tapekit": (lambda x=x: avg_tapekit(x), "-"),
                                      "reshape views": (lambda x=x: avg_views(x), agreement(avg_views(x), ya))}
        out[(name, "avg backward")] = {
            "tapekit": (lambda dy=dy, hw=xs[1:3]: avg_tapekit_back(dy, hw), "-"),
            "reshape views": (lambda dy=dy, s=xs: avg_views_back(dy, s), agreement(avg_views_back(dy, xs), da))}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per group at most (after 5 reps)")
    ap.add_argument("--json", metavar="PATH", help="also write the medians and ratios here")
    args = ap.parse_args(argv)
    results = []
    print(f"numpy {np.__version__}, one thread; medians over interleaved repetitions; "
          f"ratio = method / tapekit's path on the same shape and direction")
    for (name, direction), methods in groups().items():
        stats = interleaved({m: fn for m, (fn, _) in methods.items()}, reps=args.reps, time_budget=args.budget)
        base = stats["tapekit"]["median"]
        print(f"\n{name}, {direction}")
        for m, (_, agree) in methods.items():
            s = stats[m]
            print(f"   {m:<16} {s['median'] * 1e3:8.3f} ms  x{s['median'] / base:5.2f}  "
                  f"±{50 * (s['p75'] - s['p25']) / s['median']:.0f}%  {agree}")
            results.append({"shape": name, "direction": direction, "method": m, "median_ms": s["median"] * 1e3,
                            "ratio": s["median"] / base, "reps": s["reps"], "agreement": agree})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
