"""pad_sequences (utils/sequence_utils.py): Keras 3.15's padding, truncating, value and dtype."""
import numpy as np
import pytest

import tapekit as tk

SEQS = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], []]


@pytest.mark.parametrize("kwargs, dtype, expected", [
    # Keras 3.15 gives these
    ({}, "int32", [[0, 0, 1, 2, 3], [0, 0, 0, 4, 5], [6, 7, 8, 9, 10], [0, 0, 0, 0, 0]]),
    (dict(maxlen=3), "int32", [[1, 2, 3], [0, 4, 5], [8, 9, 10], [0, 0, 0]]),
    (dict(maxlen=3, padding="post", truncating="post"), "int32",
     [[1, 2, 3], [4, 5, 0], [6, 7, 8], [0, 0, 0]]),
    (dict(maxlen=4, value=-1, padding="post"), "int32",
     [[1, 2, 3, -1], [4, 5, -1, -1], [7, 8, 9, 10], [-1, -1, -1, -1]]),
    (dict(dtype="float32", value=0.5), "float32",
     [[0.5, 0.5, 1, 2, 3], [0.5, 0.5, 0.5, 4, 5], [6, 7, 8, 9, 10], [0.5] * 5]),
    (dict(maxlen=2, truncating="post"), "int32", [[1, 2], [4, 5], [6, 7], [0, 0]]),
])
def test_pad_sequences_as_keras(kwargs, dtype, expected):
    out = tk.utils.pad_sequences(SEQS, **kwargs)
    assert out.dtype == dtype and out.tolist() == expected


def test_entries_that_are_vectors_and_the_int_cast():
    # Keras 3.15 gives [[[0, 0], [1, 2], [3, 4]], [[0, 0], [0, 0], [5, 6]]] and [[1, 2]]
    assert tk.utils.pad_sequences([[[1, 2], [3, 4]], [[5, 6]]], maxlen=3).tolist() == [
        [[0, 0], [1, 2], [3, 4]], [[0, 0], [0, 0], [5, 6]]]
    assert tk.utils.pad_sequences([[1.7, 2.2]]).tolist() == [[1, 2]]
    assert tk.utils.pad_sequences([]).shape == (0, 0)     # Keras 3.15 raises numpy's error


@pytest.mark.parametrize("args, kwargs, message", [
    # Keras 3.15's messages
    ((5,), {}, "`sequences` must be iterable."),
    (([1, 2],), {}, "must be a list of iterables. Found non-iterable: 1"),
    (([[1]],), dict(padding="mid"), 'Padding type "mid" not understood'),
    (([[1]],), dict(truncating="mid"), 'Truncating type "mid" not understood'),
    (([["a"]],), dict(value="x"), "is not compatible with `value`'s type"),
    (([[[1, 2]], [[1, 2, 3]]],), {}, r"Shape of sample \(3,\) of sequence at position 1 is "
                                     r"different from expected shape \(2,\)"),
])
def test_bad_input_is_refused_as_keras(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        tk.utils.pad_sequences(*args, **kwargs)
