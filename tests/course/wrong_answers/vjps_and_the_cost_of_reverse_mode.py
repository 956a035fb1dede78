# A student who stacks the three vector-Jacobian products as columns instead of rows,
# so that jac comes out transposed.
x = tk.Variable([3.0, 2.0, 1.0], name="x")
with tk.GradientTape(persistent=True) as tape:
    y = tk.stack([x[0] * x[1], x[1] ** 2, x[0] - x[2]])

rows = [tape.gradient(y, x, output_gradients=tk.one_hot(i, 3)).numpy() for i in range(3)]
jac = np.stack(rows, axis=1)
v_row1 = tk.one_hot(1, 3).numpy()
