# The student takes the inner gradient out of the tape with .numpy() (the penalty's value is
# right, its part of the gradient silently missing) and adds Newton's step instead of
# subtracting it.
def penalized_loss(w, b, x, y, lam):
    with tk.GradientTape() as inner:
        inner.watch(x)
        f = tk.tanh(tk.matmul(x, w) + b)
    dfdx = inner.gradient(f, x).numpy()
    penalty = np.mean(np.sum(dfdx ** 2, axis=1))
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
    return v + tk.linalg.solve(H, g[:, None])[:, 0]
