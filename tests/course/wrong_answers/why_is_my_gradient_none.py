# A common mistake: three of the four bugs fixed, but b (trainable=False) is never watched,
# so its gradient is still None while w's is right.
w = tk.Variable(1.0, name="w")
b = tk.Variable(0.0, trainable=False, name="b")
x, y_true = 2.0, 4.0

with tk.GradientTape() as tape:
    pred = w * x + b
    loss = (pred - y_true) ** 2

dw, db = tape.gradient(loss, [w, b])
print(dw, db)
