"""SGD: gradient descent, with optional (Nesterov) momentum."""
from .base_optimizer import Optimizer, checked_hyperparameter


class SGD(Optimizer):
    """Gradient descent, with optional (Nesterov) momentum (`tf.keras.optimizers.SGD`).

        velocity = momentum * velocity - learning_rate * g
        w += velocity                                    (nesterov=False)
        w += momentum * velocity - learning_rate * g     (nesterov=True)

    and plain `w -= learning_rate * g` when momentum is 0.

    >>> w = tk.Variable(1.0)
    >>> opt = tk.optimizers.SGD(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(tk.constant(2.0), w)])      # w - 0.1 * 2
    >>> w
    <tk.Variable 'Variable:0' shape=() dtype=float32, numpy=0.8>
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        momentum = checked_hyperparameter("SGD", "momentum", momentum, 0, 1, high_open=False)
        super().__init__(learning_rate, name, **kwargs)
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        self._hyperparameters = ("momentum", "nesterov")
        self._slot_names = ("momentum",) if self.momentum != 0 else ()

    def _update(self, g, var, slots, lr):
        if not slots:
            var.assign_sub(g * lr)
            return
        m = slots["momentum"]
        m.assign(m * self.momentum - g * lr)
        if self.nesterov:
            var.assign_add(m * self.momentum - g * lr)
        else:
            var.assign_add(m)
