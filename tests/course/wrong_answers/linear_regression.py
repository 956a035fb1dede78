# A student who takes a step ten times too small (0.005 instead of 0.05): after 200 epochs
# the parameters are still on their way.
class QuadraticModel(tk.Module):
    def __init__(self):
        super().__init__()
        self.a = tk.Variable(0.0, name="a")
        self.c = tk.Variable(0.0, name="c")

    def __call__(self, x):
        return self.a * x ** 2 + self.c


quad = QuadraticModel()
opt = tk.optimizers.SGD(learning_rate=0.005)
xq_t, yq_t = tk.constant(xq), tk.constant(yq)
for epoch in range(200):
    with tk.GradientTape() as tape:
        loss = tk.reduce_mean(tk.square(yq_t - quad(xq_t)))
    grads = tape.gradient(loss, quad.trainable_variables)
    opt.apply_gradients(zip(grads, quad.trainable_variables))
a_fit, c_fit = float(quad.a), float(quad.c)
