"""TensorShape: a shape whose sizes may be unknown (None), as `tf.TensorShape`.

A tensor's `.shape` is a TensorShape that prints as the tuple it is, `(2, 3)`; `tk.TensorShape`
made by hand prints as TensorFlow's, `TensorShape([None, 3])`.
"""
import numpy as np

from .namespaces import no_attribute


class TensorShape(tuple):
    """A shape whose sizes may be unknown (None), as `tf.TensorShape`: a tuple with TensorFlow's
    methods. A tensor's `.shape` is one, so `x.shape.as_list()` works as in TensorFlow (it
    still prints as a tuple, `(2, 3)`).

    >>> s = tk.TensorShape([None, 3])
    >>> s
    TensorShape([None, 3])
    >>> s.as_list(), s.rank, s[1], s.is_fully_defined()
    ([None, 3], 2, 3, False)
    >>> tk.ones((2, 3)).shape.as_list()
    [2, 3]
    >>> tk.TensorShape([2, 3]).num_elements(), tk.TensorShape([2, 3]) == (2, 3)
    (6, True)
    """

    __slots__ = ()

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __new__(cls, dims=()):
        if dims is None:
            raise ValueError("TensorShape(None) (an unknown rank) is not supported in tapekit: "
                             "give the dimensions, None for an unknown size, e.g. [None, 3]")
        if isinstance(dims, (int, np.integer)):
            dims = (dims,)
        return super().__new__(cls, (None if d is None else _dim(d) for d in dims))

    @property
    def rank(self):
        return len(self)

    ndims = rank

    @property
    def dims(self):
        return list(self)

    def as_list(self):
        return list(self)

    def is_fully_defined(self):
        return None not in self

    def num_elements(self):
        """The number of elements, or None when a size is unknown."""
        return int(np.prod(self, dtype=np.int64)) if None not in self else None

    def concatenate(self, other):
        return TensorShape(tuple(self) + tuple(other))

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return type(self)(item) if isinstance(key, slice) else item

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        return tuple.__repr__(tuple(self))


class ConcreteShape(TensorShape):
    """The shape of a tensor's value: prints as the tuple it is, `(2, 3)`."""

    __slots__ = ()
    __repr__ = TensorShape.__str__


def _dim(d):
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or d < 0:
        raise TypeError(f"TensorShape: a dimension must be an integer >= 0 or None, got {d!r}")
    return int(d)
