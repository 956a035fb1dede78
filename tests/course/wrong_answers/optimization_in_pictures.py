# A student who takes 1 / L, the "safe" step size, for the largest learning rate that
# converges, instead of 2 / L.
def f(w):
    return w[0] ** 2 + w[0] * w[1] + 2.0 * w[1] ** 2


w = tk.Variable([1.0, 1.0])
with tk.GradientTape() as outer:
    with tk.GradientTape() as inner:
        value = f(w)
    gradient = inner.gradient(value, w)
H_ex = outer.jacobian(gradient, w).numpy()
L_max = float(np.linalg.eigvalsh(H_ex).max())
lr_limit = 1.0 / L_max


def run_gd(lr, steps=100):
    w = tk.Variable([1.0, 1.0])
    for _ in range(steps):
        with tk.GradientTape() as tape:
            value = f(w)
        w.assign_sub(lr * tape.gradient(value, w))
    return float(f(w))
