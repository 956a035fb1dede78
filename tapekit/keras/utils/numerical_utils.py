"""`keras.utils.to_categorical` and `normalize`: labels and arrays for training, as NumPy arrays."""
import numpy as np

__all__ = ["normalize", "to_categorical"]


def to_categorical(x, num_classes=None):
    """Class labels (integers 0..num_classes-1) as one-hot rows, a float64 NumPy array (as
    Keras 3 returns; losses cast labels to the predictions' dtype) of
    shape `x.shape + (num_classes,)`; a trailing axis of size 1 is dropped first, as Keras.
    `num_classes` defaults to max(x) + 1.

    >>> tk.utils.to_categorical([0, 2, 1])
    array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 1., 0.]])
    >>> tk.utils.to_categorical(np.array([[1], [3]]), num_classes=4).shape
    (2, 4)
    """
    x = np.asarray(getattr(x, "numpy", lambda: x)())
    if x.dtype.kind == "f":
        if x.size and not np.all(x == np.floor(x)):
            raise ValueError(f"to_categorical: labels must be whole numbers, got {x.ravel()[:5]} "
                             f"(dtype {x.dtype.name}); round or cast them first")
        x = x.astype(np.int64)
    elif x.dtype.kind not in "iub":
        raise TypeError(f"to_categorical: labels must be integers, got dtype {x.dtype.name}")
    x = x.astype(np.int64)
    if x.ndim > 1 and x.shape[-1] == 1:
        x = x.reshape(x.shape[:-1])
    if x.size and x.min() < 0:
        raise ValueError(f"to_categorical: labels must be >= 0, got {int(x.min())}")
    if num_classes is None:
        num_classes = int(x.max()) + 1 if x.size else 0
    elif isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)) \
            or num_classes < 1:
        raise ValueError(f"to_categorical: num_classes must be a positive integer, got {num_classes!r}")
    if x.size and x.max() >= num_classes:
        raise ValueError(f"to_categorical: label {int(x.max())} is out of range for "
                         f"num_classes={num_classes} (labels 0..{num_classes - 1}); raise "
                         f"num_classes or fix the labels")
    out = np.zeros(x.shape + (int(num_classes),))
    np.put_along_axis(out, x[..., None], 1.0, axis=-1)
    return out


def normalize(x, axis=-1, order=2):
    """`x` divided by its L-`order` norm along `axis` (zeros stay zeros), as a NumPy array.

    >>> tk.utils.normalize(np.array([[3.0, 4.0]]))
    array([[0.6, 0.8]])
    """
    x = np.asarray(getattr(x, "numpy", lambda: x)())
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)
