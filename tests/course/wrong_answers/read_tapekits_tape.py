# A student's answer: the ops read off in the walk's order (last record first), and x's second
# contribution without the factor x that exp passes back to x·w.
x = tk.Variable(x0, dtype=tk.float64)
w = tk.Variable(w0, dtype=tk.float64)
with tk.GradientTape() as tape:
    z = tk.exp(x * w) * x + w
op_names = [n.label for n in tk.display.build(tape).nodes if n.id.startswith("n")][::-1]
e = np.exp(x0 * w0)
x_parts = [float(e), float(e * w0)]
