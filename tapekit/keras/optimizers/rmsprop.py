"""RMSprop: steps scaled by a running mean of squared gradients; centered and momentum forms."""
from ...ops import sqrt, square
from .base_optimizer import Optimizer, checked_hyperparameter


class RMSprop(Optimizer):
    """RMSprop (`tf.keras.optimizers.RMSprop`):

        velocity = rho * velocity + (1 - rho) * g**2
        w -= learning_rate * g / sqrt(velocity + epsilon)

    `centered=True` subtracts the squared running mean of g inside the sqrt; `momentum`
    accumulates the increments (plain momentum, not Nesterov).

    >>> w = tk.Variable(1.0)
    >>> opt = tk.optimizers.RMSprop(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(tk.constant(2.0), w)])      # 1 - 0.1 * 2 / sqrt(0.1 * 4)
    >>> round(float(w.numpy()), 4)
    0.6838
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False,
                 name="RMSprop", **kwargs):
        rho = checked_hyperparameter("RMSprop", "rho", rho, 0, 1)
        momentum = checked_hyperparameter("RMSprop", "momentum", momentum, 0, 1, high_open=False)
        epsilon = checked_hyperparameter("RMSprop", "epsilon", epsilon, 0)
        super().__init__(learning_rate, name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered
        self._hyperparameters = ("rho", "momentum", "epsilon", "centered")
        # Keras 3's build: every velocity, then every momentum, then every average_gradient
        self._slot_groups = ((("velocity",),) + ((("momentum",),) if momentum > 0 else ())
                             + ((("average_gradient",),) if centered else ()))
        self._slot_names = sum(self._slot_groups, ())

    def _update(self, g, var, slots, lr):
        rho = self.rho
        velocity = slots["velocity"]
        velocity.assign(rho * velocity + (1 - rho) * square(g))
        if self.centered:
            average = slots["average_gradient"]
            average.assign(rho * average + (1 - rho) * g)
            denominator = velocity - square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = lr * g / sqrt(denominator)
        if self.momentum > 0:
            momentum = slots["momentum"]
            momentum.assign(self.momentum * momentum + increment)
            var.assign_sub(momentum)
        else:
            var.assign_sub(increment)
