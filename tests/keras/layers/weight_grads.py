"""A layer's weight gradients checked against central differences (shared by the layer tests)."""
import math

import numpy as np

import tapekit as tk


def weight_grads_match(layer, x, training=None, eps=1e-6):
    """The tape's gradient of sum(layer(x) * w) for every trainable weight matches central
    differences (the weight perturbed in place)."""
    out_shape = layer(x, training=training).shape
    w = np.cos(np.arange(math.prod(out_shape)) + 0.3).reshape(out_shape)

    def loss():
        return tk.reduce_sum(layer(x, training=training) * w)
    with tk.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, layer.trainable_weights)
    for var, g in zip(layer.trainable_weights, grads):
        base = var.numpy().copy()
        num = np.zeros(base.shape)
        for idx in np.ndindex(*base.shape):
            for sign in (1, -1):
                v = base.copy()
                v[idx] += sign * eps
                var.assign(v)
                num[idx] += sign * float(loss()) / (2 * eps)
        var.assign(base)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-7)
