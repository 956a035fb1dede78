"""The common floor of the Keras comparison (KERAS): one epoch of each model written out in NumPy.

NumPy only, so the same code runs in tapekit's process (fit_keras.py) and in TensorFlow's
(fit_tf.py): each framework's `fit` is timed against this epoch in its own interpreter, and
only the ratio fit / floor crosses processes (as W1's tf.function comparison does).

The two models, as Keras builds them (weights in get_weights() order, TensorFlow layouts:
NHWC images, HWIO kernels, the dense layer reads the pooled map flattened in (h, w, c) order):
- CNN: Conv2D(16, 3, relu) -> MaxPooling2D(2) -> Conv2D(32, 3, relu) -> MaxPooling2D(2) ->
  Flatten -> Dense(10); 2048 images of 28x28x1, batch 64 (32 steps);
- MLP: Dense 784-256 relu -> 256-128 relu -> 128-10; 4096 rows, batch 64 (64 steps).
Both: mean sparse softmax cross-entropy from logits, Adam (Keras's defaults: lr 0.001,
beta_1 0.9, beta_2 0.999, epsilon 1e-7), accuracy metric, shuffle=False. The epoch's loss
and accuracy are the means over its batches, as fit reports them (all batches are full).

The epoch is written the fast way: im2col by 9 slice copies and one matmul per convolution,
col2im by 9 slice adds, max-pool as the maximum of 4 strided views with each window's
gradient to its first maximum (as TensorFlow), relu in place, Adam in place.
"""
import numpy as np

SHAPES = ("CNN", "MLP")
CLASSES = 10
FILTERS = (16, 32)
K = 3
SIZE = 28
CNN_N, MLP_N, BATCH = 2048, 4096, 64
MLP_SIZES = (784, 256, 128, 10)
LR, BETA_1, BETA_2, EPSILON = 1e-3, 0.9, 0.999, 1e-7
WINDOW = ((0, 0), (0, 1), (1, 0), (1, 1))      # the 2x2 pool window, in row-major order


def cnn_dims(filters=FILTERS):
    c1 = SIZE - K + 1          # 26
    p1 = c1 // 2               # 13
    c2 = p1 - K + 1            # 11
    p2 = c2 // 2               # 5 (the last row and column of the 11x11 map are dropped)
    return c1, p1, c2, p2, p2 * p2 * filters[1]


def glorot(rng, shape, fan_in, fan_out):
    lim = np.sqrt(6 / (fan_in + fan_out))
    return rng.uniform(-lim, lim, shape).astype(np.float32)


def make_problem(shape, seed=33, filters=FILTERS):
    """(weights in get_weights() order, x, y): Glorot-uniform kernels and zero biases, as Keras.

    The data can be learned, so that one epoch moves the loss well away from log(10): each
    class has a template and a sample is half its template, half noise. With random labels
    the loss stays near 2.30 whatever fit does, and a fit that skipped its updates would pass
    the loss check.
    """
    rng = np.random.default_rng(seed)
    n = CNN_N if shape == "CNN" else MLP_N
    y = rng.integers(0, CLASSES, n).astype(np.int64)
    if shape == "CNN":
        f1, f2 = filters
        flat = cnn_dims(filters)[4]
        weights = [glorot(rng, (K, K, 1, f1), K * K, K * K * f1), np.zeros(f1, np.float32),
                   glorot(rng, (K, K, f1, f2), K * K * f1, K * K * f2), np.zeros(f2, np.float32),
                   glorot(rng, (flat, CLASSES), flat, CLASSES), np.zeros(CLASSES, np.float32)]
        templates = rng.random((CLASSES, SIZE, SIZE, 1), dtype=np.float32)
        x = 0.5 * templates[y] + 0.5 * rng.random((n, SIZE, SIZE, 1), dtype=np.float32)   # in [0, 1)
        return weights, x, y
    weights = []
    for m, k in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        weights += [glorot(rng, (m, k), m, k), np.zeros(k, np.float32)]
    templates = rng.standard_normal((CLASSES, MLP_SIZES[0])).astype(np.float32)
    x = 0.5 * templates[y] + 0.5 * rng.standard_normal((n, MLP_SIZES[0])).astype(np.float32)
    return weights, x, y


# --- pieces ------------------------------------------------------------------------------------

def im2col(x, out):
    """(B*out*out, K*K*C) rows: cols[n, i, j, di, dj, c] = x[n, i + di, j + dj, c].

    With one input channel the rows are built transposed, (K*K, B*out*out), and returned as
    a transposed view: 9 contiguous copies instead of 9 copies that write every 9th float
    (3x faster for the first layer; BLAS reads the transposed operand as it is)."""
    B, C = x.shape[0], x.shape[3]
    if C == 1:
        cols = np.empty((K, K, B, out, out), np.float32)
        for di in range(K):
            for dj in range(K):
                cols[di, dj] = x[:, di:di + out, dj:dj + out, 0]
        return cols.reshape(K * K, B * out * out).T
    cols = np.empty((B, out, out, K, K, C), np.float32)
    for di in range(K):
        for dj in range(K):
            cols[:, :, :, di, dj, :] = x[:, di:di + out, dj:dj + out, :]
    return cols.reshape(B * out * out, K * K * C)


def col2im(dcols, B, out, C):
    """The adjoint of im2col: the input gradient of a 'VALID' 3x3 convolution."""
    d6 = dcols.reshape(B, out, out, K, K, C)
    dx = np.zeros((B, out + K - 1, out + K - 1, C), np.float32)
    for di in range(K):
        for dj in range(K):
            dx[:, di:di + out, dj:dj + out, :] += d6[:, :, :, di, dj, :]
    return dx


def pool_forward(a):
    """2x2 max-pool, stride 2, 'VALID' on (B, H, W, C): the pooled map and what backward needs."""
    B, H, W, C = a.shape
    P = H // 2
    a6 = a[:, :2 * P, :2 * P, :].reshape(B, P, 2, P, 2, C)    # a view (an odd last row/column dropped)
    v = [a6[:, :, i, :, j] for i, j in WINDOW]
    pooled = np.maximum(np.maximum(v[0], v[1]), np.maximum(v[2], v[3]))
    return pooled, v


def pool_backward(dpool, pooled, v, shape):
    """Each window's gradient to its first maximum; zeros elsewhere (and in dropped rows)."""
    B, H, W, C = shape
    P = pooled.shape[1]
    da = np.zeros(shape, np.float32)
    da6 = da[:, :2 * P, :2 * P, :].reshape(B, P, 2, P, 2, C)     # a view: writes land in da
    free = np.ones(pooled.shape, bool)
    for k, (i, j) in enumerate(WINDOW):
        hit = v[k] == pooled
        hit &= free
        free &= ~hit
        np.multiply(dpool, hit, out=da6[:, :, i, :, j])
    return da


def softmax_xent(z, y):
    """(mean loss, correct predictions, d loss / d logits) of a batch of logits."""
    B = z.shape[0]
    correct = int(np.count_nonzero(z.argmax(axis=1) == y))
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(B)
    loss = float(np.mean(np.log(s[:, 0]) - z[rows, y]))
    d = e
    d /= s
    d[rows, y] -= 1
    d *= 1 / B
    return loss, correct, d


# --- gradients of one batch ----------------------------------------------------------------------

def cnn_grads(w, x, y):
    k1, b1, k2, b2, W, b = w
    B, f1, f2 = x.shape[0], k1.shape[3], k2.shape[3]
    c1, p1, c2, p2, flat = cnn_dims((f1, f2))
    cols1 = im2col(x, c1)
    a1 = cols1 @ k1.reshape(-1, f1)
    a1 += b1
    np.maximum(a1, 0, out=a1)
    a1 = a1.reshape(B, c1, c1, f1)
    h1, v1 = pool_forward(a1)                                      # (B, 13, 13, f1)
    cols2 = im2col(h1, c2)
    a2 = cols2 @ k2.reshape(-1, f2)
    a2 += b2
    np.maximum(a2, 0, out=a2)
    a2 = a2.reshape(B, c2, c2, f2)
    h2, v2 = pool_forward(a2)                                      # (B, 5, 5, f2)
    hf = h2.reshape(B, flat)
    z = hf @ W
    z += b
    loss, correct, d = softmax_xent(z, y)
    gW, gb = hf.T @ d, d.sum(axis=0)
    dh2 = (d @ W.T).reshape(h2.shape)
    da2 = pool_backward(dh2, h2, v2, a2.shape).reshape(-1, f2)
    da2 *= a2.reshape(-1, f2) > 0
    gk2 = (cols2.T @ da2).reshape(k2.shape)
    gb2 = da2.sum(axis=0)
    dh1 = col2im(da2 @ k2.reshape(-1, f2).T, B, c2, f1)
    da1 = pool_backward(dh1, h1, v1, a1.shape).reshape(-1, f1)
    da1 *= a1.reshape(-1, f1) > 0
    gk1 = (cols1.T @ da1).reshape(k1.shape)
    gb1 = da1.sum(axis=0)
    return loss, correct, [gk1, gb1, gk2, gb2, gW, gb]


def mlp_grads(w, x, y):
    W1, b1, W2, b2, W3, b3 = w
    h1 = x @ W1
    h1 += b1
    np.maximum(h1, 0, out=h1)
    h2 = h1 @ W2
    h2 += b2
    np.maximum(h2, 0, out=h2)
    z = h2 @ W3
    z += b3
    loss, correct, d3 = softmax_xent(z, y)
    g3, gb3 = h2.T @ d3, d3.sum(axis=0)
    d2 = d3 @ W3.T
    d2 *= h2 > 0
    g2, gb2 = h1.T @ d2, d2.sum(axis=0)
    d1 = d2 @ W2.T
    d1 *= h1 > 0
    return loss, correct, [x.T @ d1, d1.sum(axis=0), g2, gb2, g3, gb3]


GRADS = {"CNN": cnn_grads, "MLP": mlp_grads}


# --- the epoch ------------------------------------------------------------------------------------

class Adam:
    """Keras 3's Adam, in place: m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2);
    w -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)."""

    def __init__(self, weights):
        self.m = [np.zeros_like(w) for w in weights]
        self.v = [np.zeros_like(w) for w in weights]
        self.t = 0

    def apply(self, weights, grads):
        self.t += 1
        alpha = LR * (1 - BETA_2 ** self.t) ** 0.5 / (1 - BETA_1 ** self.t)   # a Python float
        for w, g, m, v in zip(weights, grads, self.m, self.v):
            m += (g - m) * (1 - BETA_1)
            v += (g * g - v) * (1 - BETA_2)
            w -= alpha * m / (np.sqrt(v) + EPSILON)


class NumpyEpoch:
    """One epoch of hand-written training per call, on weights it owns (reset() restores them)."""

    def __init__(self, shape, weights, x, y):
        self.grads, self.init, self.x, self.y = GRADS[shape], weights, x, y
        self.reset()

    def reset(self):
        self.weights = [w.copy() for w in self.init]
        self.adam = Adam(self.weights)

    def __call__(self):
        losses, correct = [], 0
        for start in range(0, len(self.x), BATCH):
            loss, c, g = self.grads(self.weights, self.x[start:start + BATCH], self.y[start:start + BATCH])
            self.adam.apply(self.weights, g)
            losses.append(loss)
            correct += c
        return {"loss": float(np.mean(losses)), "accuracy": correct / len(self.x)}


# --- the physical limit: FLOPs of the CNN epoch ---------------------------------------------------

def cnn_epoch_flops(filters=FILTERS, n=CNN_N):
    """Multiply-adds x 2 of the matmuls (convolutions and dense) of one epoch, forward + backward.

    Forward per image: conv1 26*26 rows x (9*1 -> f1), conv2 11*11 rows x (9*f1 -> f2), dense
    flat -> 10. Backward: each layer's kernel gradient costs its forward again, and its input
    gradient once more, except conv1 (no gradient for the images). Elementwise work (bias,
    relu, pool, softmax, Adam) is left out: it is a few percent of these FLOPs.
    """
    f1, f2 = filters
    c1, _, c2, _, flat = cnn_dims(filters)
    conv1 = 2 * c1 * c1 * K * K * 1 * f1
    conv2 = 2 * c2 * c2 * K * K * f1 * f2
    dense = 2 * flat * CLASSES
    forward = conv1 + conv2 + dense
    backward = conv1 + 2 * conv2 + 2 * dense
    return {"forward": forward * n, "backward": backward * n, "total": (forward + backward) * n}


# --- the same model in either framework -------------------------------------------------------------

def build_model(lib, shape, weights):
    """The model in `lib` (tapekit as tk, or keras: the same API), compiled as the benchmark fits it,
    with `weights` set. Keras's defaults otherwise (on TensorFlow: jit_compile off on a CPU)."""
    L = lib.layers
    if shape == "CNN":
        f1, f2 = weights[0].shape[3], weights[2].shape[3]
        layers = [lib.Input((SIZE, SIZE, 1)), L.Conv2D(f1, K, activation="relu"), L.MaxPooling2D(2),
                  L.Conv2D(f2, K, activation="relu"), L.MaxPooling2D(2), L.Flatten(), L.Dense(CLASSES)]
    else:
        layers = [lib.Input((MLP_SIZES[0],)), L.Dense(MLP_SIZES[1], activation="relu"),
                  L.Dense(MLP_SIZES[2], activation="relu"), L.Dense(MLP_SIZES[3])]
    model = lib.Sequential(layers)
    model.set_weights([w.copy() for w in weights])
    model.compile(optimizer=lib.optimizers.Adam(LR, beta_1=BETA_1, beta_2=BETA_2, epsilon=EPSILON),
                  loss=lib.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def fit_epoch(model, x, y):
    """One epoch of fit, as timed: {'loss': ..., 'accuracy': ...} of that epoch."""
    logs = model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0).history
    return {"loss": float(logs["loss"][-1]), "accuracy": float(logs["accuracy"][-1])}


# --- verification: fit's epoch against the floor's, from the same weights on the same data --------------

LOSS_RTOL = 5e-5      # the epoch's mean loss (README.md, "The Keras comparison": why these)
ACCURACY_ATOL = 0.005
WEIGHTS_RTOL = 0.025  # |w_fit - w_floor| / |w_floor - w_init|, per weight


def verify_fit(name, shape, model, weights, x, y):
    """One epoch of `model.fit` (built from `weights`) against one NumPy epoch: the epoch's loss
    and accuracy and every weight after it. Raises harness.VerificationError; returns the figures."""
    from harness import VerificationError
    floor = NumpyEpoch(shape, weights, x, y)
    want = floor()
    got = fit_epoch(model, x, y)
    moved = [float(np.linalg.norm(a - b) / np.linalg.norm(b - w0))
             for a, b, w0 in zip(model.get_weights(), floor.weights, weights)]
    out = {"loss": got["loss"], "accuracy": got["accuracy"], "floor_loss": want["loss"],
           "floor_accuracy": want["accuracy"], "loss_rel": abs(got["loss"] - want["loss"]) / want["loss"],
           "weights_rel": max(moved)}
    if out["loss_rel"] > LOSS_RTOL:
        raise VerificationError(f"{name} {shape}: fit's epoch loss {got['loss']:.7g} != the NumPy epoch's "
                                f"{want['loss']:.7g} (relative {out['loss_rel']:.2g} > {LOSS_RTOL})")
    if abs(got["accuracy"] - want["accuracy"]) > ACCURACY_ATOL:
        raise VerificationError(f"{name} {shape}: fit's epoch accuracy {got['accuracy']:.5f} != the NumPy "
                                f"epoch's {want['accuracy']:.5f} (more than {ACCURACY_ATOL} apart)")
    if out["weights_rel"] > WEIGHTS_RTOL:
        k = int(np.argmax(moved))
        raise VerificationError(f"{name} {shape}: weight {k} after one epoch is {moved[k]:.3g} of its update "
                                f"away from the NumPy epoch's (more than {WEIGHTS_RTOL})")
    return out
