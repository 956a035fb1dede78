"""Adagrad: each weight's step shrinks with the sum of its squared gradients."""
from ...ops import sqrt, square
from .base_optimizer import Optimizer, checked_hyperparameter


class Adagrad(Optimizer):
    """Adagrad (`keras.optimizers.Adagrad`), Keras 3's rule:

        accumulator += g**2;  w -= learning_rate * g / sqrt(accumulator + epsilon)

    The accumulator (Keras 3's one slot, "accumulator") starts at initial_accumulator_value.

    >>> w = tk.Variable(1.0)
    >>> opt = tk.optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=0.0)
    >>> _ = opt.apply_gradients([(tk.constant(2.0), w)])      # 1 - 0.1 * 2 / sqrt(4)
    >>> round(float(w), 6)
    0.9
    """

    _slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        initial = checked_hyperparameter("Adagrad", "initial_accumulator_value",
                                         initial_accumulator_value, 0)
        epsilon = checked_hyperparameter("Adagrad", "epsilon", epsilon, 0)
        super().__init__(learning_rate, name, **kwargs)
        self.initial_accumulator_value, self.epsilon = initial, epsilon
        self._slot_initial = {"accumulator": initial}
        self._hyperparameters = ("initial_accumulator_value", "epsilon")

    def _update(self, g, var, slots, lr):
        accumulator = slots["accumulator"]
        accumulator.assign_add(square(g))
        var.assign_sub(lr * g / sqrt(accumulator + self.epsilon))
