"""PyDataset: a Python class of batches, the data fit/evaluate/predict index (Keras 3's name).

    class Squares(tk.utils.PyDataset):
        def __init__(self, n, batch_size, **kwargs):
            super().__init__(**kwargs)
            self.n, self.batch_size = n, batch_size
        def __len__(self):                          # the number of batches
            return -(-self.n // self.batch_size)
        def __getitem__(self, i):                   # batch i: (x, y) or (x, y, sample_weight)
            x = np.arange(i * self.batch_size, min(self.n, (i + 1) * self.batch_size), dtype="float32")
            return x[:, None], (x ** 2)[:, None]

    model.fit(Squares(100, 32), epochs=3)

fit asks `len(data)` for the steps of an epoch and `data[i]` for each batch i, in a shuffled
order unless fit's shuffle=False (as Keras 3 does), then calls
`data.on_epoch_end()`: override it to reshuffle between epochs. Keras's `workers`,
`use_multiprocessing` and `max_queue_size` are accepted and ignored: tapekit reads the
batches in the training process, one after the other.
"""
from ...namespaces import no_attribute


__all__ = ["PyDataset", "Sequence"]


class PyDataset:
    """Base class for a dataset of batches: implement `__len__` and `__getitem__(index)`.

    >>> class Pairs(tk.utils.PyDataset):
    ...     def __len__(self):
    ...         return 2
    ...     def __getitem__(self, i):
    ...         return np.full((3, 1), float(i)), np.full((3, 1), 2.0 * i)
    >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="zeros")])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> model.fit(Pairs(), epochs=1, verbose=0, shuffle=False).history["loss"]   # (0 + 4) / 2
    [2.0]
    """

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self.workers, self.use_multiprocessing = workers, use_multiprocessing
        self.max_queue_size = max_queue_size

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__(self, "
                                  f"index), returning batch `index` as (x, y) or "
                                  f"(x, y, sample_weight)")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __len__(self), "
                                  f"returning the number of batches")

    @property
    def num_batches(self):
        return len(self)

    def on_epoch_begin(self):
        """Called before each epoch (override: nothing by default)."""

    def on_epoch_end(self):
        """Called after each epoch (override to reshuffle: nothing by default)."""


Sequence = PyDataset      # Keras 2's name for the same idea
