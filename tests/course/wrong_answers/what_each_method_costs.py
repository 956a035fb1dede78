# A smaller step must be more accurate, the student thinks, and takes eps = 1e-12.
x0 = np.array([0.3, -1.2, 2.0, 0.5, 1.7])
q_calls = 0


def q(x):
    global q_calls
    q_calls += 1
    x = tk.convert_to_tensor(x, dtype=tk.float64)
    return tk.reduce_sum(x ** 2 * tk.sin(x))


eps = 1e-12
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
