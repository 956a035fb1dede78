# A student's answer: the tape records sin(x·x) and forgets r's outer factor x, so its
# gradient lacks the product rule's sin(x·x); the trees are right.
r_tree = ("mul", "x", ("sin", ("mul", "x", "x")))
dr_tree = derivative(r_tree)
dr_nodes = size(dr_tree)

x = tk.Variable(x_at, dtype=tk.float64)
with tk.GradientTape() as tape:
    y = tk.sin(x * x)
tape_dr = float(tape.gradient(y, x))
