# The student writes zero_grad but never calls it: train_step's gradients add up from step to
# step (the first step is right, every later one moves by the sum of all gradients so far).
def zero_grad(params):
    for p in params:
        p.grad = 0.0


def train_step(model, xs, ys, lr):
    params = model.parameters()
    TAPE.clear()
    loss = mse(model, xs, ys)
    backward(loss, params)
    for p in params:
        p.data = p.data - lr * p.grad
    return float(loss.data)


model_ex = MLP(3, [5, 1], np.random.default_rng(271))
losses_ex = [train_step(model_ex, xs_ex, ys_ex, 0.2) for _ in range(200)]
