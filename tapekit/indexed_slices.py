"""`tk.IndexedSlices`: rows of a tensor and where they go, as TensorFlow writes sparse updates.

`v.scatter_update(tk.IndexedSlices(values, indices))` writes `values[i]` into row `indices[i]`
of the variable `v`. tapekit holds the two tensors and computes with them densely: it has no
sparse tensors, and its gradients of `tk.gather` are dense arrays, not IndexedSlices.

    >>> s = tk.IndexedSlices(tk.constant([[1.0, 2.0]]), tk.constant([2]))
    >>> s
    IndexedSlices(indices=tk.Tensor([2], shape=(1,), dtype=int32), values=tk.Tensor([[1. 2.]], shape=(1, 2), dtype=float32), dense_shape=None)
"""
from .convert import convert_to_tensor
from .namespaces import no_attribute


class IndexedSlices:
    """`values` (one row per index) for the rows `indices` of a tensor of `dense_shape`.

    >>> v = tk.Variable([[1.0, 1.0], [2.0, 2.0]])
    >>> v.scatter_update(tk.IndexedSlices(tk.constant([[9.0, 9.0]]), tk.constant([1]))).numpy()
    array([[1., 1.],
           [9., 9.]], dtype=float32)
    """

    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        if self._indices.dtype.kind not in "iu":
            raise TypeError(f"IndexedSlices: indices must be integers, got dtype "
                            f"{self._indices.dtype.name}")
        if self._indices.ndim != 1 or (self._values.ndim >= 1
                                       and self._values.shape[0] != self._indices.shape[0]):
            raise ValueError(f"IndexedSlices: indices must be a vector with one index per row "
                             f"of values (or values a scalar); got indices of shape "
                             f"{self._indices.shape} and values of shape {self._values.shape}")
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    values = property(lambda self: self._values, doc="The rows (a Tensor).")
    indices = property(lambda self: self._indices, doc="Where each row goes (a 1-D Tensor).")
    dense_shape = property(lambda self: self._dense_shape,
                           doc="The shape of the tensor the rows belong to, or None.")
    dtype = property(lambda self: self._values.dtype, doc="The values' dtype.")

    def __repr__(self):
        return (f"IndexedSlices(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")
