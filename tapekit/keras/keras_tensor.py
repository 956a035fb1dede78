"""Symbolic tensors for the functional API: a shape, a dtype, and the layer call that made them.

    inputs = tk.Input(shape=(784,), name="digits")    # KerasTensor, shape (None, 784)
    x = tk.layers.Dense(64)(inputs)                     # records a Node: (layer, inputs, outputs)
    model = tk.Model(inputs=inputs, outputs=x)          # replays the nodes on real tensors

A KerasTensor holds no values. Calling a layer on KerasTensors records a `Node` in
`layer._inbound_nodes` and returns new KerasTensors whose `_keras_history` points at it, so
`Model(inputs, outputs)` can walk back from the outputs to the inputs (Keras 3's
`KerasTensor` and `Node`, keras/src/backend/common/keras_tensor.py and ops/node.py).
"""
from .. import dtypes, nest
from ..display.format import plain


class KerasTensor:
    """A placeholder for a batch of tensors of `shape` (None for the batch axis) and `dtype`.

    >>> x = tk.Input(shape=(3,), name="features")
    >>> x
    <KerasTensor shape=(None, 3), dtype=float32, name=features>
    >>> x.shape, x.ndim
    ((None, 3), 2)
    """

    def __init__(self, shape, dtype=dtypes.float32, name=None, history=None):
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name
        self._keras_history = history      # (layer, node, index in the node's outputs)

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype.name}, name={plain(self.name)}>"

    def _no_values(self, *args, **kwargs):
        raise TypeError(
            "A KerasTensor (from tk.Input or a layer called on one) is a placeholder without "
            "values: ops such as +, * or tk.reduce_sum cannot run on it. Put the computation in "
            "a layer, e.g. tk.layers.Lambda(lambda x: x * 2)(x), or tk.layers.Add()([a, b])")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _no_values
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __pow__ = __neg__ = _no_values
    __getitem__ = __array__ = __float__ = _no_values


class Node:
    """One recorded layer call: `outputs = layer(inputs)` on KerasTensors.

    >>> x = tk.Input(shape=(2,))
    >>> y = tk.layers.Dense(4)(x)
    >>> node = y._keras_history[1]
    >>> node.layer is y._keras_history[0], node.input_tensors == [x], node.outputs == y
    (True, True, True)
    """

    def __init__(self, layer, inputs, outputs, kwargs=None):
        self.layer = layer
        self.inputs = inputs                      # the structure passed as `inputs`
        self.outputs = outputs
        self.kwargs = kwargs or {}                # other keyword arguments (training=..., ...)
        # what the call reads: the inputs, then KerasTensors among the other arguments (a
        # mask=, as Keras 3's Node counts them)
        self.input_tensors = [t for t in nest.flatten([inputs, self.kwargs])
                              if isinstance(t, KerasTensor)]
        flat = nest.flatten(outputs)
        for i, t in enumerate(flat):
            t._keras_history = (layer, self, i)
        layer._inbound_nodes.append(self)

    @property
    def parent_nodes(self):
        """The nodes that made this node's inputs (none for an Input)."""
        return [t._keras_history[1] for t in self.input_tensors if t._keras_history is not None]


def is_keras_tensor(x):
    """True for the symbolic tensors of the functional API.

    >>> tk.keras.keras_tensor.is_keras_tensor(tk.Input(shape=(2,))), \\
    ...     tk.keras.keras_tensor.is_keras_tensor(tk.ones(2))
    (True, False)
    """
    return isinstance(x, KerasTensor)


def any_symbolic(structure):
    return any(isinstance(t, KerasTensor) for t in nest.flatten(structure))
