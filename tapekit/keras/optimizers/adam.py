"""Adam: moment estimates with the bias correction folded into the step size."""
import numpy as np

from ...ops import maximum, pow, sqrt, square
from .base_optimizer import Optimizer, checked_hyperparameter


class Adam(Optimizer):
    """Adam (`tf.keras.optimizers.Adam`), with the bias correction folded into the step size:

        m += (g - m) * (1 - beta_1);  v += (g**2 - v) * (1 - beta_2)
        alpha = learning_rate * sqrt(1 - beta_2**t) / (1 - beta_1**t)
        w -= alpha * m / (sqrt(v) + epsilon)

    With `amsgrad=True` the step divides by the largest v seen so far instead (v_hat, a third
    slot). The slots are Keras 3's: momentum (m) and velocity (v) of each variable, then each
    one's velocity_hat.

    >>> w = tk.Variable(1.0)
    >>> opt = tk.optimizers.Adam(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(tk.constant(2.0), w)])      # the first step is about -learning_rate
    >>> round(float(w.numpy()), 4)
    0.9
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False,
                 name="Adam", **kwargs):
        beta_1 = checked_hyperparameter("Adam", "beta_1", beta_1, 0, 1)
        beta_2 = checked_hyperparameter("Adam", "beta_2", beta_2, 0, 1)
        epsilon = checked_hyperparameter("Adam", "epsilon", epsilon, 0)
        if not isinstance(amsgrad, (bool, np.bool_)):
            raise TypeError(f"Adam: amsgrad must be True or False, got {amsgrad!r}")
        super().__init__(learning_rate, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.amsgrad = bool(amsgrad)
        self._hyperparameters = ("beta_1", "beta_2", "epsilon", "amsgrad")
        # Keras 3's build: momentum and velocity of each variable, then each velocity_hat
        self._slot_groups = (("momentum", "velocity"),) + ((("velocity_hat",),) if amsgrad else ())
        self._slot_names = sum(self._slot_groups, ())

    def _update(self, g, var, slots, lr):
        t = self._step(var.dtype)
        beta_1_power = pow(self.beta_1, t)   # a Python float takes t's dtype (NEP 50)
        beta_2_power = pow(self.beta_2, t)
        alpha = lr * sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m, v = slots["momentum"], slots["velocity"]
        m.assign_add((g - m) * (1 - self.beta_1))
        v.assign_add((square(g) - v) * (1 - self.beta_2))
        if self.amsgrad:
            v_hat = slots["velocity_hat"]
            v_hat.assign(maximum(v_hat, v))
            v = v_hat
        var.assign_sub((m * alpha) / (sqrt(v) + self.epsilon))
