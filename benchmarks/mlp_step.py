"""MLP training step: 784-256-128-10, relu, batch 128, float32, mean sparse softmax
cross-entropy, plain SGD (lr 0.01) on all six weights and biases.

- NumPy by hand: forward, backward and in-place update written out (the floor); and,
  timed beside it, its 8 matmuls alone (3 forward, 5 backward: no gradient for x);
- tapekit eager: GradientTape + tk.nn.sparse_softmax_cross_entropy_with_logits +
  reduce_mean, then `v.assign_sub(lr * g)`; again with tk.optimizers.SGD and under
  tk.function when those exist;
- PyTorch eager: the same model, F.cross_entropy, backward, in-place SGD under no_grad.
"""
import numpy as np

from train_common import run_training_workload

NAME = "MLP"
TITLE = "MLP training step 784-256-128-10, relu, batch 128, float32, softmax cross-entropy, SGD"
SIZES = (784, 256, 128, 10)
BATCH = 128


def make_inputs(seed=11):
    rng = np.random.default_rng(seed)
    init = {}
    for i, (m, n) in enumerate(zip(SIZES[:-1], SIZES[1:]), start=1):
        limit = np.sqrt(6 / (m + n))                        # Glorot uniform, as Dense
        init[f"W{i}"] = rng.uniform(-limit, limit, (m, n)).astype(np.float32)
        init[f"b{i}"] = (0.01 * rng.standard_normal(n)).astype(np.float32)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH).astype(np.int32)
    return init, x, y


# --- hand-written NumPy ---------------------------------------------------------------------

def numpy_grads(p, x, y):
    """Loss and gradients of every parameter, forward and backward written out."""
    B = x.shape[0]
    h1 = x @ p["W1"]
    h1 += p["b1"]
    np.maximum(h1, 0, out=h1)                 # relu in place; h1 > 0 is its derivative mask
    h2 = h1 @ p["W2"]
    h2 += p["b2"]
    np.maximum(h2, 0, out=h2)
    z = h2 @ p["W3"]
    z += p["b3"]
    z -= z.max(axis=1, keepdims=True)         # stable softmax cross-entropy
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(B)
    loss = float(np.mean(np.log(s[:, 0]) - z[rows, y]))
    d3 = e
    d3 /= s                                   # softmax
    d3[rows, y] -= 1
    d3 *= 1 / B                               # d loss / d logits (mean over the batch)
    g = {"W3": h2.T @ d3, "b3": d3.sum(axis=0)}
    d2 = d3 @ p["W3"].T
    d2 *= h2 > 0
    g["W2"] = h1.T @ d2
    g["b2"] = d2.sum(axis=0)
    d1 = d2 @ p["W2"].T
    d1 *= h1 > 0
    g["W1"] = x.T @ d1
    g["b1"] = d1.sum(axis=0)
    return loss, g


def eight_matmuls(p, x, y):
    """The 8 matmuls of the hand-written step alone, on arrays of the right shapes."""
    _, g = numpy_grads(p, x, y)
    B = x.shape[0]
    h1 = np.maximum(x @ p["W1"], 0)
    h2 = np.maximum(h1 @ p["W2"], 0)
    d3 = np.full((B, SIZES[3]), 0.01, np.float32)
    d2 = np.full((B, SIZES[2]), 0.01, np.float32)
    d1 = np.full((B, SIZES[1]), 0.01, np.float32)
    W1, W2, W3 = p["W1"], p["W2"], p["W3"]

    def run():
        x @ W1
        h1 @ W2
        h2 @ W3
        h2.T @ d3
        d3 @ W3.T
        h1.T @ d2
        d2 @ W2.T
        x.T @ d1
    return run


# --- tapekit ----------------------------------------------------------------------------------

def tk_loss(tk, p, x, y):
    h = tk.nn.relu(tk.matmul(x, p["W1"]) + p["b1"])
    h = tk.nn.relu(tk.matmul(h, p["W2"]) + p["b2"])
    logits = tk.matmul(h, p["W3"]) + p["b3"]
    return tk.reduce_mean(tk.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


# --- PyTorch ------------------------------------------------------------------------------------

def torch_loss(torch, p, x, y):
    F = torch.nn.functional
    h = F.relu(x @ p["W1"] + p["b1"])
    h = F.relu(h @ p["W2"] + p["b2"])
    return F.cross_entropy(h @ p["W3"] + p["b3"], y)


def torch_xy(torch, x, y):
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))


def run(ctx):
    init, x, y = make_inputs()
    return run_training_workload(
        ctx, init=init, x=x, y=y, numpy_grads=numpy_grads, tk_loss=tk_loss, torch_loss=torch_loss,
        torch_xy=torch_xy, extra_numpy={"NumPy: its 8 matmuls alone": eight_matmuls(init, x, y)},
        reps=500, budget=30.0, rtol=1e-4, atol=1e-6, targets=(1.0, 1.0), guard=True)   # issue 33
