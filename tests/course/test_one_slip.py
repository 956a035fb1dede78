"""One slip costs only its own points (issue 47): each lesson's exercise graded with one
plausible mistake in an otherwise right answer, as nbgrader's autograde grades it (every check
with its hidden tests) and as the student sees it before submitting (the hidden tests taken out).

A check judges the student's own answer, a later part against the student's own earlier value
where the task allows, and its message says what is wrong, truthfully. Each slip below asserts
the points it keeps and the words of the message that names it. The cells run as
`tapekit.teach.exercise.check_runs` runs them (a fresh IPython shell per answer, one child
Python per lesson); tests/teach/test_assignments.py grades lesson 05's slips with nbgrader's
own commands, and every lesson's wrong answer (tests/course/wrong_answers/) the same way.
"""
import re
import textwrap
from functools import lru_cache
from pathlib import Path

import pytest

from tapekit.teach.exercise import read_exercise, run_cells

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
HIDDEN = re.compile(r"[ \t]*### BEGIN HIDDEN TESTS\n.*?### END HIDDEN TESTS[ \t]*\n?", re.S)


def _lesson(number):
    """Lesson `number`'s .md: an int (5 is 05_*.md) or a split lesson's str ("02b" is 02b_*.md)."""
    stem = number if isinstance(number, str) else f"{number:02d}"
    (path,) = NOTEBOOKS.glob(f"{stem}_*.md")
    return path


@lru_cache(maxsize=None)
def _graded(number):
    """{slip name: {"hidden": (points, [messages]), "visible": (points, [messages])}} for every
    slip of lesson `number`, and the solution's under the name "solution"."""
    ex = read_exercise(_lesson(number))
    answers = {"solution": ex.solution,
               **{name: textwrap.dedent(code) for name, (code, *_) in SLIPS[number].items()}}
    before = ex.imports + ex.setup + ex.given
    runs = {}
    for name, code in answers.items():
        cell = f"{ex.skeleton.rstrip()}\n{code}"        # typed below '# your code here'
        runs[f"{name}:hidden"] = before + [cell] + [g for g, _ in ex.grades]
        runs[f"{name}:visible"] = before + [cell] + [HIDDEN.sub("", g) for g, _ in ex.grades]
    res = run_cells(runs, timeout=600)
    out = {}
    for name in answers:
        out[name] = {}
        for kind in ("hidden", "visible"):
            checks = res[f"{name}:{kind}"]["results"][len(before) + 1:]
            out[name][kind] = (sum(p for (_, p), r in zip(ex.grades, checks) if r is None),
                               [f"{r[0]}: {r[1]}" for r in checks if r is not None])
    return ex.points, out


TRAIN_12 = """\
            class QuadraticModel(tk.Module):
                def __init__(self):
                    super().__init__()
                    self.a = tk.Variable(0.0, name="a")
                    self.c = tk.Variable(0.0, name="c")

                def __call__(self, x):
                    return self.a * x ** 2 + self.c


            quad = QuadraticModel()
            opt = tk.optimizers.SGD(learning_rate=0.05)
            xq_t, yq_t = tk.constant(xq), tk.constant(yq)
            for epoch in range(200):
                with tk.GradientTape() as tape:
                    loss = tk.reduce_mean(tk.square(yq_t - quad(xq_t)))
                grads = tape.gradient(loss, quad.trainable_variables)
                opt.apply_gradients(zip(grads, quad.trainable_variables))
            a_fit, c_fit = float(quad.a), float(quad.c)
"""

GRAD_01 = """\
a = tk.Variable(1.0, name="a")
b = tk.Variable(2.0, name="b")
with tk.GradientTape() as tape:
    f = a * b + tk.sin(a)
df_da, df_db = tape.gradient(f, [a, b])
"""
BACKWARD_02 = """\
p = x0 * y0
dg_dp = np.exp(p) + 1.0
dg_dx, dg_dy = dg_dp * y0, dg_dp * x0
xv = tk.Variable(x0, dtype=tk.float64, name="x")
yv = tk.Variable(y0, dtype=tk.float64, name="y")
with tk.GradientTape() as tape_g:
    pv = xv * yv
    gv = tk.exp(pv) + pv
print(dg_dx, dg_dy, [float(t) for t in tape_g.gradient(gv, [xv, yv])])
"""
FORWARD_02B = """\
xv = tk.Variable(x0, dtype=tk.float64, name="x")
with tk.GradientTape() as tape_g:
    pv = xv * y0
    gv = tk.exp(pv) + pv
tape_dg_dx = float(tape_g.gradient(gv, xv))
def g_of_x(x):
    return float(tk.exp(tk.constant(x * y0, dtype=tk.float64)) + x * y0)
fwd_errors = [abs((g_of_x(x0 + eps) - g_of_x(x0)) / eps - tape_dg_dx) for eps in epsilons]
best_fwd_eps = epsilons[int(np.argmin(fwd_errors))]
"""
STEP_07 = """\
w = tk.Variable(1.0, name="w")
b = tk.Variable(0.0, trainable=False, name="b")
x, y_true = 2.0, 4.0

with tk.GradientTape() as tape:
    tape.watch(b)
    pred = w * x + b
    loss = (pred - y_true) ** 2

dw, db = tape.gradient(loss, [w, b])
"""
TREE_03 = """\
r_tree = ("mul", "x", ("sin", ("mul", "x", "x")))
dr_tree = derivative(r_tree)
dr_nodes = size(dr_tree)

x_var = tk.Variable(x_at, dtype=tk.float64)
with tk.GradientTape() as tape:
    r = x_var * tk.sin(x_var * x_var)
tape_dr = float(tape.gradient(r, x_var))
"""
CENTRAL_03B = """\
q_calls = 0


def q(x):
    global q_calls
    q_calls += 1
    x = tk.convert_to_tensor(x, dtype=tk.float64)
    return tk.reduce_sum(x ** 2 * tk.sin(x))


eps = 1e-5
grad_central = np.empty(len(x0))
for j in range(len(x0)):
    up, down = x0.copy(), x0.copy()
    up[j] += eps
    down[j] -= eps
    grad_central[j] = (float(q(up)) - float(q(down))) / (2 * eps)
central_calls = q_calls

xv = tk.Variable(x0, dtype=tk.float64)
with tk.GradientTape() as tape:
    qv = q(xv)
grad_tape = tape.gradient(qv, xv).numpy()
q_calls = central_calls
max_error = float(np.max(np.abs(grad_central - grad_tape)))
"""
RELU_06 = """\
            def my_relu(x):
                if x > 0:
                    return x
                return 0.0 * x


            grads_mine, grads_relu = [], []
            for value in [-1.0, 2.0]:
                x = tk.Variable(value, name="x")
                with tk.GradientTape(persistent=True) as tape:
                    mine = my_relu(x)
                    ref = tk.nn.relu(x)
                grads_mine.append(float(tape.gradient(mine, x)))
                grads_relu.append(float(tape.gradient(ref, x)))
"""

LAYER_09 = """\
def layer_grads(X, W, b, T):
    Y = X @ W + b
    G = 2 * (Y - T) / Y.size
    return (X.T @ G, G.sum(axis=0), G @ W.T)


dW, db, dX = layer_grads(X_ex, W_ex, b_ex, T_ex)
"""
POLAR_10 = """\
p = tk.Variable([2.0, np.pi / 6])

with tk.GradientTape() as tape:
    xy = tk.stack([p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])])
J_polar = tape.jacobian(xy, p).numpy()
det_polar = float(np.linalg.det(J_polar))

with tk.autodiff.ForwardAccumulator(p, tk.constant([1.0, 0.0])) as acc:
    xy = tk.stack([p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])])
col0 = acc.jvp(xy).numpy()
"""
TANH_11 = """\
@tk.custom_gradient
def my_tanh(x):
    y = tk.tanh(x)
    def grad_fn(dy):
        return dy * (1.0 - y ** 2)
    return y, grad_fn


x = tk.Variable([-1.0, 0.0, 2.0], name="x")
with tk.GradientTape() as tape:
    total = tk.reduce_sum(my_tanh(x))
grad = tape.gradient(total, x)
"""
LSE_11B = """\
@tk.custom_gradient
def lse(z):
    m = tk.reduce_max(z)
    e = tk.exp(z - m)
    total = tk.reduce_sum(e)
    def grad_fn(dy):
        return dy * e / total
    return m + tk.math.log(total), grad_fn


z = tk.Variable([1.0, 2.0, 1000.0], name="z")
with tk.GradientTape() as tape:
    value = lse(z)
grad = tape.gradient(value, z)
"""
GD_13 = """\
def f(w):
    return w[0] ** 2 + w[0] * w[1] + 2.0 * w[1] ** 2


w = tk.Variable([1.0, 1.0])
with tk.GradientTape() as outer:
    with tk.GradientTape() as inner:
        value = f(w)
    gradient = inner.gradient(value, w)
H_ex = outer.jacobian(gradient, w).numpy()
L_max = float(np.linalg.eigvalsh(H_ex).max())
lr_limit = 2.0 / L_max


def run_gd(lr, steps=100):
    w = tk.Variable([1.0, 1.0])
    for _ in range(steps):
        with tk.GradientTape() as tape:
            value = f(w)
        w.assign_sub(lr * tape.gradient(value, w))
    return float(f(w))
"""
EARLY_14 = """\
mse = tk.losses.MeanSquaredError()
opt = tk.optimizers.Adam(learning_rate=0.01)
val_losses = []
for epoch in range(100):
    with tk.GradientTape() as tape:
        loss = mse(y_tr, model_es(x_tr, training=True))
    grads = tape.gradient(loss, model_es.trainable_variables)
    opt.apply_gradients(zip(grads, model_es.trainable_variables))
    val_losses.append(float(mse(y_va, model_es(x_va))))
    if val_losses[-1] == min(val_losses):
        best_weights = [v.numpy().copy() for v in model_es.trainable_variables]
best_epoch = int(np.argmin(val_losses)) + 1
"""
CLIP_16 = """\
def clip_global(gradients, clip_norm):
    arrays = [np.asarray(g.numpy() if hasattr(g, "numpy") else g, dtype=np.float64) for g in gradients]
    global_norm = np.sqrt(sum(float(np.sum(a ** 2)) for a in arrays))
    if global_norm <= clip_norm:
        return arrays
    return [a * (clip_norm / global_norm) for a in arrays]


small_step = clip_global([tk.constant([3.0, 4.0]), tk.constant([12.0])], 1.0)
"""
BLOCK_17 = """\
tk.random.set_seed(3)
W = tk.random.normal((3, 3))
x = tk.constant([[0.5, -1.0, 2.0]])
with tk.GradientTape(persistent=True) as tape:
    tape.watch(x)
    f = tk.tanh(x @ W)
    y = x + f
J = tape.jacobian(y, x).numpy().reshape(3, 3)
J_F = tape.jacobian(f, x).numpy().reshape(3, 3)

def hand_jacobian(x, W):
    t = np.tanh(np.asarray(x) @ np.asarray(W))[0]
    return np.eye(3) + (1 - t ** 2)[:, None] * np.asarray(W).T


J_hand = hand_jacobian(x, W)
"""
TEST_STEP_19 = """\
class EvaluatedMLP(ClippedMLP):
    def test_step(self, data):
        x, y = data
        logits = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, logits), sample_weight=tk.shape(x)[0])
        self.accuracy_metric.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}
"""
CALLBACK_20 = """\
class StopAtAccuracy(tk.callbacks.Callback):
    def __init__(self, target):
        super().__init__()
        self.target = target

    def on_epoch_end(self, epoch, logs=None):
        if logs["accuracy"] >= self.target:
            self.model.stop_training = True
"""
CLIP_21 = """\
limit = tk.Variable(1.0, name="limit")
count = tk.Variable(0, name="count")


@tk.function
def clip_and_count(x):
    count.assign_add(1)
    return tk.minimum(x, limit)
"""
TRACES_22 = """\
traced = tk.function(rescale)
for x, limit in [(tk.constant([1.0, 2.0]), 3.0), (tk.constant([5.0, 1.0]), 3.0),
                 (tk.constant([0.5, 0.5]), 3.0), (tk.constant([1.0, 2.0, 3.0]), 3.0),
                 (tk.constant([1.0, 2.0]), 4.0), (tk.constant([1.0, 2.0]), tk.constant(4.0))]:
    traced(x, limit)
traces = traced.experimental_get_tracing_count()
tf_traces = 4
"""
RECORDS_23 = """\
x = tk.Variable(x0, dtype=tk.float64, name="x")
w = tk.Variable(w0, dtype=tk.float64, name="w")
with tk.GradientTape() as tape:
    z = tk.exp(x * w) * x + w
op_names = [n.label for n in tk.display.build(tape).nodes if n.id.startswith("n")]
e = np.exp(x0 * w0)
x_parts = [float(e), float(x0 * e * w0)]
"""
TAPE_23B = """\
def sin(x):
    x = as_value(x)
    return record("sin", [x], np.sin(x.data), lambda g: [g * np.cos(x.data)])


def div(x, y):
    x, y = as_value(x), as_value(y)
    return record("div", [x, y], x.data / y.data,
                  lambda g: [g / y.data, -g * x.data / y.data ** 2])


Value.__truediv__ = lambda self, other: div(self, other)
TAPE.clear()
x, w = Value(2.0), Value(3.0)
y = sin(x * w) + x / w
mine = [float(g) for g in backward(y, [x, w])]
"""
DUAL_24 = """\
def dual_pow(self, k):
    return Dual(self.value ** k, k * self.value ** (k - 1) * self.tangent)


Dual.__pow__ = dual_pow


def tanh(u):
    value = np.tanh(u.value)
    return Dual(value, (1 - value ** 2) * u.tangent)


x = Dual(0.5, 1.0)
slope = (tanh(x) ** 3 + x * x).tangent

xv = tk.Variable(0.5, dtype=tk.float64)
with tk.GradientTape() as tape:
    hv = tk.tanh(xv) ** 3 + xv * xv
print(slope, float(tape.gradient(hv, xv)))
"""
BACKWARD_25 = """\
def mlp_tanh_grads(p, X, y):
    z1 = X @ p["W1"] + p["b1"]
    h = np.tanh(z1)
    z2 = h @ p["W2"] + p["b2"]
    e = np.exp(z2 - z2.max(axis=1, keepdims=True))
    prob = e / e.sum(axis=1, keepdims=True)
    G2 = (prob - np.eye(prob.shape[1])[y]) / len(y)
    G1 = (G2 @ p["W2"].T) * (1 - h ** 2)        # tanh' from the cached output
    return {"W1": X.T @ G1, "b1": G1.sum(axis=0), "W2": h.T @ G2, "b2": G2.sum(axis=0)}


def tanh_loss(p, X, y):
    z2 = np.tanh(X @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    e = np.exp(z2 - z2.max(axis=1, keepdims=True))
    return -np.log((e / e.sum(axis=1, keepdims=True))[np.arange(len(y)), y]).mean()


err_W1 = rel_error(mlp_tanh_grads(p_ex, X_ex, y_ex)["W1"],
                   numerical_grad(lambda: tanh_loss(p_ex, X_ex, y_ex), p_ex["W1"]))
"""
BACKWARD_25B = """\
def avg_pool_backward(G):
    # each input is a quarter of its window's mean: it gets a quarter of that G
    return np.repeat(np.repeat(G, 2, axis=0), 2, axis=1) / 4


def layer_norm_backward(G, x, gamma, eps=1e-3):
    s = 1 / np.sqrt(x.var(axis=1, keepdims=True) + eps)
    x_hat = (x - x.mean(axis=1, keepdims=True)) * s
    n, Gh = x.shape[1], G * gamma
    dx = s / n * (n * Gh - Gh.sum(axis=1, keepdims=True)
                  - x_hat * (Gh * x_hat).sum(axis=1, keepdims=True))
    return dx, (G * x_hat).sum(axis=0), G.sum(axis=0)
"""
RNN_26 = """\
def bptt_grads(X, h0, Wx, Wh, b, G):
    hs = [h0]
    for x in X:
        hs.append(np.tanh(x @ Wx + hs[-1] @ Wh + b))
    grads = {"Wx": np.zeros_like(Wx), "Wh": np.zeros_like(Wh), "b": np.zeros_like(b)}
    carried = np.zeros_like(h0)
    for t in reversed(range(len(X))):
        dz = (G[t] + carried) * (1 - hs[t + 1] ** 2)
        grads["Wx"] += X[t].T @ dz
        grads["Wh"] += hs[t].T @ dz
        grads["b"] += dz.sum(axis=0)
        carried = dz @ Wh.T
    grads["h0"] = carried
    return grads


def attention_grads(Q, K, V, G):
    d = Q.shape[1]
    S = Q @ K.T / np.sqrt(d)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    dA = G @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS @ K / np.sqrt(d), dS.T @ Q / np.sqrt(d), A.T @ G
"""
TRAIN_27 = """\
def zero_grad(params):
    for p in params:
        p.grad = 0.0


def train_step(model, xs, ys, lr):
    params = model.parameters()
    zero_grad(params)
    TAPE.clear()
    loss = mse(model, xs, ys)
    backward(loss, params)
    for p in params:
        p.data = p.data - lr * p.grad
    return float(loss.data)


model_ex = MLP(3, [5, 1], np.random.default_rng(271))
losses_ex = [train_step(model_ex, xs_ex, ys_ex, 0.2) for _ in range(200)]
"""
HESSIAN_05 = """\
with tk.GradientTape(persistent=True) as outer:
    with tk.GradientTape() as inner:
        f = x ** 2 * y + y ** 3
    gx, gy = inner.gradient(f, [x, y])
    gv = gx * v[0] + gy * v[1]
hessian = np.array([[float(d) for d in outer.gradient(gx, [x, y])],
                    [float(d) for d in outer.gradient(gy, [x, y])]])
hvp = np.array([float(d) for d in outer.gradient(gv, [x, y])])
"""
JAC_08 = """\
            x = tk.Variable([3.0, 2.0, 1.0], name="x")
            with tk.GradientTape(persistent=True) as tape:
                y = tk.stack([x[0] * x[1], x[1] ** 2, x[0] - x[2]])
            rows = [tape.gradient(y, x, output_gradients=tk.one_hot(i, 3)).numpy() for i in range(3)]
            jac = np.stack(rows)
            v_row1 = tk.one_hot(1, 3).numpy()
"""

FRAMEWORKS_29 = """\
def second_derivative(f, x):
    x = tk.constant(x)
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        d1 = inner.gradient(y, x)
    return float(outer.gradient(d1, x))


def vjp(f, x, u):
    x = tk.constant(x)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, output_gradients=tk.constant(u)).numpy()


def jvp(f, x, t):
    x = tk.constant(x)
    with tk.autodiff.ForwardAccumulator(primals=x, tangents=tk.constant(t)) as acc:
        y = f(x)
    return acc.jvp(y).numpy()


def two_grads(x_value):
    x = tk.constant(x_value)
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 2
        z = tk.sin(y)
    return float(tape.gradient(y, x)), float(tape.gradient(z, x))
"""

RANGE_15 = """\
tk.random.set_seed(0)
x = tk.random.normal((64, 64))


def stays_in_range(x, s):
    tk.keras.utils.set_random_seed(1)
    h = x
    for _ in range(20):
        h = tk.layers.Dense(64, activation="relu", kernel_initializer=tk.initializers.RandomNormal(stddev=s))(h)
        if not 0.1 <= float(tk.math.reduce_std(h)) <= 10:
            return False
    return True


candidates = np.round(np.arange(0.15, 0.225, 0.005), 3)
good_scales = [float(s) for s in candidates if stays_in_range(x, s)]
"""

# lesson (its number, or a split lesson's "02b"): {slip: (the answer, points at autograde,
# words its feedback holds, words it must not)}
SLIPS = {
    27: {
        "zero_grad never called": (TRAIN_27.replace("    zero_grad(params)\n", ""), 5,
                                   ["the second step moved by the sum of the first and second steps' gradients"],
                                   ["uphill", "not below 0.1"]),
        "a step with + for -": (TRAIN_27.replace("p.data - lr * p.grad", "p.data + lr * p.grad"), 5,
                                ["moved the parameters by +lr·grad, uphill"], ["sum of the first", "the loss rose"]),
        "zeroed after backward, before the step": (
            TRAIN_27.replace("    zero_grad(params)\n", "").replace(
                "    backward(loss, params)\n", "    backward(loss, params)\n    zero_grad(params)\n"), 3,
            ["did not move the parameters", "zero the gradients before backward"], ["uphill", "the loss stayed"]),
        # micrograd's classic order: backward, step, then zero: right from a fresh model, so only
        # a step after another backward shows it (a visible check, not only the hidden one)
        "zeroed at the end of the step": (
            TRAIN_27.replace("    zero_grad(params)\n", "").replace(
                "    return float(loss.data)\n", "    zero_grad(params)\n    return float(loss.data)\n"), 5,
            ["a step whose .grad held old numbers", "zero the gradients at the start of train_step"],
            ["sum of the first"]),
    },
    5: {
        # gv is judged against the student's own gx and gy: the slip in f costs the Hessian's values only
        "y**2 for y**3": (HESSIAN_05.replace("y ** 3", "y ** 2"), 4,
                          ["hessian[1][1] = d²f/dy² = 6y should be 12, got 2"],
                          ["multiplying a gradient by v", "gv should be"]),
        "gv computed after the block": (HESSIAN_05.replace("    gv = gx * v[0] + gy * v[1]\n", "")
                                        .replace("hvp = np.array([float(d) for d in outer.gradient(gv, [x, y])])",
                                                 "gv = gx * v[0] + gy * v[1]\nhvp = hessian @ np.array(v)"), 4,
                                        ["did not record gv"], []),
        "a sign slip in gv": (HESSIAN_05.replace("gy * v[1]", "gy * -v[1]"), 3,
                              ["is not your hessian @ v", "check gv = gx·v[0] + gy·v[1]"], []),
        # the cell stops at the second gradient call: gv, computed before it, keeps its point
        "outer not persistent": (HESSIAN_05.replace("(persistent=True)", "()"), 1,
                                 ["outer is not persistent, so its second gradient call raises"], []),
    },
    26: {
        "1 - h for 1 - h²": (RNN_26.replace("(1 - hs[t + 1] ** 2)", "(1 - hs[t + 1])"), 3,
                             ["yours uses 1 - h for tanh's slope: it is 1 - h²"],
                             ["leaves out the gradient carried back"]),
        "dWh from h instead of h_prev": (RNN_26.replace("hs[t].T @ dz", "hs[t + 1].T @ dz"), 5,
                                         ["Wh multiplied the previous state h_{t-1}"], ["b's gradient"]),
        "bptt without the carried gradient": (RNN_26.replace("(G[t] + carried)", "G[t]"), 3,
                                              ["leaves out the gradient carried back from the later steps"],
                                              ["1 - h for tanh's slope"]),
        "the softmax's row sum left out": (RNN_26.replace("A * (dA - (dA * A).sum(axis=1, keepdims=True))",
                                                          "A * dA"), 5,
                                           ["your dS looks like A · dA, without the row's sum taken off"],
                                           ["dV is wrong"]),
    },
    29: {
        "the outer tape forgot to watch the constant": (
            FRAMEWORKS_29.replace("        outer.watch(x)\n", ""), 5,
            ["Was a gradient None?", "the outer tape too"], []),
        "output_gradients omitted": (
            FRAMEWORKS_29.replace("tape.gradient(y, x, output_gradients=tk.constant(u))",
                                  "tape.gradient(y, x)"), 5,
            ["that is [1, 1] J", "output_gradients=tk.constant(u)"], []),
        "a non-persistent tape asked twice": (
            FRAMEWORKS_29.replace("tk.GradientTape(persistent=True) as tape:\n        tape.watch(x)\n        y = x ** 2",
                                  "tk.GradientTape() as tape:\n        tape.watch(x)\n        y = x ** 2"), 5,
            ["make it with persistent=True to ask it twice"], []),
    },
    25: {
        # a reader's: the point for doing the gradient check, typed in beside right gradients
        "err_W1 typed as 0": (BACKWARD_25 + "err_W1 = 0.0\n", 2, ["err_W1 is exactly 0"], []),
        "G2 not divided by N": (BACKWARD_25.replace("/ len(y)", ""), 2,
                                ["yours are 8 times the right ones: is G2 divided by N = 8?"],
                                ["through tanh"]),
        "the ReLU's mask for tanh'": (BACKWARD_25.replace("* (1 - h ** 2)", "* (z1 > 0)"), 2,
                                      ["not by the ReLU's mask"], []),
        "the check's forward with the ReLU": (BACKWARD_25.replace("z2 = np.tanh(X @", "z2 = np.maximum(0, X @"), 2,
                                              ["agrees with finite differences", "does your forward pass use tanh"], []),
    },
    "25b": {
        "eps written in": (BACKWARD_25B.replace("x.var(axis=1, keepdims=True) + eps", "x.var(axis=1, keepdims=True) + 1e-3"),
                           3, ["eps included"], []),
        "layer norm over the batch": (BACKWARD_25B.replace("axis=1, keepdims=True", "axis=0, keepdims=True")
                                      .replace("n, Gh = x.shape[1]", "n, Gh = x.shape[0]"), 2,
                                      ["normalized across each row", "use the compact formula across each row"], []),
        "the pool's G not divided by 4": (BACKWARD_25B.replace("axis=1) / 4", "axis=1)"), 3,
                                          ["divided by 4"], []),
    },
    24: {
        # the rules were judged only at autograde (6 of 6 seen), and slope's tape check charged
        # a rule's slip a second time
        "__pow__ without the incoming tangent": (DUAL_24.replace("k * self.value ** (k - 1) * self.tangent",
                                                                 "k * self.value ** (k - 1)"), 4,
                                                 ["multiply by the incoming tangent"], ["GradientTape"]),
        "u**k for u**(k-1)": (DUAL_24.replace("self.value ** (k - 1)", "self.value ** k"), 4,
                              ["should have tangent 3·2²·1 = 12, got 24"],
                              ["seed x with tangent 1", "GradientTape"]),
        "tanh without the incoming tangent": (DUAL_24.replace("(1 - value ** 2) * u.tangent", "(1 - value ** 2)"), 4,
                                              ["the chain rule multiplies the local derivative"], []),
        "1 - tanh for 1 - tanh²": (DUAL_24.replace("(1 - value ** 2)", "(1 - value)"), 4,
                                   ["should be 1 - tanh(0.5)² = 0.786448"], ["slope ="]),
        "the value stored": (DUAL_24.replace(").tangent\n", ").value\n"), 5,
                             ["you stored its value"], []),
        "no tape to check against": (DUAL_24[:DUAL_24.index("xv = ")], 5,
                                     ["no tk.GradientTape of your own"], []),
    },
    23: {
        "op names in the walk's order": (RECORDS_23.replace('if n.id.startswith("n")]', 'if n.id.startswith("n")][::-1]'),
                                         2, ["yours are in the walk's order"], ["x_parts"]),
        "x's two parts swapped": (RECORDS_23.replace("[float(e), float(x0 * e * w0)]", "[float(x0 * e * w0), float(e)]"),
                                  2, ["the right two numbers in the wrong order"], ["add up to", "op_names"]),
        "the factor x that exp passes back forgotten": (RECORDS_23.replace("float(x0 * e * w0)", "float(e * w0)"), 1,
                                                        ["but the tape's dz/dx is", "then exp passes x · exp(x·w)"],
                                                        ["op_names", "wrong order"]),
    },
    "23b": {
        "div's second gradient without its sign": (TAPE_23B.replace("-g * x.data / y.data ** 2", "g * x.data / y.data ** 2"),
                                                   2, ["d(p/q)/dq = -p/q²", "look first at what div sends to its second input"], []),
        "sin's derivative as -cos": (TAPE_23B.replace("g * np.cos(x.data)", "-g * np.cos(x.data)"), 3,
                                     ["should be cos(0.5)"], ["div sends"]),
    },
    22: {
        "fixed without an input_signature": (TRACES_22 + "fixed = tk.function(rescale)\n", 4,
                                             ["fixed traced 5 times"], []),
        "a signature for x only": (TRACES_22 + "fixed = tk.function(rescale, input_signature=[tk.TensorSpec([2], tk.float32)])\n",
                                   4, ["its input_signature lists 1 argument(s), the call gave 2"], []),
    },
    21: {
        "limit a Python number": (CLIP_21.replace('limit = tk.Variable(1.0, name="limit")', "limit = 1.0"), 4,
                                  ["a Python number is frozen into the program"], []),
        "limit read as a number inside": (CLIP_21.replace("tk.minimum(x, limit)", "tk.minimum(x, float(limit.numpy()))"),
                                          4, ["made clip_and_count trace again"], []),
        # TF 2.21 refuses `v += 1` on a variable (RuntimeError); only the count's 2 points go
        "count += 1 on the variable": (CLIP_21.replace("    count.assign_add(1)\n", "    global count\n    count += 1\n"),
                                       5, ["calling clip_and_count raised", "Use v.assign_add(value)"], []),
    },
    20: {
        "stop_training set on the callback": (CALLBACK_20.replace("self.model.stop_training", "self.stop_training"),
                                              2, ["fit reads the model's, self.model.stop_training"], []),
        "the running accuracy after each batch": (
            CALLBACK_20.replace("def on_epoch_end(self, epoch, logs=None)",
                                "def on_train_batch_end(self, batch, logs=None)"), 3,
            ["Check the epoch's accuracy once, when the epoch ends", "let each epoch finish"], []),
        "logs['acc']": (CALLBACK_20.replace('logs["accuracy"]', 'logs["acc"]'), 0,
                        ["raised KeyError: 'acc'", "hold the keys 'loss' and 'accuracy'"], []),
        # a third reader's: "at least target" read as "above target"
        "> for >=": (CALLBACK_20.replace(">= self.target", "> self.target"), 6,
                     ["so compare with >=, not >"], []),
    },
    19: {
        "no sample_weight": (TEST_STEP_19.replace(", sample_weight=tk.shape(x)[0]", ""), 5,
                             ["weight each batch's loss by its size"], []),
        "the accuracy not updated": (TEST_STEP_19.replace("        self.accuracy_metric.update_state(y, logits)\n", ""),
                                     6, ["should update self.accuracy_metric"], []),
        "only the loss returned": (TEST_STEP_19.replace("return {m.name: m.result() for m in self.metrics}",
                                                        "return {'loss': self.loss_tracker.result()}"), 4,
                                   ["return both metrics from test_step"], ["TypeError"]),
        "train_step's update copied in": (TEST_STEP_19.replace(
            "        logits = self(x, training=False)\n",
            "        with tk.GradientTape() as tape:\n            logits = self(x, training=True)\n"
            "            loss = self.loss_fn(y, logits)\n"
            "        grads = tape.gradient(loss, self.trainable_variables)\n"
            "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))\n"), 2,
            ["evaluate changed the weights while it ran", "must not record a tape or apply an update"],
            ["sample_weight"]),
        # a wrong test_step the loss check saw only at autograde, and blamed on sample_weight
        "a loss of its own, not from logits": (
            TEST_STEP_19.replace("self.loss_fn(y, logits)", "tk.losses.SparseCategoricalCrossentropy()(y, logits)"), 5,
            ["is not the mean cross-entropy over all 70 examples", "made with from_logits=True"], ["sample_weight"]),
    },
    16: {
        "each tensor clipped by its own norm": (CLIP_16.replace(
            "    global_norm = np.sqrt(sum(float(np.sum(a ** 2)) for a in arrays))\n"
            "    if global_norm <= clip_norm:\n        return arrays\n"
            "    return [a * (clip_norm / global_norm) for a in arrays]",
            "    return [a * min(1.0, clip_norm / np.sqrt(np.sum(a ** 2))) for a in arrays]"), 4,
            ["each tensor was clipped by its own norm"], []),
        "no square root": (CLIP_16.replace("np.sqrt(sum(float(np.sum(a ** 2)) for a in arrays))",
                                           "sum(float(np.sum(a ** 2)) for a in arrays)"), 4,
                           ["the global norm is its square root"], []),
        "the factor inverted": (CLIP_16.replace("(clip_norm / global_norm)", "(global_norm / clip_norm)"), 4,
                                ["your factor is 13"], []),
        "always scaled": (CLIP_16.replace("    if global_norm <= clip_norm:\n        return arrays\n", ""), 5,
                          ["must come back unchanged"], []),
        # every check clipped at 1.0, where clip_norm / norm and 1 / norm agree: this had 7 of 7
        "clip_norm left out of the factor": (CLIP_16.replace("a * (clip_norm / global_norm)", "a / global_norm"), 5,
                                             ["yours leaves clip_norm out"], ["never clips"]),
        # nothing asked whether small_step came from clip_global: 7 of 7 for a function that never clips
        "never clips, small_step typed": (CLIP_16.replace("    if global_norm <= clip_norm:\n", "    if True:\n")
                                          .replace("small_step = clip_global([tk.constant([3.0, 4.0]), tk.constant([12.0])], 1.0)",
                                                   "small_step = [np.array([3 / 13, 4 / 13]), np.array([12 / 13])]"), 2,
                                          ["store clip_global(...) itself in small_step", "so it never clips"], []),
        # tk.clip_by_global_norm's (list, norm): three NumPy ValueErrors took all 7 points
        "the norm returned with the list": (CLIP_16.replace("        return arrays\n", "        return arrays, global_norm\n")
                                            .replace("return [a * (clip_norm / global_norm) for a in arrays]",
                                                     "return [a * (clip_norm / global_norm) for a in arrays], global_norm"), 5,
                                            ["clip_global should return the list of arrays only"], []),
        # the common factor was judged only at autograde: 7 of 7 seen, 4 graded
        "each tensor scaled to clip_norm / √2": (CLIP_16.replace(
            "return [a * (clip_norm / global_norm) for a in arrays]",
            "return [a / np.sqrt(np.sum(a ** 2)) * clip_norm / np.sqrt(len(arrays)) for a in arrays]"), 4,
            ["every tensor should be multiplied by the same factor"], []),
    },
    17: {
        "W drawn without the seed": (BLOCK_17.replace("tk.random.set_seed(3)\n", ""), 6,
                                     ["set the seed, then draw W first"], []),
        "W not transposed in J_hand": (BLOCK_17.replace("np.asarray(W).T", "np.asarray(W)"), 5,
                                       ["W[j, i] is W transposed, and yours is W[i, j]"], []),
        "x not watched": (BLOCK_17.replace("    tape.watch(x)\n", ""), 1,
                          ["a tk.constant is recorded only after tape.watch(x)"], []),
        # every check asked for all three arrays: J and J_F right, J_hand not yet written, had 1 of 7
        "J_hand not written yet": (BLOCK_17.replace("J_hand = hand_jacobian(x, W)\n", ""), 5,
                                   ["J_hand is still None"], ["J is still None", "J_F is still None"]),
        # judged at the task's x only at autograde: 7 of 7 seen, 1 graded
        "a typo in x": (BLOCK_17.replace("[[0.5, -1.0, 2.0]]", "[[0.5, 1.0, 2.0]]"), 6,
                        ["x should be tk.constant([[0.5, -1.0, 2.0]])"], ["J_F is not", "J is not"]),
        # the tape's (1, 3, 1, 3) cost J_F's check and J_hand's too: 1 of 7
        "J not reshaped": (BLOCK_17.replace("J = tape.jacobian(y, x).numpy().reshape(3, 3)", "J = tape.jacobian(y, x).numpy()"), 5,
                           ["J should be a 3×3 array (reshape the tape's Jacobian)"], ["J_F", "J_hand"]),
        "the block's x left out of J": (BLOCK_17.replace("J = tape.jacobian(y, x)", "J = tape.jacobian(f, x)"), 5,
                                        ["yours is tanh's alone"], []),
    },
    14: {
        "best_epoch counted from 0": (EARLY_14.replace("int(np.argmin(val_losses)) + 1", "int(np.argmin(val_losses))"),
                                      5, ["np.argmin counts from 0: add 1"], []),
        "the training loss appended": (EARLY_14.replace("float(mse(y_va, model_es(x_va)))",
                                                        "float(mse(y_tr, model_es(x_tr)))"), 4,
                                       ["not on the training data"], ["keep copies"]),
        "the variables kept, not copies": (EARLY_14.replace("[v.numpy().copy() for v in model_es.trainable_variables]",
                                                            "list(model_es.trainable_variables)"), 3,
                                           ["keep copies (v.numpy().copy())"], []),
    },
    13: {
        # a reader's: the tape under another name is a tape (the check once swapped the name
        # tk.GradientTape for a counting one and missed it, 5 of 8)
        "GradientTape imported by name": (
            "from tapekit import GradientTape\n" + GD_13.replace(
                "        with tk.GradientTape() as tape:", "        with GradientTape() as tape:"), 8, [], []),
        "w1² for 2·w1² in f": (GD_13.replace("2.0 * w[1] ** 2", "w[1] ** 2"), 6,
                               ["check f itself"], ["should diverge"]),
        "1 / L_max": (GD_13.replace("lr_limit = 2.0 / L_max", "lr_limit = 1.0 / L_max"), 6,
                      ["that is 1 / L_max"], []),
        "the diagonal's largest entry": (GD_13.replace("L_max = float(np.linalg.eigvalsh(H_ex).max())",
                                                       "L_max = float(np.max(np.diag(H_ex)))"), 7,
                                         ["the diagonal's largest entry is not an eigenvalue"], []),
        "gradient ascent": (GD_13.replace("w.assign_sub(", "w.assign_add("), 5,
                            ["a step w + lr · gradient climbs"], []),
        "steps left at 100": (GD_13.replace("range(steps)", "range(100)"), 5,
                              ["use the steps argument"], []),
        # once a TypeError from inside the check, naming nothing
        "w = w - lr · gradient": (GD_13.replace("w.assign_sub(lr * tape.gradient(value, w))",
                                                "w = w - lr * tape.gradient(value, w)"), 5,
                                  ["a None there is most often tape.gradient's", "keep w a tk.Variable"], []),
        # once 8 of 8: the task asks for the tape's gradient at each step
        "run_gd's gradient by hand": (GD_13.replace("w.assign_sub(lr * tape.gradient(value, w))",
                                                    "w.assign_sub(lr * tk.constant([2 * w[0] + w[1], w[0] + 4 * w[1]]))")
                                      .replace("        with tk.GradientTape() as tape:\n            value = f(w)\n", ""),
                                      5, ["run_gd records no tk.GradientTape"], []),
        # once 8 of 8: the task asks for nested tapes
        "H_ex typed in, no tape": (("def f(w):\n    return w[0] ** 2 + w[0] * w[1] + 2.0 * w[1] ** 2\n"
                                   "H_ex = np.array([[2.0, 1.0], [1.0, 4.0]])\n" + GD_13.split("H_ex = outer")[1].split("\n", 1)[1]),
                                   6, ["no tk.GradientTape is left in your answer"], []),
    },
    11: {
        "grad_fn without dy": (TANH_11.replace("return dy * (1.0 - y ** 2)", "return 1.0 - y ** 2"), 4,
                               ["grad_fn must multiply by dy"], ["1 - tanh(x)²"]),
        "1 - x² for 1 - y²": (TANH_11.replace("return dy * (1.0 - y ** 2)", "return dy * (1.0 - x ** 2)"), 3,
                              ["that is 1 - x², from the input"], ["multiply by dy"]),
        "1 - y for 1 - y²": (TANH_11.replace("return dy * (1.0 - y ** 2)", "return dy * (1.0 - y)"), 3,
                             ["that is 1 - y;"], ["multiply by dy"]),
        # a third reader's: the decorator forgotten and the value taken out of the pair. The
        # exercise is the grad_fn, so nothing of it is there to score; every check says why,
        # the hidden ones included (they called sum() on the pair and failed with NumPy's error)
        "no decorator, the value taken from the pair": (
            TANH_11.replace("@tk.custom_gradient\n", "").replace("my_tanh(x))", "my_tanh(x)[0])"), 0,
            ["Decorate it with @tk.custom_gradient", "decorate my_tanh with @tk.custom_gradient"], []),
    },
    "11b": {
        "the max not added back": (LSE_11B.replace("return m + tk.math.log(total)", "return tk.math.log(total)"),
                                   5, ["add it back"], ["grad_fn"]),
        "grad_fn without dy": (LSE_11B.replace("return dy * e / total", "return e / total"), 4,
                               ["grad_fn must multiply by dy"], []),
        "softmax unshifted in grad_fn": (LSE_11B.replace("return dy * e / total",
                                                        "return dy * tk.exp(z) / tk.reduce_sum(tk.exp(z))"),
                                         4, ["from the shifted exponentials"], []),
        "the value unshifted": (LSE_11B.replace("return m + tk.math.log(total)",
                                               "return tk.math.log(tk.reduce_sum(tk.exp(z)))"), 5,
                                ["subtract the max before exp"], []),
        "no decorator": (LSE_11B.replace("@tk.custom_gradient\n", ""), 0,
                         ["decorate lse with @tk.custom_gradient"], ["TypeError"]),
    },
    10: {
        "θ in degrees": (POLAR_10.replace("np.pi / 6", "30.0"), 3, ["θ = 30 read as radians"], []),
        "sin and cos swapped": (POLAR_10.replace("p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])",
                                                 "p[0] * tk.sin(p[1]), p[0] * tk.cos(p[1])"), 3,
                                ["the map is (r cos θ, r sin θ)"], ["det_polar", "col0"]),
        "the tangent (0, 1)": (POLAR_10.replace("[1.0, 0.0]", "[0.0, 1.0]"), 4,
                               ["which is the second column"], []),
        # once told "compute it with ... acc.jvp", which it had done
        "xy left outside the accumulator": (POLAR_10.split("with tk.autodiff")[0]
                                            + "with tk.autodiff.ForwardAccumulator(p, tk.constant([1.0, 0.0])) as acc:\n"
                                            "    pass\ncol0 = acc.jvp(xy)\n", 4,
                                            ["acc.jvp(xy) gives None when xy was computed outside"], ["still None"]),
        # once 6 of 6: the task asks for tape.jacobian
        "J_polar typed in, no tape": (("J_polar = np.array([[np.cos(np.pi / 6), -2 * np.sin(np.pi / 6)],\n"
                                       "                    [np.sin(np.pi / 6), 2 * np.cos(np.pi / 6)]])\n"
                                       "det_polar = float(np.linalg.det(J_polar))\n"
                                       "p = tk.Variable([2.0, np.pi / 6])\n" + POLAR_10.split("det_polar = float(np.linalg.det(J_polar))\n")[1]),
                                      3, ["but no tape returned them"], ["det_polar", "col0"]),
    },
    9: {
        "the mean over N only": (LAYER_09.replace("/ Y.size", "/ len(Y)"), 6,
                                 ["you divided by N = 8 only"], ["db has the right shape"]),
        "the 2 missing": (LAYER_09.replace("2 * (Y - T)", "(Y - T)"), 6, ["the 2 of"], []),
        "T - Y for Y - T": (LAYER_09.replace("2 * (Y - T)", "2 * (T - Y)"), 6,
                            ["its sign is flipped"], []),
        "16 written in": (LAYER_09.replace("/ Y.size", "/ 16"), 6,
                          ["not on other data", "(Y.size)"], []),
        "db averaged": (LAYER_09.replace("G.sum(axis=0)", "G.mean(axis=0)"), 5,
                        ["yours is G averaged"], []),
        # once a ValueError in all four hidden checks on the other data: 0 of 7
        "db from a fixed 8 rows": (LAYER_09.replace("G.sum(axis=0)", "np.ones(8) @ G"), 6,
                                   ["layer_grads raised ValueError on other data"], ["db has"]),
        # once a ValueError in three hidden checks (their factor multiplied (2, 3) by (3, 2)): 0 of 7
        "dW transposed, Gᵀ X": (LAYER_09.replace("X.T @ G,", "G.T @ X,"), 5,
                                ["dW must have W's shape (3, 2), got (2, 3)"], ["G's scale", "db has", "dX has"]),
    },
    7: {
        "b left unwatched": (STEP_07.replace("    tape.watch(b)\n", ""), 2,
                             ["b was created with trainable=False", "call tape.watch(b)"], []),
        "float(w) left in": (STEP_07.replace("pred = w * x", "pred = float(w) * x"), 3,
                             ["float(x) or a NumPy call"], []),
        "the loss left after the block": (STEP_07.replace("    loss = (pred - y_true) ** 2\n", "")
                                          .replace("dw, db = ", "loss = (pred - y_true) ** 2\ndw, db = "), 2,
                                          ["computed after the `with` block ended"],
                                          ["created with trainable=False, so the tape does not watch it by itself"]),
        "w * x - b": (STEP_07.replace("w * x + b", "w * x - b"), 3,
                      ["dloss/db should be 2·(pred - y_true) = 2·(2 - 4) = -4, got 4.0"], ["dloss/dw"]),
        "the loss not squared": (STEP_07.replace("(pred - y_true) ** 2", "(pred - y_true)"), 2,
                                 ["dloss/dw should be 2·(pred - y_true)·x", "got 2.0", "got 1.0"], []),
    },
    3: {
        "sin(x) for sin(x·x) in the tree": (TREE_03.replace('("sin", ("mul", "x", "x")))', '("sin", "x"))'), 4,
                                            ["r_tree is x·sin(x), whose value at 0.7"], ["dr_tree is", "tape_dr is"]),
        "the tape of sin(x·x) alone": (TREE_03.replace("r = x_var * tk.sin(x_var * x_var)",
                                                       "r = tk.sin(x_var * x_var)"), 4,
                                       ["that is the derivative of sin(x·x) alone"], ["r_tree is"]),
        "dr_nodes of the function": (TREE_03.replace("dr_nodes = size(dr_tree)", "dr_nodes = size(r_tree)"), 4,
                                     ["dr_nodes is 6", "that is the size of r_tree"], ["tape_dr is"]),
        "the tape in float32": (TREE_03.replace("dtype=tk.float64", "dtype=tk.float32"), 4,
                                ["to about 7 digits only", "float64"], ["sin(x·x) alone"]),
        "r'(0.7) from dr_tree, no tape": (TREE_03.split("x_var = ")[0] + "tape_dr = float(evaluate(dr_tree, x_at))\n",
                                          4, ["no tk.GradientTape is left in your answer"], ["r_tree is", "dr_tree is"]),
    },
    "03b": {
        "x cubed in q": (CENTRAL_03B.replace("x ** 2 * tk.sin(x)", "x ** 3 * tk.sin(x)"), 5,
                         ["so check q itself"], ["grad_central is off"]),
        "a step of 1e-12": (CENTRAL_03B.replace("eps = 1e-5", "eps = 1e-12"), 5,
                            ["the central difference with ε = 1e-12, a step too small"], []),
        "the forward difference": (CENTRAL_03B.replace("(float(q(up)) - float(q(down))) / (2 * eps)",
                                                      "(float(q(up)) - float(q(x0))) / eps"), 5,
                                   ["that is the forward difference"], ["a step much smaller"]),
        "q in float32": (CENTRAL_03B.replace("dtype=tk.float64)\n    return", "dtype=tk.float32)\n    return")
                         .replace("tk.Variable(x0, dtype=tk.float64)", "tk.Variable(x0, dtype=tk.float32)"),
                         5, ["your q computes in float32"], ["ValueError"]),
        # the tape's call of q counted too (11) is right: the task allows it (a reader lost 2 of
        # 7 points for it when the task asked for the central differences' count alone)
        "the tape's call counted": (CENTRAL_03B.replace("q_calls = central_calls\n", ""), 7, [], []),
        "q counted by hand": (CENTRAL_03B.replace("q_calls = central_calls\n", "q_calls = 10\n")
                              .replace("    q_calls += 1\n", ""), 5,
                              ["q itself should add 1 to q_calls each time it runs"], []),
    },
    1: {
        "float() of each gradient": (GRAD_01.replace("df_da, df_db = tape.gradient(f, [a, b])",
                                                     "df_da, df_db = [float(g) for g in tape.gradient(f, [a, b])]"),
                                     4, [], []),
        "cos for sin": (GRAD_01.replace("tk.sin(a)", "tk.cos(a)"), 3,
                        ["df_da should be b + cos(a)"], ["df_db should be"]),
        "the two swapped": (GRAD_01.replace("df_da, df_db = tape", "df_db, df_da = tape"), 2,
                            ["df_da and df_db are swapped"], []),
        "numbers typed by hand, no tape": ("df_da, df_db = 2 + np.cos(1.0), 1.0\n", 0,
                                           ["no tk.GradientTape is left in your answer"], []),
        # a gradient of an f computed outside the tape: a and b are right, f is not recorded
        "f computed after the block": (GRAD_01.replace("    f = a * b + tk.sin(a)\n", "    pass\nf = a * b + tk.sin(a)\n"),
                                       0, ["the tape did not record f: compute f inside the"],
                                       ["make a and b float tk.Variables"]),
        "a an integer": (GRAD_01.replace("tk.Variable(1.0", "tk.Variable(1"), 0,
                         ["make a and b float tk.Variables"], ["the tape did not record f"]),
    },
    2: {
        "one of p's two contributions": (BACKWARD_02.replace("np.exp(p) + 1.0", "np.exp(p)"), 2,
                                         ["p is used twice"], ["dg_dx should be", "dg_dy should be"]),
        "x and y swapped": (BACKWARD_02.replace("dg_dp * y0, dg_dp * x0", "dg_dp * x0, dg_dp * y0"), 1,
                            ["that is dg_dp · x", "that is dg_dp · y"], ["dg_dp should be"]),
        "dg_dy copied from dg_dx": (BACKWARD_02.replace("dg_dp * y0, dg_dp * x0", "dg_dp * y0, dg_dp * y0"), 2,
                                    ["dg_dy should be dg_dp · x", "that is dg_dp · y"], ["dg_dx should be"]),
        # dg_dx and dg_dy right (read off the tape, as the exercise says to check), dg_dp not:
        # only dg_dp's point goes, and no message asks to change a right number
        "dg_dp wrong, the others right": (BACKWARD_02.replace("dg_dp * y0, dg_dp * x0", "(np.e + 1) * y0, (np.e + 1) * x0")
                                          .replace("np.exp(p) + 1.0", "np.exp(p)"), 2,
                                          ["p is used twice"], ["dg_dx should be", "dg_dy should be"]),
        "all three 0": ("dg_dp = dg_dx = dg_dy = 0.0\n", 0, ["dg_dx is 0", "dg_dy is 0"], []),
    },
    "02b": {
        "the central difference": (FORWARD_02B.replace("(g_of_x(x0 + eps) - g_of_x(x0)) / eps",
                                                       "(g_of_x(x0 + eps) - g_of_x(x0 - eps)) / (2 * eps)"),
                                   2, ["not the central one"], ["tape_dg_dx should be"]),
        "float32": (FORWARD_02B.replace("dtype=tk.float64)) + x * y0", "dtype=tk.float32)) + np.float32(x * y0)"),
                    2, ["compute g in float64"], ["central"]),
        "errors without abs": (FORWARD_02B.replace("abs((g_of_x(x0 + eps) - g_of_x(x0)) / eps - tape_dg_dx)",
                                                   "(g_of_x(x0 + eps) - g_of_x(x0)) / eps - tape_dg_dx"),
                               2, ["an error is the absolute difference"], ["float64"]),
        # a reader's: the first error computed, the others anything with the V's bottom at 1e-8
        "only the first step computed": (FORWARD_02B.replace(
            "fwd_errors = [abs((g_of_x(x0 + eps) - g_of_x(x0)) / eps - tape_dg_dx) for eps in epsilons]",
            "fwd_errors = [abs((g_of_x(x0 + 0.1) - g_of_x(x0)) / 0.1 - tape_dg_dx)] + [1.0] * 6 + [1e-9] + [1.0] * 4"),
            2, ["with its own ε, in the order of epsilons"], []),
        "p's second use left out of the tape": (FORWARD_02B.replace("gv = tk.exp(pv) + pv", "gv = tk.exp(pv)"), 3,
                                                ["the exp's share only", "p = x·y is used twice"],
                                                ["fwd_errors", "best_fwd_eps"]),
    },
    15: {
        "only the last layer tested": (RANGE_15.replace("""\
        if not 0.1 <= float(tk.math.reduce_std(h)) <= 10:
            return False
    return True""", """\
    return bool(0.1 <= float(tk.math.reduce_std(h)) <= 10)"""), 4,
            ["test the standard deviation at every layer, not only at the last"], []),
        "the seed set once, outside": (RANGE_15.replace("    tk.keras.utils.set_random_seed(1)\n", ""), 3,
                                       ["draws other weights each time",
                                        "Call tk.keras.utils.set_random_seed(1) inside it"], []),
        "no relu": (RANGE_15.replace('activation="relu", ', ""), 0,
                    ['activation="relu"'], ["not only at the last"]),
        # these three showed 5 of 5 and lost 2 at autograde, where the range's ends were judged
        "the mean for the standard deviation": (RANGE_15.replace("tk.math.reduce_std(h)", "tk.reduce_mean(h)"), 3,
                                                ["on another batch", "check the standard deviation"], []),
        "seed 0 inside, not 1": (RANGE_15.replace("tk.keras.utils.set_random_seed(1)", "tk.keras.utils.set_random_seed(0)"), 3,
                                 ["on another batch"], ["draws other weights each time"]),
        # a NumPy array for the list: a ValueError ('truth value of an array') took check 2's points
        "good_scales as a NumPy array": (RANGE_15.replace("good_scales = [float(s) for s in candidates if stays_in_range(x, s)]",
                                                          "good_scales = candidates[[stays_in_range(x, s) for s in candidates]]"), 5,
                                         [], []),
    },
    8: {
        "columns stacked for rows": (JAC_08.replace("np.stack(rows)", "np.stack(rows, axis=1)"), 2,
                                     ["jac is J transposed", "did you stack columns?"], []),
        "x1 cubed for x1 squared": (JAC_08.replace("x[1] ** 2", "x[1] ** 3"), 4,
                                    ["row 1 of jac should be", "got [0.0, 12.0, 0.0]"],
                                    ["did you stack columns?"]),
        "x2 - x0 for x0 - x2": (JAC_08.replace("x[0] - x[2]", "x[2] - x[0]"), 4,
                                ["row 2 of jac should be the gradient of y[2] = x0 − x2"], []),
        "row 1 counted from 1": (JAC_08.replace("tk.one_hot(1, 3).numpy()", "tk.one_hot(0, 3).numpy()"),
                                 3, ["that one picks row 0, the first"], []),
        # once 5 of 5: the task asks for the rows from one persistent tape
        "jac typed in, no tape": ("jac = np.array([[2.0, 3.0, 0.0], [0.0, 4.0, 0.0], [1.0, 0.0, -1.0]])\n"
                                  "v_row1 = np.array([0.0, 1.0, 0.0])\n", 2,
                                  ["no tk.GradientTape is left in your answer"], ["row 0 of jac should be"]),
    },
    6: {
        "a constant in the else branch": (RELU_06.replace("return 0.0 * x", "return tk.constant(0.0)")
                                          .replace("float(tape.gradient(mine, x))", "tape.gradient(mine, x)"),
                                          3, ["the gradient at x = -1.0 is None",
                                              "What does your else branch return?"], []),
        "a constant, and float(None) stops the cell": (
            RELU_06.replace("return 0.0 * x", "return tk.constant(0.0)"), 2,
            ["grads_mine holds 0 values, not 2", "float(None) raises a TypeError"], []),
        "x not watched": (RELU_06.replace('tk.Variable(value, name="x")', "tk.constant(value)")
                          .replace("float(tape.gradient(mine, x))", "tape.gradient(mine, x)")
                          .replace("float(tape.gradient(ref, x))", "tape.gradient(ref, x)"), 2,
                          ["so the tape did not watch x"], ["else branch"]),
        "the comparison flipped": (RELU_06.replace("if x > 0:", "if x < 0:"), 3,
                                   ["my_relu(-1.0) should be 0.0, got -1.0"], []),
        "relu of -x": (RELU_06.replace("tk.nn.relu(x)", "tk.nn.relu(-x)"), 4,
                       ["grads_relu should be the gradients of tk.nn.relu(x)"], []),
        "a tape that is not persistent": (RELU_06.replace("(persistent=True)", "()"), 2,
                                          ["grads_mine holds 1 value, not 2",
                                           "a second gradient call on a tape that is not persistent"], []),
        "the points in the order [2.0, -1.0]": (RELU_06.replace("[-1.0, 2.0]", "[2.0, -1.0]"), 2,
                                                ["should be the gradients of my_relu at x = -1.0 and x = 2.0, in that order",
                                                 "[0.0, 1.0] (relu's slope is 0 left of 0"], []),
        "numbers typed by hand, no tape": (RELU_06.split("grads_mine, grads_relu = ")[0]
                                           + "grads_mine, grads_relu = [0.0, 1.0], [0.0, 1.0]\n", 2,
                                           ["no tk.GradientTape is left in your answer"], []),
    },
    12: {
        "learning rate 0.5": (TRAIN_12.replace("learning_rate=0.05", "learning_rate=0.5"), 2,
                              ["the training diverged", "or your learning rate above 0.05"], []),
        "a sum for the mean": (TRAIN_12.replace("reduce_mean", "reduce_sum"), 2,
                               ["a sum instead of a mean"], []),
        "x for x squared": (TRAIN_12.replace("x ** 2 + self.c", "x + self.c"), 2,
                            ["the model a·x + c trains to: the model is a·x² + c"], []),
        "x of shape (50, 1)": (TRAIN_12.replace("tk.constant(xq),", "tk.constant(xq.reshape(-1, 1)),"), 2,
                               ["broadcasts the difference to 50 × 50"], []),
        "the absolute error for the squared": (TRAIN_12.replace("tk.square(", "tk.abs("), 4,
                                               ["another loss fits the data too"], []),
        "least squares, not trained": ("""\
            B = np.stack([xq ** 2, np.ones_like(xq)], axis=1)
            (a_fit, c_fit), *_ = np.linalg.lstsq(B, yq, rcond=None)
            a_fit, c_fit = float(a_fit), float(c_fit)
            """, 2, ["the least-squares values, where SGD ends after many more epochs than 200",
                     "are not the values of variables you trained"], []),
        "199 epochs": (TRAIN_12.replace("range(200)", "range(199)"), 6, [], []),
    },
    4: {
        "gradients as NumPy values": ("""\
            with tk.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch([w2, x])
                h = w1 * x
                y = w2 * h ** 2
            dw2, dx, dw1, dh = [None if g is None else g.numpy()
                                for g in tape.gradient(y, [w2, x, w1, h])]
            """, 6, [], []),
        "h cubed for h squared": ("""\
            with tk.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch([w2, x])
                h = w1 * x
                y = w2 * h ** 3
            dw2, dx, dw1, dh = tape.gradient(y, [w2, x, w1, h])
            """, 4, ["dw2 should be dy/dw2 = h² = 6² = 36, got 216", "got -108: check y = w2 · h²"],
            ["dx should be"]),
        "x not watched": ("""\
            with tk.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(w2)
                h = w1 * x
                y = w2 * h ** 2
            dw2, dx, dw1, dh = tape.gradient(y, [w2, x, w1, h])
            """, 3, ["dx is None: the tape did not record x", "(dx is None too: watch x)"], []),
        "h watched, x not": ("""\
            with tk.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(w2)
                h = w1 * x
                tape.watch(h)
                y = w2 * h ** 2
            dw2, dx, dw1, dh = tape.gradient(y, [w2, x, w1, h])
            """, 4, ["dx is None: the tape did not record x"], ["dh is None"]),
        "h computed after the block": ("""\
            with tk.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch([w2, x])
                y = w2 * (w1 * x) ** 2
            h = w1 * x
            dw2, dx, dw1, dh = tape.gradient(y, [w2, x, w1, h])
            """, 5, ["dh is None: the tape did not record h", "inside the tape's block"], []),
        "numbers typed by hand, no tape": ("dw2, dx, dw1, dh = 36.0, -24.0, None, -12.0\n", 0,
                                           ["no tk.GradientTape is left in your answer"], []),
        "the default tape": ("""\
            with tk.GradientTape() as tape:
                tape.watch(x)
                h = w1 * x
                y = w2 * h ** 2
            dw2, dx, dw1, dh = tape.gradient(y, [w2, x, w1, h])
            """, 4, ["your tape still watched w1"], []),
        "-w2 for w2": ("""\
            with tk.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch([w2, x])
                h = w1 * x
                y = -w2 * h ** 2
            dw2, dx, dw1, dh = tape.gradient(y, [w2, x, w1, h])
            """, 4, ["dw2 should be dy/dw2 = h² = 6² = 36, got -36", "got 12: check y = w2 · h²"],
            ["dx should be"]),
        # the right gradients unpacked in another order than the list's
        "dh and dw1 swapped in the unpacking": ("""\
            with tk.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch([w2, x])
                h = w1 * x
                y = w2 * h ** 2
            dw2, dx, dh, dw1 = tape.gradient(y, [w2, x, w1, h])
            """, 3, ["dh is None and dw1 holds a number, though your tape did not watch w1: the two are swapped",
                     "your tape did not watch w1, so dw1 holds another gradient"],
            ["the tape did not record h", "your tape still watched w1"]),
    },
    18: {
        "the sum of all scores": ("""\
            tk.random.set_seed(5)
            W = tk.random.normal((64, 10))
            image_a = tk.random.uniform((1, 64))
            image_b = tk.random.uniform((1, 64))
            maps = []
            for image in [image_a, image_b]:
                with tk.GradientTape() as tape:
                    tape.watch(image)
                    score = tk.reduce_sum(image @ W)
                maps.append(tape.gradient(score, image).numpy().reshape(8, 8))
            saliency_a, saliency_b = maps
            """, 2, ["you differentiated the sum of all the scores", "the same slip"], []),
        "class 2 for class 3": ("""\
            tk.random.set_seed(5)
            W = tk.random.normal((64, 10))
            image_a = tk.random.uniform((1, 64))
            image_b = tk.random.uniform((1, 64))
            def saliency(image):
                with tk.GradientTape() as tape:
                    tape.watch(image)
                    score = (image @ W)[0, 2]
                return tape.gradient(score, image).numpy().reshape(8, 8)
            saliency_a, saliency_b = saliency(image_a), saliency(image_b)
            """, 2, ["saliency_a is class 2's map", "counted from 0"], ["sum"]),
        "W drawn after the images": ("""\
            tk.random.set_seed(5)
            image_a = tk.random.uniform((1, 64))
            image_b = tk.random.uniform((1, 64))
            W = tk.random.normal((64, 10))
            def saliency(image):
                with tk.GradientTape() as tape:
                    tape.watch(image)
                    score = (image @ W)[0, 3]
                return tape.gradient(score, image).numpy().reshape(8, 8)
            saliency_a, saliency_b = saliency(image_a), saliency(image_b)
            """, 4, ["set the seed first, then draw W"], ["class 3's score alone"]),
        "the map transposed": ("""\
            tk.random.set_seed(5)
            W = tk.random.normal((64, 10))
            image_a = tk.random.uniform((1, 64))
            image_b = tk.random.uniform((1, 64))
            def saliency(image):
                with tk.GradientTape() as tape:
                    tape.watch(image)
                    score = (image @ W)[0, 3]
                return tape.gradient(score, image).numpy().reshape(8, 8).T
            saliency_a, saliency_b = saliency(image_a), saliency(image_b)
            """, 2, ["W's column 3 transposed", ".reshape(8, 8)"], []),
        "the image not watched": ("""\
            tk.random.set_seed(5)
            W = tk.random.normal((64, 10))
            image_a = tk.random.uniform((1, 64))
            image_b = tk.random.uniform((1, 64))
            def saliency(image):
                with tk.GradientTape() as tape:
                    score = (image @ W)[0, 3]
                return tape.gradient(score, image).numpy().reshape(8, 8)
            saliency_a, saliency_b = saliency(image_a), saliency(image_b)
            """, 1, ["records only after tape.watch(image)"], []),
    },
}

PENALTY_28 = """\
def penalized_loss(w, b, x, y, lam):
    with tk.GradientTape() as inner:
        inner.watch(x)
        f = tk.tanh(tk.matmul(x, w) + b)
    dfdx = inner.gradient(f, x)
    penalty = tk.reduce_mean(tk.reduce_sum(dfdx ** 2, axis=1))
    return tk.reduce_mean((f - y) ** 2) + lam * penalty


def penalized_grads(w, b, x, y, lam):
    with tk.GradientTape() as outer:
        loss = penalized_loss(w, b, x, y, lam)
    return outer.gradient(loss, [w, b])


def newton_step(f, v):
    with tk.GradientTape() as outer:
        with tk.GradientTape() as inner:
            fv = f(v)
        g = inner.gradient(fv, v)
    H = outer.jacobian(g, v)
    return v - tk.linalg.solve(H, g[:, None])[:, 0]
"""

SLIPS[28] = {
    # section 2's silent bug: the penalty's value is right, its part of the gradient missing
    "the inner gradient through NumPy": (
        PENALTY_28.replace("dfdx = inner.gradient(f, x)", "dfdx = inner.gradient(f, x).numpy()")
        .replace("penalty = tk.reduce_mean(tk.reduce_sum(dfdx ** 2, axis=1))",
                 "penalty = np.mean(np.sum(dfdx ** 2, axis=1))"), 4,
        ["are not those of your own penalized_loss", "the penalty's part is missing"], []),
    "the norm, not its square": (
        PENALTY_28.replace("tk.reduce_sum(dfdx ** 2, axis=1)", "tk.norm(dfdx, axis=1)"), 5,
        ["the penalty is the mean over the examples of the *squared* norm"], ["are not those of your own"]),
    "newton_step moves v itself": (
        PENALTY_28.replace("return v - tk.linalg.solve(H, g[:, None])[:, 0]",
                           "return v.assign_sub(tk.linalg.solve(H, g[:, None])[:, 0])"), 6,
        ["newton_step changed v: return the new point, leave v as it was"], ["the Hessian is"]),
    "the loss outside the outer tape": (
        PENALTY_28.replace("    with tk.GradientTape() as outer:\n        loss = penalized_loss(w, b, x, y, lam)\n",
                           "    with tk.GradientTape() as outer:\n        pass\n    loss = penalized_loss(w, b, x, y, lam)\n"), 4,
        ["a gradient is None: the loss was not recorded by the outer tape"], []),
    "Newton's step added": (PENALTY_28.replace("return v - tk.linalg.solve", "return v + tk.linalg.solve"), 5,
                            ["that is v + H⁻¹g: subtract the step"], []),
    "a gradient step for Newton's": (
        PENALTY_28.replace("    H = outer.jacobian(g, v)\n    return v - tk.linalg.solve(H, g[:, None])[:, 0]",
                           "    return v - g"), 5,
        ["that is v - g, a gradient step: multiply g by the inverse Hessian"], []),
}


def _order(number):
    """Course order of a SLIPS key: 2, then "02b", then 3."""
    return (int(re.match(r"\d+", str(number))[0]), isinstance(number, str))


# Every lesson but 09, whose hidden tests add other data (a fixed 8 rows, 16 written in)
# that the exercise's own data cannot show.
SEEN_BEFORE_SUBMITTING = set(SLIPS) - {9}

CASES = [(n, slip) for n in sorted(SLIPS, key=_order) for slip in SLIPS[n]]


@pytest.mark.slow
@pytest.mark.parametrize("number", sorted(SLIPS, key=_order))
def test_the_solution_gets_full_marks_seen_and_graded(number):
    points, graded = _graded(number)
    assert graded["solution"]["hidden"] == graded["solution"]["visible"] == (points, [])


@pytest.mark.slow
@pytest.mark.parametrize("number, slip", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_one_slip_costs_only_its_points(number, slip):
    _, want, says, not_says = SLIPS[number][slip]
    points, graded = _graded(number)
    got, messages = graded[slip]["hidden"]
    text = "\n".join(messages)
    assert got == want, f"lesson {number}, {slip}: {got}/{points} at autograde, not {want}:\n{text}"
    assert all(m.startswith("AssertionError: ") for m in messages), text
    for words in says:
        assert words in text, f"lesson {number}, {slip}: the feedback does not say {words!r}:\n{text}"
    for words in not_says:
        assert words not in text, f"lesson {number}, {slip}: the feedback says {words!r}:\n{text}"
    # What the student sees before submitting claims nothing the graded run contradicts: each
    # check failing there fails at autograde too, with the same message.
    seen, seen_messages = graded[slip]["visible"]
    assert seen >= got and set(seen_messages) <= set(messages), (seen_messages, messages)
    # In these lessons the visible checks catch every slip the hidden tests catch: a student
    # never sees full marks before submitting an answer that autograde marks down.
    if number in SEEN_BEFORE_SUBMITTING and got < points:
        assert seen < points, f"lesson {number}, {slip}: {points}/{points} seen, {got} at autograde:\n{text}"


# nbgrader's own autograde gives the points the runs above give: a few slips of three lessons,
# graded in one course (as tests/teach/test_assignments.py grades lesson 05's slips).
BY_NBGRADER = {4: ["x not watched", "h cubed for h squared"], 9: ["the mean over N only"],
               18: ["W drawn after the images"]}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_nbgrader_gives_the_same_points(tmp_path):
    pytest.importorskip("nbgrader", reason="the [teach] extra (nbgrader) is not installed")
    from tapekit.teach.assignments import build_course
    from tapekit.teach.grading import generate_release, grade_answers
    course = tmp_path / "course"
    exercises = {n: build_course([_lesson(n)], course, log=lambda s: None)[0] for n in BY_NBGRADER}
    generate_release(course, [ex.name for ex in exercises.values()], log=lambda s: None)
    answers = {}
    for n, slips in BY_NBGRADER.items():
        ex = exercises[n]
        for k, slip in enumerate(slips):     # the student types below the exercise cell's lines
            answers[(ex.name, f"s{k}")] = f"{ex.skeleton.rstrip()}\n{textwrap.dedent(SLIPS[n][slip][0])}"
    result = grade_answers(course, answers, feedback=False)
    for n, slips in BY_NBGRADER.items():
        for k, slip in enumerate(slips):
            graded = result[(exercises[n].name, f"s{k}")]
            assert graded["score"] == SLIPS[n][slip][1] == _graded(n)[1][slip]["hidden"][0], (n, slip, graded)
            text = " ".join(m for _, _, m in graded["failures"])
            assert all(words in text for words in SLIPS[n][slip][2]), (n, slip, text)
