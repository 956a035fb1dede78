"""What fit/evaluate/predict take as data (tapekit/keras/trainers/data_adapter.py): class
weights made sample weights as Keras makes them, validation_data's and validation_split's
rules, and a list of lists refused with the fix."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.keras.trainers.data_adapter import (check_data_tuple, class_weight_to_sample_weight,
                                                 train_validation_split)
from tapekit.keras.trainers.epoch_iterator import EpochIterator

X = np.arange(10, dtype=np.float32).reshape(10, 1)


class Squares(tk.utils.PyDataset):
    """Two batches of x = [[i]], y = [[i * i]]."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return np.full((1, 1), float(i), np.float32), np.full((1, 1), float(i * i), np.float32)


def test_class_weight_becomes_sample_weight_as_keras_makes_it():
    # labels round to classes; one-hot rows by argmax; classes left out weigh 1
    w = class_weight_to_sample_weight(np.array([0.0, 1.2, 2.0, 0.6]), {0: 0.5, 2: 3.0})
    np.testing.assert_array_equal(w, [0.5, 1.0, 3.0, 1.0])
    onehot = np.eye(3)[[2, 0, 1]]
    np.testing.assert_array_equal(class_weight_to_sample_weight(onehot, {1: 4.0}), [1, 1, 4])
    it = EpochIterator(X, (X > 4).astype("int64"), batch_size=10, class_weight={1: 2.0})
    _, (_, _, sw) = next(it.enumerate_epoch())
    np.testing.assert_array_equal(sw.numpy(), [1] * 5 + [2] * 5)
    with pytest.raises(ValueError, match="class_weight` and `sample_weight"):
        EpochIterator(X, X, np.ones(10), class_weight={0: 1.0})
    with pytest.raises(ValueError, match="single output"):
        class_weight_to_sample_weight([X, X], {0: 1.0})

def test_validation_data_shapes_are_checked():
    x, y, sw = check_data_tuple([X, X], "validation_data")      # a list, as Keras takes it
    assert x is X and y is X and sw is None
    with pytest.raises(ValueError, match="validation_data must be .* 4 items"):
        check_data_tuple((X, X, None, None), "validation_data")

def test_validation_split_takes_the_last_samples_before_shuffling():
    (x, y, _), (xv, yv, _) = train_validation_split(X, X * 2, None, 0.3)
    assert x[:, 0].tolist() == list(range(7)) and xv[:, 0].tolist() == [7, 8, 9]
    np.testing.assert_array_equal(yv, xv * 2)
    with pytest.raises(ValueError, match="only supported for array data"):
        train_validation_split(Squares(), None, None, 0.5)

def test_a_list_of_lists_is_refused_with_the_fix():
    # Keras 3.15 raises "Unrecognized data type" for fit(X.tolist(), y); tapekit's error said
    # "got a scalar" of a (10, 3) list; it now says how it read the list and what to pass
    model = tk.Sequential([tk.Input((3,)), tk.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match=r"list of lists is read as a list of inputs.*np\.array\(x\)"):
        model.fit([[0.5, 1.0, 2.0], [1.0, 0.0, 1.0]], [1.0, 2.0], verbose=0)
