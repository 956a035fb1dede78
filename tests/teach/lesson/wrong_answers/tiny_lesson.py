# A student differentiates the lesson's own example (x ** 2) instead of x ** 3.
x = tk.Variable(2.0)
with tk.GradientTape() as tape:
    f = x ** 2
slope = tape.gradient(f, x)
