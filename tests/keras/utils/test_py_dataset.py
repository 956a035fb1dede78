"""tk.utils.PyDataset (tapekit/keras/utils/py_dataset.py): the base class of Python datasets,
and fit on one against the batches worked out by hand."""
import numpy as np
import pytest

import tapekit as tk


def test_pydataset_base_class_says_what_to_implement():
    with pytest.raises(NotImplementedError, match="__len__"):
        len(tk.utils.PyDataset())
    with pytest.raises(NotImplementedError, match="__getitem__"):
        tk.utils.PyDataset()[0]
    assert tk.keras.utils.PyDataset is tk.utils.PyDataset


def test_fit_on_a_pydataset_means_its_batches_losses():
    class Halves(tk.utils.PyDataset):
        def __init__(self):
            super().__init__(workers=2, use_multiprocessing=False)   # accepted, run inline
            self.ends = 0

        def __len__(self):
            return 2

        def __getitem__(self, i):            # batch 0: targets 1, batch 1: targets 3
            return np.zeros((2, 1), "float32"), np.full((2, 1), 2.0 * i + 1, "float32")

        def on_epoch_end(self):
            self.ends += 1

    model = tk.Sequential([tk.Input((1,)), tk.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=tk.optimizers.SGD(0.0), loss="mse")
    data = Halves()
    history = model.fit(data, epochs=2, verbose=0)
    assert history.history["loss"] == [pytest.approx((1 + 9) / 2)] * 2     # zero predictions
    assert data.ends == 2 and data.num_batches == 2 and data.workers == 2
