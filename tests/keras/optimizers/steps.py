"""What the optimizer tests share: five gradients applied to one variable from one start."""
import numpy as np

import tapekit as tk

GRADS = [np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.3, -0.2]), np.array([-1.0, 0.0, 0.7]),
         np.array([2.0, -0.5, 0.05]), np.array([0.3, 0.3, 0.3])]
START = np.array([1.0, -2.0, 0.5])


def run(optimizer, dtype=np.float64):
    var = tk.Variable(START, dtype=dtype)
    for g in GRADS:
        optimizer.apply_gradients([(tk.constant(g.astype(dtype)), var)])
    return var.numpy()


def lr32(lr):
    # Keras keeps the learning rate in a float32 variable and casts it to the variable's dtype.
    return float(np.float32(lr))
