# The bias is shared by the batch, so the student averages its gradient over the batch.
Y_ex = X_ex @ W_ex + b_ex
G_ex = 2 * (Y_ex - T_ex) / Y_ex.size
dW = X_ex.T @ G_ex
db = G_ex.mean(axis=0)
dX = G_ex @ W_ex.T
