# A student's answer: the tape records g with p's second use (the add) forgotten, so its
# dg/dx is the exp's share only; the errors are then measured against that number.
xv = tk.Variable(x0, dtype=tk.float64)
with tk.GradientTape() as tape:
    gv = tk.exp(xv * y0)
tape_dg_dx = float(tape.gradient(gv, xv))


def g(x):
    return float(tk.exp(tk.constant(x * y0, dtype=tk.float64)) + x * y0)


fwd_errors = [abs((g(x0 + eps) - g(x0)) / eps - tape_dg_dx) for eps in epsilons]
best_fwd_eps = epsilons[int(np.argmin(fwd_errors))]
