"""AdamW: Adam with decoupled weight decay (Keras 3's, weight_decay=0.004 by default)."""
from .adam import Adam


class AdamW(Adam):
    """Adam whose every step first shrinks each weight by `weight_decay * learning_rate`
    (`w -= w * weight_decay * lr`, decoupled from the gradient, as in Keras 3; the base
    class's weight decay), then takes Adam's step. weight_decay must be a number.

    >>> w = tk.Variable(1.0)
    >>> opt = tk.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
    >>> _ = opt.apply_gradients([(tk.constant(0.0), w)])     # a zero gradient: decay alone
    >>> round(float(w), 6)
    0.95
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, name="AdamW", **kwargs):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, name=name,
                         weight_decay=weight_decay, **kwargs)
