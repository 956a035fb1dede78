"""`tk.autodiff`, as `tf.autodiff`: the same ForwardAccumulator and GradientTape as `tk.`.

    >>> x = tk.constant([1.0, 2.0])
    >>> with tk.autodiff.ForwardAccumulator(x, tk.constant([1.0, 0.0])) as acc:
    ...     y = x * x
    >>> acc.jvp(y)
    tk.Tensor([2. 0.], shape=(2,), dtype=float32)
"""
from .forward import ForwardAccumulator
from .tape import GradientTape
from .namespaces import public_dir

__all__ = ["ForwardAccumulator", "GradientTape"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
