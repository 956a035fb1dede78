"""The batches of each epoch (tapekit/keras/trainers/epoch_iterator.py), against the batches
worked out by hand: arrays (and lists/dicts of them), PyDatasets, generators, lists of batches,
and Keras 3's rule for steps_per_epoch across epochs."""
import gc
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit.keras.trainers.epoch_iterator import EpochIterator


def epochs_of(it, n):
    """The first column of x of each batch, per epoch (which samples each step saw)."""
    out = []
    for _ in range(n):
        out.append([b[0].numpy()[:, 0].tolist() for _, b in it.enumerate_epoch()])
    return out


X = np.arange(10, dtype=np.float32).reshape(10, 1)


def test_arrays_cut_in_order_and_the_last_batch_smaller():
    it = EpochIterator(X, X * 2, batch_size=4)
    assert it.num_batches == 3
    assert epochs_of(it, 1) == [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]]
    _, batch = next(it.enumerate_epoch())
    assert batch[1].numpy()[:, 0].tolist() == [0, 2, 4, 6]
    assert batch[0].dtype == np.float32


def test_steps_per_epoch_runs_one_pass_on_across_epochs_as_keras():
    # 10 samples, batch 2: 5 batches per pass. 3 steps per epoch: epoch 1 takes batches 0-2,
    # epoch 2 batches 3-4 and then runs out (a warning; Keras does the same), epoch 3 starts
    # a fresh pass.
    it = EpochIterator(X, X, batch_size=2, steps_per_epoch=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = epochs_of(it, 3)
    assert got == [[[0, 1], [2, 3], [4, 5]], [[6, 7], [8, 9]], [[0, 1], [2, 3], [4, 5]]]
    assert any("ran out of data" in str(w.message) for w in caught)


def test_without_steps_per_epoch_each_epoch_is_a_whole_pass():
    it = EpochIterator(X, X, batch_size=4)
    assert epochs_of(it, 2) == [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]] * 2


def test_shuffle_draws_a_permutation_per_epoch_from_tk_random():
    tk.random.set_seed(3)
    a = epochs_of(EpochIterator(X, X, batch_size=10, shuffle=True), 2)
    tk.random.set_seed(3)
    b = epochs_of(EpochIterator(X, X, batch_size=10, shuffle=True), 2)
    assert a == b and a[0] != a[1]
    assert sorted(a[0][0]) == list(range(10))


def test_a_generator_with_steps_per_epoch_goes_on_where_it_stopped():
    def gen():
        i = 0
        while True:
            yield np.full((2, 1), float(i)), np.zeros((2, 1))
            i += 1
    it = EpochIterator(gen(), steps_per_epoch=2)
    assert epochs_of(it, 3) == [[[0, 0], [1, 1]], [[2, 2], [3, 3]], [[4, 4], [5, 5]]]


def test_a_finite_generator_is_used_up_by_its_first_epoch():
    gen = ((np.full((1, 1), float(i)), np.zeros((1, 1))) for i in range(3))
    it = EpochIterator(gen)
    assert it.num_batches is None
    with pytest.warns(UserWarning, match="ran out of data"):     # epoch 2 is empty (Keras too)
        assert epochs_of(it, 2) == [[[0], [1], [2]], []]
    with pytest.raises(TypeError, match="steps_per_epoch"):
        len(it)


class Squares(tk.utils.PyDataset):
    def __init__(self, n, batch_size):
        super().__init__()
        self.n, self.batch_size, self.ends = n, batch_size, 0

    def __len__(self):
        return -(-self.n // self.batch_size)

    def __getitem__(self, i):
        x = np.arange(i * self.batch_size, min(self.n, (i + 1) * self.batch_size), dtype="float32")
        return x[:, None], (x ** 2)[:, None]

    def on_epoch_end(self):
        self.ends += 1


def test_a_pydataset_is_indexed_in_order_and_told_each_epoch_end():
    data = Squares(5, 2)
    it = EpochIterator(data)
    assert it.num_batches == 3
    assert epochs_of(it, 2) == [[[0, 1], [2, 3], [4]]] * 2
    assert data.ends == 2
    _, (x, y) = next(it.enumerate_epoch())
    np.testing.assert_array_equal(y.numpy(), x.numpy() ** 2)


def test_a_pydataset_is_shuffled_by_batch_when_asked():
    tk.random.set_seed(1)
    got = epochs_of(EpochIterator(Squares(8, 2), shuffle=True), 2)
    for epoch in got:                        # whole batches, in a new order per epoch
        assert sorted(epoch) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert got[0] != got[1] or got[0] != sorted(got[0])


def test_dicts_and_lists_of_arrays_are_sliced_together():
    x = {"a": X, "b": X * 10}
    y = [X, -X]
    it = EpochIterator(x, y, batch_size=3)
    _, (bx, by) = next(it.enumerate_epoch())
    assert set(bx) == {"a", "b"}
    np.testing.assert_array_equal(bx["b"].numpy()[:, 0], [0, 10, 20])
    np.testing.assert_array_equal(by[1].numpy()[:, 0], [0, -1, -2])
    with pytest.raises(ValueError, match="different numbers of samples"):
        EpochIterator({"a": X, "b": X[:4]})


def test_bad_data_gets_an_error_naming_the_fix():
    with pytest.raises(ValueError, match="`y` argument is not supported when x is a PyDataset"):
        EpochIterator(Squares(4, 2), X)
    with pytest.raises(ValueError, match="Unrecognized data type: x=int"):
        EpochIterator(3)
    with pytest.raises(ValueError, match="steps_per_epoch must be a positive integer"):
        EpochIterator(X, steps_per_epoch=0)
    bad = iter([(X, X, X, X)])
    with pytest.raises(ValueError, match="tuple of 4 items"):
        list(EpochIterator(bad).enumerate_epoch())


# --- issue 43: generators are drawn from, never closed; no data is an error -------------------
class Endless:
    """An endless generator of batches x = [[i]] that records whether it was closed."""

    def __init__(self, stop=None, error=None):
        self.closed, self.gen = False, self._run(stop, error)

    def _run(self, stop, error):
        i = 0
        try:
            while stop is None or i < stop:
                yield np.full((1, 1), float(i), np.float32), np.zeros((1, 1), np.float32)
                i += 1
            if error is not None:
                raise error
        finally:
            self.closed = True


def test_a_generator_goes_on_after_reset_and_is_never_closed():
    # evaluate resets its EpochIterator before each use (fit's validation); a generator cannot
    # start again: the next epoch draws on from it. It was closed when reset dropped the
    # wrapper that iterated it (`yield from`), so epoch 2 of fit's validation got nothing.
    data = Endless()
    it = EpochIterator(data.gen, steps_per_epoch=2)
    got = []
    for _ in range(3):
        it.reset()
        got.append([b[0].numpy()[0, 0] for _, b in it.enumerate_epoch()])
        gc.collect()
    assert got == [[0, 1], [2, 3], [4, 5]] and not data.closed
    del it
    gc.collect()
    assert not data.closed          # the generator is the caller's: only they may close it


def test_a_generator_is_peeked_at_once_and_its_first_batch_kept():
    data = Endless()
    it = EpochIterator(data.gen, steps_per_epoch=3)
    assert it.first_batch()[0].numpy()[0, 0] == 0        # drawn now, served again below
    assert [b[0].numpy()[0, 0] for _, b in it.enumerate_epoch()] == [0, 1, 2]


def test_an_error_in_the_data_reaches_the_caller_as_it_was_raised():
    error = KeyError("batch 2 is missing")
    data = Endless(stop=2, error=error)
    it = EpochIterator(data.gen, steps_per_epoch=2)
    assert len(list(it.enumerate_epoch())) == 2
    with pytest.raises(KeyError) as caught:
        list(it.enumerate_epoch())
    assert caught.value is error

    class Broken(Squares):
        def __getitem__(self, i):
            if i == 1:
                raise error
            return super().__getitem__(i)
    with pytest.raises(KeyError) as caught:
        list(EpochIterator(Broken(6, 2)).enumerate_epoch())
    assert caught.value is error


def test_no_data_at_all_is_refused_with_what_was_empty():
    # Keras 3.15: ValueError('The PyDataset has length 0') and ValueError('When passing a Python
    # generator to a Keras model, the generator must yield at least one batch. Received an
    # empty generator.'), in fit, evaluate and predict; 0 samples of arrays only warns there
    # ("Your input ran out of data") and trains on nothing: tapekit refuses it too.
    class Empty(Squares):
        def __len__(self):
            return 0
    with pytest.raises(ValueError, match=r"^The PyDataset has length 0: validation_data \(Empty\)"):
        EpochIterator(Empty(0, 1), what="validation_data")
    with pytest.raises(ValueError, match=r"^When passing a Python generator to a Keras model, the "
                                         r"generator must yield at least one batch\. Received an "
                                         r"empty generator: x \(generator\) gave no batch"):
        EpochIterator(b for b in [])
    with pytest.raises(ValueError, match=r"empty generator: x \(Batches\)"):
        class Batches:                    # iterable, not an iterator: checked at its first pass
            def __iter__(self):
                return iter([])
        list(EpochIterator(Batches()).enumerate_epoch())
    with pytest.raises(ValueError, match="^x has 0 samples"):
        EpochIterator(X[:0], X[:0])
    with pytest.raises(ValueError, match="^validation_data has 0 samples"):
        EpochIterator({"a": X[:0]}, what="validation_data")
