"""tk.testing: the gradient checker, tapekit's one home for checking derivatives.

    tk.testing.check_grads(f, x, order=2)       # assert: raises GradientCheckError, else None
    report = tk.testing.check_gradients(f, x)   # the same checks as a readable report
    check = tk.testing.check_gradient(name, tape_gradient, f, x)   # one gradient you already have

checks.py is the checker, jacobians.py the Jacobians it compares (central differences,
reverse and forward mode) and tf.test.compute_gradient's layout. tk.test is the other door:
TensorFlow's names for the same objects (tapekit/namespaces.py).
"""
from ..namespaces import missing, public_dir
from .checks import (GradientCheck, GradientCheckError, GradientReport, check_gradient,
                     check_gradients, check_grads)
from .jacobians import (compare_jacobians, forward_jacobian, gradient_function, numerical_jacobian,
                        reverse_jacobian)

__all__ = ["GradientCheck", "GradientCheckError", "GradientReport", "check_gradient", "check_gradients",
           "check_grads", "compare_jacobians", "forward_jacobian", "gradient_function",
           "numerical_jacobian", "reverse_jacobian"]

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
__getattr__ = missing(__name__)   # a TensorFlow name tapekit refuses says what to use instead
