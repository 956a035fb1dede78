"""tk.TensorArray: a list of tensors of one dtype that grows in a loop (`tf.TensorArray`).

    >>> ta = tk.TensorArray(tk.float32, size=0, dynamic_size=True)
    >>> for i in range(3):
    ...     ta = ta.write(i, tk.constant(float(i)) * 2.0)
    >>> ta.stack()
    tk.Tensor([0. 2. 4.], shape=(3,), dtype=float32)

An eager list underneath: write and read keep the very tensors (so tapes differentiate
through them) and stack is tk.stack. Inside tk.function it is traced like any Python
code: the ops on its elements are recorded, and an index that is a traced tensor is a
guard (the program is for that index). `write` returns the array itself; write
`ta = ta.write(i, x)` as TensorFlow requires, and it works in both.
"""
import numpy as np

from . import dtypes
from .convert import convert_to_tensor
from .namespaces import no_attribute
from .ops import stack as _stack
from .tensor import Tensor


class TensorArray:
    """Tensors of one dtype written by index, then stacked (`tf.TensorArray`).

    >>> ta = tk.TensorArray(tk.float32, size=2)
    >>> ta = ta.write(0, tk.constant([1.0, 2.0])).write(1, tk.constant([3.0, 4.0]))
    >>> ta.size(), ta.read(1)
    (tk.Tensor(2, shape=(), dtype=int32), tk.Tensor([3. 4.], shape=(2,), dtype=float32))
    """

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._elements = [None] * int(0 if size is None else size)
        self._element_shape = None if element_shape is None else tuple(
            None if d is None else int(d) for d in element_shape)
        self._infer_shape = infer_shape
        self.name = name

    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self):
        return self._dynamic

    @property
    def element_shape(self):
        return self._element_shape

    def size(self):
        return convert_to_tensor(len(self._elements), dtype=dtypes.int32)

    def _index(self, index, what):
        i = int(index)
        if i < 0:
            raise IndexError(f"TensorArray.{what}: index {i} is negative")
        return i

    def write(self, index, value):
        i = self._index(index, "write")
        value = value if isinstance(value, Tensor) and value.dtype == self._dtype \
            else convert_to_tensor(value, dtype=self._dtype)
        if value.dtype != self._dtype:
            raise TypeError(f"TensorArray.write: the array holds {self._dtype.name}, the value "
                            f"is {value.dtype.name}; cast it with tk.cast(value, tk.{self._dtype.name})")
        if i >= len(self._elements):
            if not self._dynamic:
                raise IndexError(f"TensorArray.write: index {i} is out of bounds for an array "
                                 f"of size {len(self._elements)}; make it with "
                                 f"dynamic_size=True to grow")
            self._elements.extend([None] * (i + 1 - len(self._elements)))
        self._check_shape(value.shape, i)
        self._elements[i] = value
        return self

    def _check_shape(self, shape, i):
        want = self._element_shape
        if want is not None and (len(want) != len(shape) or any(
                w is not None and w != s for w, s in zip(want, shape))):
            raise ValueError(f"TensorArray.write: element {i} has shape {shape}, the array's "
                             f"elements have shape {want} (None: any size)")
        if self._infer_shape and (want is None or None in want):
            self._element_shape = tuple(shape)

    def read(self, index):
        i = self._index(index, "read")
        if i >= len(self._elements):
            raise IndexError(f"TensorArray.read: index {i} is out of bounds for an array of "
                             f"size {len(self._elements)}")
        value = self._elements[i]
        if value is None:
            value = self._zeros(i, "read")
        return value

    def _zeros(self, i, what):
        if self._element_shape is None or None in self._element_shape:
            raise ValueError(f"TensorArray.{what}: element {i} was never written and the "
                             f"element shape is unknown; write it first, or give element_shape")
        return Tensor(np.zeros(self._element_shape, self._dtype))

    def stack(self, name=None):
        if not self._elements:
            shape = tuple(d or 0 for d in self._element_shape) if self._element_shape else (0,)
            return Tensor(np.zeros((0,) + (shape if self._element_shape else ()), self._dtype))
        return _stack([v if v is not None else self._zeros(i, "stack")
                       for i, v in enumerate(self._elements)])

    def gather(self, indices, name=None):
        return _stack([self.read(i) for i in np.asarray(indices).reshape(-1)])

    def unstack(self, value, name=None):
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._dynamic and self._elements and value.shape[0] > len(self._elements):
            raise IndexError(f"TensorArray.unstack: {value.shape[0]} elements do not fit an "
                             f"array of size {len(self._elements)}")
        parts = [value[i] for i in range(value.shape[0])]
        self._elements = list(parts) + self._elements[len(parts):]
        if parts:
            self._check_shape(parts[0].shape, 0)
        return self

    def scatter(self, indices, value, name=None):
        value = convert_to_tensor(value, dtype=self._dtype)
        for k, i in enumerate(np.asarray(indices).reshape(-1)):
            self.write(int(i), value[k])
        return self

    def close(self, name=None):
        self._elements = []

    def __repr__(self):
        return (f"<tk.TensorArray {self._dtype.name}, size {len(self._elements)}, element shape "
                f"{self._element_shape}{', dynamic' if self._dynamic else ''}>")
