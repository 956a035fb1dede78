# The student takes tanh's slope as 1 - h (not 1 - h²) in BPTT, and leaves the row sum out of
# the softmax's backward (dS = A · dA); dV is right.
def bptt_grads(X, h0, Wx, Wh, b, G):
    hs = [h0]
    for x in X:
        hs.append(np.tanh(x @ Wx + hs[-1] @ Wh + b))
    grads = {"Wx": np.zeros_like(Wx), "Wh": np.zeros_like(Wh), "b": np.zeros_like(b)}
    carried = np.zeros_like(h0)
    for t in reversed(range(len(X))):
        dz = (G[t] + carried) * (1 - hs[t + 1])
        grads["Wx"] += X[t].T @ dz
        grads["Wh"] += hs[t].T @ dz
        grads["b"] += dz.sum(axis=0)
        carried = dz @ Wh.T
    grads["h0"] = carried
    return grads


def attention_grads(Q, K, V, G):
    d = Q.shape[1]
    S = Q @ K.T / np.sqrt(d)
    A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    dS = A * (G @ V.T)
    return dS @ K / np.sqrt(d), dS.T @ Q / np.sqrt(d), A.T @ G
