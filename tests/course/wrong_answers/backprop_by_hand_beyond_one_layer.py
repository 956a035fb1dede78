# The student keeps the ReLU's mask in the tanh network; the gradient check is computed
# honestly, so it shows the slip (a large err_W1).
def mlp_tanh_grads(p, X, y):
    z1 = X @ p["W1"] + p["b1"]
    h = np.tanh(z1)
    z2 = h @ p["W2"] + p["b2"]
    e = np.exp(z2 - z2.max(axis=1, keepdims=True))
    prob = e / e.sum(axis=1, keepdims=True)
    G2 = (prob - np.eye(prob.shape[1])[y]) / len(y)
    G1 = (G2 @ p["W2"].T) * (z1 > 0)
    return {"W1": X.T @ G1, "b1": G1.sum(axis=0), "W2": h.T @ G2, "b2": G2.sum(axis=0)}


def tanh_loss(p, X, y):
    z2 = np.tanh(X @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    e = np.exp(z2 - z2.max(axis=1, keepdims=True))
    return -np.log((e / e.sum(axis=1, keepdims=True))[np.arange(len(y)), y]).mean()


err_W1 = rel_error(mlp_tanh_grads(p_ex, X_ex, y_ex)["W1"],
                   numerical_grad(lambda: tanh_loss(p_ex, X_ex, y_ex), p_ex["W1"]))
