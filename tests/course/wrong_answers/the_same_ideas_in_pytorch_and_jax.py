# The student stops at the first derivative (one tape, as if create_graph were enough), takes
# the reverse-mode product for the forward one (t J for J t), and asks a non-persistent tape
# twice; vjp is right.
def second_derivative(f, x):
    x = tk.Variable(x)
    with tk.GradientTape() as tape:
        y = f(x)
    return float(tape.gradient(y, x))


def vjp(f, x, u):
    x = tk.constant(x)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, output_gradients=tk.constant(u)).numpy()


def jvp(f, x, t):
    return vjp(f, x, t)


def two_grads(x_value):
    x = tk.Variable(x_value)
    with tk.GradientTape() as tape:
        y = x ** 2
        z = tk.sin(y)
    return float(tape.gradient(y, x)), float(tape.gradient(z, x))
