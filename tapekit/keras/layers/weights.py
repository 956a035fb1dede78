"""A layer's weights: `add_weight`, the weight lists, `get_weights` / `set_weights`, freezing.

`LayerWeights` is a mixin of `Layer` (base.py), as config.py's `LayerConfig` is: the weights a
layer creates are Variables named as in Keras 3 (`kernel`, path `dense/kernel`), listed in
creation order, and frozen together with the layer's sublayers.
"""
import weakref

import numpy as np

from ... import dtypes
from ...display.format import plain
from ...tensor import Variable
from .. import constraints, initializers
from ..saving.files import check_declared
from ..utils.naming import check_name, join_path

regularized = weakref.WeakSet()     # layers with a weight regularizer (Layer.losses reads it)


class LayerWeights:
    """add_weight, trainable, weights, get_weights / set_weights and count_params of every Layer."""

    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True,
                   regularizer=None, constraint=None, name=None, **kwargs):
        """Create and track a Variable named `name`, with the path `<layer>/<name>` (Keras 3).

        The initializer defaults to Glorot-uniform for float dtypes and zeros otherwise; it
        may be a name, an initializer object or a callable, called as Keras 3 calls it:
        `initializer(shape, dtype="float32")`, the dtype by keyword and by name, so that
        `tk.random.normal` (whose second parameter is `mean`) works as tf.random.normal does.
        A `constraint` (a name, a tk.constraints object or a callable w -> w) becomes the
        variable's `constraint`, which an optimizer applies after each update.

        >>> layer = tk.layers.Layer(name="demo")
        >>> w = layer.add_weight(shape=(2, 3), name="w")
        >>> w.name, w.path, w.shape, bool((w.numpy() != 0).any())
        ('w', 'demo/w', (2, 3), True)
        """
        if isinstance(shape, str):
            raise TypeError(f"{type(self).__name__}.add_weight: the first argument is the shape, "
                            f"got {shape!r}; name the weight with add_weight(shape=..., name={shape!r})")
        check_name(name, f"{type(self).__name__}.add_weight(name=...)")
        shape = () if shape is None else tuple(int(d) for d in shape)
        dtype = dtypes.as_dtype(dtype or self.dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.kind == "f" else "zeros"
        check_declared(f"{type(self).__name__} {self.name!r}: weight {name or 'variable'!r}",
                       shape, dtype, kept=True)       # while a config is read: capped
        value = initializers.get(initializer)(shape, dtype=dtype.name)
        var = Variable(value, trainable=trainable and self.trainable, dtype=dtype, name=name or "variable")
        var._path = join_path(self.name, var._name)   # Keras 3: name "kernel", path "dense/kernel"
        self._weights.append(var)
        if regularizer is not None:
            self._regularizers.append((var, regularizer))
            regularized.add(self)
        var._constraint = constraints.get(constraint)   # the optimizer applies it (Keras 3)
        return var

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        """Freezing a layer freezes its weights and its sublayers' (Keras 3)."""
        self._trainable = bool(value)
        for layer in self._flatten_layers():
            layer._trainable = bool(value)
        for v in self.variables:
            v._trainable = bool(value)   # what tapes read to watch a variable

    @property
    def weights(self):
        """Every weight of the layer and its sublayers, trainable or not, in creation order."""
        return list(self.variables)

    @property
    def trainable_weights(self):
        return [v for v in self.variables if v.trainable]

    @property
    def non_trainable_weights(self):
        return [v for v in self.variables if not v.trainable]

    def get_weights(self):
        """The weights' values as NumPy arrays.

        >>> layer = tk.layers.Dense(2, kernel_initializer="ones", input_shape=(3,))
        >>> [w.shape for w in layer.get_weights()]
        [(3, 2), (2,)]
        >>> layer.set_weights([np.zeros((3, 2)), np.ones(2)])
        >>> layer(tk.ones((1, 3)))
        tk.Tensor([[1. 1.]], shape=(1, 2), dtype=float32)
        """
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"{plain(self.name)}.set_weights: expected {len(mine)} arrays "
                             f"({[v.path for v in mine]}), got {len(weights)}")
        for var, value in zip(mine, weights):
            if tuple(np.shape(value)) != var.shape:
                raise ValueError(f"{plain(self.name)}.set_weights: {plain(var.path)} has shape "
                                 f"{var.shape}, got an array of shape {np.shape(value)}")
        for var, value in zip(mine, weights):
            var.assign(np.asarray(value, var.dtype))

    def count_params(self):
        if not self.built:
            raise ValueError(f"layer {self.name!r} is not built yet: call it on an input, or "
                             f"give input_shape=, to create its weights")
        return super().count_params()

    @property
    def compute_dtype(self):
        return self.dtype

    @property
    def variable_dtype(self):
        return self.dtype
