# The student normalizes layer norm over the batch (axis 0, batch normalization's axis)
# instead of across each row; the pool is right.
def avg_pool_backward(G):
    return np.kron(G, np.ones((2, 2))) / 4


def layer_norm_backward(G, x, gamma, eps=1e-3):
    s = 1 / np.sqrt(x.var(axis=0) + eps)
    x_hat = (x - x.mean(axis=0)) * s
    n, Gh = len(x), G * gamma
    dx = s / n * (n * Gh - Gh.sum(axis=0) - x_hat * (Gh * x_hat).sum(axis=0))
    return dx, (G * x_hat).sum(axis=0), G.sum(axis=0)
