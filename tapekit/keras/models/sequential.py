"""Sequential: a stack of layers, each feeding the next (`tf.keras.Sequential`).

    model = tk.models.Sequential([
        tk.layers.Dense(64, activation="relu", input_shape=(10,)),
        tk.layers.Dense(1),
    ])
    y = model(x, training=True)
    model.summary()
"""
from ..layers.base import Layer
from ..trainer import Trainer


class Sequential(Trainer, Layer):
    """Layers applied in order; `training` is passed to each (Dropout needs it).

    When the first layer has `input_shape`, every layer is built at once, so the weights
    exist (and `summary()` works) before the first call, as in Keras.

    >>> tk.random.set_seed(0)
    >>> model = tk.models.Sequential([
    ...     tk.layers.Dense(8, activation="relu"),
    ...     tk.layers.Dense(1),
    ... ])
    >>> model(tk.zeros([5, 3])).shape
    (5, 1)
    >>> [v.shape for v in model.trainable_variables]
    [(3, 8), (8,), (8, 1), (1,)]
    """

    def __init__(self, layers=None, name=None):
        self._layers = []
        super().__init__(name=name)
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return list(self._layers)

    def add(self, layer):
        """Append a layer (building it when the model's input shape is known)."""
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add: expected a layer (e.g. tk.layers.Dense), got "
                            f"{type(layer).__name__}")
        self._layers.append(layer)
        shape = self._layers[0].input_shape
        if shape is not None and all(lyr.built for lyr in self._layers[:-1]):
            for lyr in self._layers[:-1]:
                shape = lyr.compute_output_shape(shape)
            layer._maybe_build(shape)
            self.input_shape, self.built = self._layers[0].input_shape, True

    def build(self, input_shape):
        for layer in self._layers:
            layer._maybe_build(input_shape)
            input_shape = layer.compute_output_shape(input_shape)

    def call(self, x, training=None):
        for layer in self._layers:
            x = layer(x, training=training)
        return x

    def compute_output_shape(self, input_shape):
        for layer in self._layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def summary(self, print_fn=print):
        """Print a table of layers, output shapes and parameter counts (`Model.summary`)."""
        if not self.built:
            raise ValueError("This model has not yet been built. Give the first layer "
                             "input_shape=..., or call the model on a batch of data first.")
        rows, shape = [], self.input_shape
        for layer in self._layers:
            shape = layer.compute_output_shape(shape)
            rows.append((f"{layer.name} ({type(layer).__name__})", str(shape),
                         f"{layer.count_params():,}"))
        widths = (max(28, *(len(r[0]) + 2 for r in rows)), max(26, *(len(r[1]) + 2 for r in rows)))
        line = "_" * (sum(widths) + 10)
        table = [f'Model: "{self.name}"', line,
                 f"{'Layer (type)':<{widths[0]}}{'Output Shape':<{widths[1]}}Param #",
                 "=" * len(line)]
        table += [f"{a:<{widths[0]}}{b:<{widths[1]}}{c}" for a, b, c in rows]
        trainable = sum(int(v.size) for v in self.trainable_variables)
        total = self.count_params()
        table += ["=" * len(line), f"Total params: {total:,}", f"Trainable params: {trainable:,}",
                  f"Non-trainable params: {total - trainable:,}", line]
        print_fn("\n".join(table))

    def __repr__(self):
        return f"<Sequential {self.name!r}: {len(self._layers)} layers>"
