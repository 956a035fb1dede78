# A student's answer: the Hessian is right, but H v is taken as "the gradient of the
# gradient, then times v", which multiplies H's column sums by v.
x = tk.Variable(1.0, name="x")
y = tk.Variable(2.0, name="y")
v = [1.0, -1.0]

with tk.GradientTape(persistent=True) as outer:
    with tk.GradientTape() as inner:
        f = x ** 2 * y + y ** 3
    gx, gy = inner.gradient(f, [x, y])

hessian = np.array([[float(d) for d in outer.gradient(gx, [x, y])],
                    [float(d) for d in outer.gradient(gy, [x, y])]])
gv = gx * v[0] + gy * v[1]
hvp = np.array([float(d) for d in outer.gradient([gx, gy], [x, y])]) * np.array(v)
