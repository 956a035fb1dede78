# A student who takes the Jacobian of the block's layer F only, forgetting that the block
# adds x: J comes out as dF/dx, with no identity.
tk.random.set_seed(3)
W = tk.random.normal((3, 3))
x = tk.constant([[0.5, -1.0, 2.0]])
with tk.GradientTape(persistent=True) as tape:
    tape.watch(x)
    f = tk.tanh(x @ W)
J = tape.jacobian(f, x).numpy().reshape(3, 3)
J_F = tape.jacobian(f, x).numpy().reshape(3, 3)
t = np.tanh(x.numpy() @ W.numpy())[0]
J_hand = (1 - t ** 2)[:, None] * W.numpy().T
