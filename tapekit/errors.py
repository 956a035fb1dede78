"""Error types with TensorFlow's names (`tf.errors`), for code that catches them.

    try:
        tk.linalg.matmul(x, y)
    except tk.errors.InvalidArgumentError as e:
        print(type(e).__name__, e)

`InvalidArgumentError` is what TensorFlow raises for a bad argument to an op (shapes that
do not fit, an axis out of range, the same axis twice). It subclasses ValueError, so
`except ValueError` keeps catching it.

>>> try:
...     tk.matmul(tk.ones((2, 3)), tk.ones((2, 3)))
... except tk.errors.InvalidArgumentError as e:
...     print(type(e).__name__, isinstance(e, ValueError))
InvalidArgumentError True
"""

from .namespaces import missing, public_dir


class InvalidArgumentError(ValueError):
    """An op got an argument it cannot use: a shape that does not fit, an axis out of range
    (`tf.errors.InvalidArgumentError`). A ValueError too.

    >>> issubclass(tk.errors.InvalidArgumentError, ValueError)
    True
    """


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
__getattr__ = missing(__name__)   # a TensorFlow name tapekit refuses says what to use instead
