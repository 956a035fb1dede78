"""Nadam: Adam with Nesterov momentum and Keras 3's schedule of momentum decays."""
from ...ops import cast, pow, sqrt, square
from ...tensor import Variable
from ..utils.naming import join_path
from .base_optimizer import Optimizer, checked_hyperparameter


class Nadam(Optimizer):
    """Nadam (`keras.optimizers.Nadam`), Keras 3's rule. With u_t = beta_1 * (1 - 0.5 *
    0.96**t) at step t and u_product the product of u_1 .. u_t (one number the optimizer
    keeps, updated once per step before the variables):

        m += (g - m) * (1 - beta_1);  v += (g**2 - v) * (1 - beta_2)
        m_hat = u_{t+1} * m / (1 - u_product * u_{t+1}) + (1 - u_t) * g / (1 - u_product)
        w -= learning_rate * m_hat / (sqrt(v / (1 - beta_2**t)) + epsilon)

    The slots are Keras 3's: momentum and velocity of each variable; the product comes after
    them in `variables` and in a saved file, as Keras 3 keeps it.

    >>> w = tk.Variable(1.0)
    >>> opt = tk.optimizers.Nadam(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(tk.constant(2.0), w)])
    >>> round(float(w), 4)                      # Keras 3.15 gives 0.8937
    0.8937
    """

    _slot_names = ("momentum", "velocity")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Nadam", **kwargs):
        beta_1 = checked_hyperparameter("Nadam", "beta_1", beta_1, 0, 1)
        beta_2 = checked_hyperparameter("Nadam", "beta_2", beta_2, 0, 1)
        epsilon = checked_hyperparameter("Nadam", "epsilon", epsilon, 0)
        super().__init__(learning_rate, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self._hyperparameters = ("beta_1", "beta_2", "epsilon")
        # Keras 3 makes it unnamed beside the slots ("variable" in its files)
        self._u_product = Variable(1.0, trainable=False, dtype="float32",
                                   name=join_path(self.name, "u_product"))

    def _keras_tail(self):
        return [("u_product", self._u_product)]

    def _u(self, step):
        return self.beta_1 * (1.0 - 0.5 * pow(0.96, step))

    def _begin_step(self):
        self._u_product.assign(self._u_product * self._u(cast(self.iterations + 1, "float32")))

    def _update(self, g, var, slots, lr):
        t = self._step(var.dtype)
        u_t, u_next = self._u(t), self._u(t + 1)
        u_product = cast(self._u_product, var.dtype)
        m, v = slots["momentum"], slots["velocity"]
        m.assign_add((g - m) * (1 - self.beta_1))
        v.assign_add((square(g) - v) * (1 - self.beta_2))
        m_hat = u_next * m / (1 - u_product * u_next) + (1 - u_t) * g / (1 - u_product)
        v_hat = v / (1 - pow(self.beta_2, t))
        var.assign_sub(m_hat * lr / (sqrt(v_hat) + self.epsilon))
