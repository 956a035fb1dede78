"""CNN training step: 3x3 conv (8 filters, 'VALID', bias) on 28x28x1, batch 32, relu,
2x2 max-pool (stride 2), dense 1352 -> 10, mean sparse softmax cross-entropy, SGD (lr 0.01).

Layouts are TensorFlow's (as tapekit's): images NHWC, kernel HWIO (3, 3, 1, 8), the
dense layer reads the pooled map flattened in (h, w, c) order.
- NumPy by hand: im2col (9 slice copies) and one matmul for the conv forward,
  cols^T @ dz for the kernel gradient; max-pool as the maximum of 4 strided views, its
  backward sends each window's gradient to its argmax (the first maximum, as TF); the
  bias gradient as ones @ dz. Also timed, for context: the same step written plainly
  (sliding_window_view im2col, argmax over a copied window array, sum(axis=0)), which
  is about 2x slower; the targets use the fast one, the floor;
- tapekit: tk.nn.conv2d(x, k, strides=1, padding="VALID") + b, tk.nn.relu,
  tk.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID"), tk.reshape, tk.matmul;
  N/A until tapekit/ops/conv.py exists;
- PyTorch: its native NCHW layout (input converted once, outside the timing), kernel
  OIHW, and the dense weight's rows permuted to torch's (c, h, w) flatten order, so it
  computes the same function with no transposes in the step.
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from harness import assert_close, check, na, optional_attr, tf_ratio, tf_row
from train_common import numpy_sgd, run_training_workload

NAME = "CNN"
TITLE = "CNN step: 3x3 conv (8 filters) on 28x28x1, batch 32, relu, 2x2 max-pool, dense 10, cross-entropy, SGD"
BATCH, SIZE, K, C_OUT, CLASSES = 32, 28, 3, 8, 10
CONV = SIZE - K + 1           # 26
POOL = CONV // 2              # 13
FLAT = POOL * POOL * C_OUT    # 1352


def make_inputs(seed=12):
    rng = np.random.default_rng(seed)
    lim_k = np.sqrt(6 / (K * K * 1 + K * K * C_OUT))          # Glorot uniform, as Conv2D
    lim_d = np.sqrt(6 / (FLAT + CLASSES))
    init = {
        "kernel": rng.uniform(-lim_k, lim_k, (K, K, 1, C_OUT)).astype(np.float32),
        "bias": (0.01 * rng.standard_normal(C_OUT)).astype(np.float32),
        "W": rng.uniform(-lim_d, lim_d, (FLAT, CLASSES)).astype(np.float32),
        "b": (0.01 * rng.standard_normal(CLASSES)).astype(np.float32),
    }
    x = rng.random((BATCH, SIZE, SIZE, 1), dtype=np.float32)   # images in [0, 1)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int32)
    return init, x, y


# --- hand-written NumPy -------------------------------------------------------------------------

WINDOW = ((0, 0), (0, 1), (1, 0), (1, 1))      # the 2x2 pool window, in row-major order


def numpy_grads(p, x, y):
    B, C_IN = x.shape[0], x.shape[3]
    # conv as one matmul on im2col: cols[n, i, j, di, dj, c] = x[n, i + di, j + dj, c]
    # (9 slice copies; 4x faster than reshaping a sliding_window_view)
    cols = np.empty((B, CONV, CONV, K, K, C_IN), np.float32)
    for di in range(K):
        for dj in range(K):
            cols[:, :, :, di, dj, :] = x[:, di:di + CONV, dj:dj + CONV, :]
    cols = cols.reshape(B * CONV * CONV, K * K * C_IN)
    a = cols @ p["kernel"].reshape(-1, C_OUT)                         # (B*26*26, 8)
    a += p["bias"]
    np.maximum(a, 0, out=a)                                           # relu in place
    # 2x2 max-pool on strided views of the 4 window positions (no copy)
    a6 = a.reshape(B, POOL, 2, POOL, 2, C_OUT)
    v = [a6[:, :, i, :, j] for i, j in WINDOW]
    pooled = np.maximum(np.maximum(v[0], v[1]), np.maximum(v[2], v[3]))
    flat = pooled.reshape(B, FLAT)
    z = flat @ p["W"]
    z += p["b"]
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(B)
    loss = float(np.mean(np.log(s[:, 0]) - z[rows, y]))
    d = e
    d /= s
    d[rows, y] -= 1
    d *= 1 / B
    g = {"W": flat.T @ d, "b": d.sum(axis=0)}
    dpool = (d @ p["W"].T).reshape(pooled.shape)
    # max-pool backward: each window's gradient goes to its argmax (the first maximum, as TF)
    da6 = np.zeros_like(a6)
    free = np.ones(pooled.shape, bool)
    for k, (i, j) in enumerate(WINDOW):
        hit = v[k] == pooled
        hit &= free
        np.multiply(dpool, hit, out=da6[:, :, i, :, j])
        free &= ~hit
    da = da6.reshape(-1, C_OUT)
    da *= a > 0                                                       # relu'
    g["kernel"] = (cols.T @ da).reshape(p["kernel"].shape)
    # bias: a matmul with ones; da.sum(axis=0) over 21632 rows of 8 floats is 20x slower
    g["bias"] = np.ones(da.shape[0], np.float32) @ da
    return loss, g


def numpy_grads_plain(p, x, y):
    """The same step written the plain way (shown for context, not the floor): im2col by
    reshaping a sliding_window_view, max-pool by argmax over a copied (.., 4) window array
    and put_along_axis, the bias gradient by sum(axis=0). About 2x slower than numpy_grads."""
    B = x.shape[0]
    win = sliding_window_view(x, (K, K), axis=(1, 2))                 # (B, 26, 26, C, 3, 3)
    cols = win.transpose(0, 1, 2, 4, 5, 3).reshape(B * CONV * CONV, -1)
    a = np.maximum(cols @ p["kernel"].reshape(-1, C_OUT) + p["bias"], 0)
    wins = a.reshape(B, POOL, 2, POOL, 2, C_OUT).transpose(0, 1, 3, 5, 2, 4).reshape(B, POOL, POOL, C_OUT, 4)
    arg = wins.argmax(axis=-1)[..., None]
    flat = np.take_along_axis(wins, arg, axis=-1).reshape(B, FLAT)
    z = flat @ p["W"] + p["b"]
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(B)
    loss = float(np.mean(np.log(s[:, 0]) - z[rows, y]))
    d = e / s
    d[rows, y] -= 1
    d /= B
    g = {"W": flat.T @ d, "b": d.sum(axis=0)}
    dwins = np.zeros((B, POOL, POOL, C_OUT, 4), np.float32)
    np.put_along_axis(dwins, arg, (d @ p["W"].T).reshape(B, POOL, POOL, C_OUT, 1), axis=-1)
    da = dwins.reshape(B, POOL, POOL, C_OUT, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(-1, C_OUT)
    da = da * (a > 0)
    g["kernel"] = (cols.T @ da).reshape(p["kernel"].shape)
    g["bias"] = da.sum(axis=0)
    return loss, g


# --- tapekit ------------------------------------------------------------------------------------

def tk_loss(tk, p, x, y):
    h = tk.nn.relu(tk.nn.conv2d(x, p["kernel"], strides=1, padding="VALID") + p["bias"])
    h = tk.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
    logits = tk.matmul(tk.reshape(h, (h.shape[0], -1)), p["W"]) + p["b"]
    return tk.reduce_mean(tk.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


# --- PyTorch (NCHW) -----------------------------------------------------------------------------

def to_torch(p):
    return {"kernel": np.ascontiguousarray(p["kernel"].transpose(3, 2, 0, 1)),          # HWIO -> OIHW
            "bias": p["bias"],
            "W": np.ascontiguousarray(p["W"].reshape(POOL, POOL, C_OUT, CLASSES)
                                      .transpose(2, 0, 1, 3).reshape(FLAT, CLASSES)),    # (h,w,c) -> (c,h,w) rows
            "b": p["b"]}


def from_torch(p):
    return {"kernel": p["kernel"].transpose(2, 3, 1, 0),
            "bias": p["bias"],
            "W": p["W"].reshape(C_OUT, POOL, POOL, CLASSES).transpose(1, 2, 0, 3).reshape(FLAT, CLASSES),
            "b": p["b"]}


def torch_loss(torch, p, x, y):
    F = torch.nn.functional
    h = F.max_pool2d(F.relu(F.conv2d(x, p["kernel"], p["bias"])), 2)
    return F.cross_entropy(h.flatten(1) @ p["W"] + p["b"], y)


def torch_xy(torch, x, y):
    return (torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))),
            torch.from_numpy(y.astype(np.int64)))


def run(ctx):
    tk = ctx.tk
    init, x, y = make_inputs()
    missing = [n for n in ("nn.conv2d", "nn.max_pool2d") if optional_attr(tk, n) is None]
    why = (f"tk.{' and tk.'.join(missing)} not importable yet (tapekit/ops/conv.py is being written)"
           if missing else None)
    # the plain hand-written variant must compute the same thing as the floor
    ref_loss, ref = numpy_grads({k: v.copy() for k, v in init.items()}, x, y)
    plain_loss, plain = numpy_grads_plain(init, x, y)
    assert_close("CNN plain NumPy loss vs NumPy by hand", plain_loss, ref_loss, rtol=1e-5, atol=1e-7)
    for k in init:
        assert_close(f"CNN plain NumPy d{k} vs NumPy by hand", plain[k], ref[k], rtol=1e-4, atol=1e-6)
    plain_params = {k: v.copy() for k, v in init.items()}

    def plain_step():
        numpy_sgd(plain_params, numpy_grads_plain(plain_params, x, y)[1])

    res = run_training_workload(
        ctx, init=init, x=x, y=y, numpy_grads=numpy_grads, tk_loss=tk_loss, torch_loss=torch_loss,
        to_torch=to_torch, from_torch=from_torch, torch_xy=torch_xy, tapekit_missing=why,
        extra_numpy={"NumPy by hand, plain (context)": plain_step},
        reps=500, budget=30.0, rtol=1e-4, atol=1e-6, targets=(1.0, None))
    # tf.function afterwards, in TensorFlow's interpreter (cnn_tf.py), never during the timing
    # above: issue 48's target, tk.function / NumPy at most tf.function / NumPy.
    tf_res, why_tf = tf_ratio(getattr(ctx, "tf_python", None), "cnn_tf.py", ctx.reps(300), ctx.budget(30))
    if tf_res is None:
        res["rows"].append(na("TensorFlow tf.function", "ms", why_tf))
        return res
    floor = next(r["value"] for r in res["rows"] if r["label"] == "NumPy by hand")
    traced = next(r["label"] for r in res["rows"] if r["label"].startswith("tapekit tk.function"))
    res["rows"].append(tf_row("TensorFlow tf.function", tf_res, floor, "ms"))
    res["checks"].append(check("tk.function / NumPy, at most tf.function's", traced,
                               "NumPy by hand", round(tf_res["ratio"], 3), res["rows"]))
    res["notes"].append(f"tf.function: {tf_res['ratio']:.3f}x its NumPy floor, timed by cnn_tf.py in "
                        f"TensorFlow {tf_res['tensorflow']}'s interpreter right after this process's timing.")
    return res
