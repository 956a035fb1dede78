# A student's answer: the default tape, which watches every trainable variable, so w1 is not frozen.
w1 = tk.Variable(2.0, name="w1")
w2 = tk.Variable(-1.0, name="w2")
x = tk.constant(3.0)

with tk.GradientTape() as tape:
    tape.watch(x)
    h = w1 * x
    y = w2 * h ** 2

dw2, dx, dw1, dh = tape.gradient(y, [w2, x, w1, h])
