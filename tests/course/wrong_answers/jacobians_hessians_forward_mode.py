# A student who writes the angle in degrees: theta = 30 instead of pi/6.
p = tk.Variable([2.0, 30.0])

with tk.GradientTape() as tape:
    xy = tk.stack([p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])])
J_polar = tape.jacobian(xy, p).numpy()
det_polar = float(np.linalg.det(J_polar))

with tk.autodiff.ForwardAccumulator(p, tk.constant([1.0, 0.0])) as acc:
    xy = tk.stack([p[0] * tk.cos(p[1]), p[0] * tk.sin(p[1])])
col0 = acc.jvp(xy).numpy()
