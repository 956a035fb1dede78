# A student's answer: p's gradient from the exp only; the second use of p (the add) forgotten.
x0, y0 = 0.5, 2.0
epsilons = [10.0 ** -k for k in range(1, 13)]
p = x0 * y0
dg_dp = np.exp(p)
dg_dx, dg_dy = dg_dp * y0, dg_dp * x0


def g(x):
    return float(tk.exp(tk.constant(x * y0, dtype=tk.float64)) + x * y0)


xv = tk.Variable(x0, dtype=tk.float64)
with tk.GradientTape() as tape:
    gv = tk.exp(xv * y0) + xv * y0
tape_dg_dx = float(tape.gradient(gv, xv))
fwd_errors = [abs((g(x0 + eps) - g(x0)) / eps - tape_dg_dx) for eps in epsilons]
best_fwd_eps = epsilons[int(np.argmin(fwd_errors))]
