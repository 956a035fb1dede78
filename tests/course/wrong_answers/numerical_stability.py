# A common mistake: grad_fn returns the shifted exponentials without dividing by their sum.
# At z = (1, 2, 1000) that is softmax(z) already (the sum is 1 + tiny), so the first check
# passes; at other points the gradient is too large.
@tk.custom_gradient
def lse(z):
    m = tk.reduce_max(z)
    e = tk.exp(z - m)
    total = tk.reduce_sum(e)
    def grad_fn(dy):
        return dy * e
    return m + tk.math.log(total), grad_fn


z = tk.Variable([1.0, 2.0, 1000.0], name="z")
with tk.GradientTape() as tape:
    value = lse(z)
grad = tape.gradient(value, z)
