"""The accuracy metrics (metrics/accuracy.py), counted by hand."""
import numpy as np
import pytest

import tapekit as tk


LOGITS = np.array([[0.1, 0.2, 0.7],    # argmax 2
                   [0.3, 0.6, 0.1],    # argmax 1
                   [0.5, 0.5, 0.0],    # tie: argmax is the first, 0
                   [0.2, 0.3, 0.5]], np.float32)


LABELS = np.array([2, 0, 0, 1])          # right, wrong, right (tie -> 0), wrong


def value(m):
    r = m.result()
    assert r.dtype == tk.float32 and r.shape == ()
    return float(r)


@pytest.mark.parametrize("labels", [LABELS, LABELS[:, None], LABELS.astype(np.float32)])
def test_sparse_categorical_accuracy_label_shapes(labels):
    m = tk.metrics.SparseCategoricalAccuracy()
    assert m.name == "sparse_categorical_accuracy"
    m.update_state(labels, LOGITS)
    assert value(m) == 0.5
    per_sample = tk.metrics.sparse_categorical_accuracy(labels, LOGITS)
    np.testing.assert_array_equal(per_sample.numpy(), [1, 0, 1, 0])
    m.update_state(labels, LOGITS, sample_weight=[0.0, 1.0, 0.0, 1.0])   # only the wrong ones
    assert value(m) == pytest.approx(2 / 6)


def test_sparse_categorical_accuracy_compares_float_labels_as_floats():
    # Keras 3.15 gives 0.5 here and per-sample [1, 0, 1, 0]; tapekit truncated the labels to
    # int64 (0.9 -> 0, 2.5 -> 2) and gave [1, 0, 1, 1], 0.75.
    labels = np.array([2.0, 0.9, 0.0, 2.5], np.float32)   # argmax of LOGITS: 2, 1, 0, 2
    # as floats: 2.0 == 2 yes, 0.9 != 1, 0.0 == 0 yes, 2.5 != 2 -> [1, 0, 1, 0] = 0.5
    # (int64 truncation gave [1, 0, 1, 1] = 0.75)
    np.testing.assert_array_equal(tk.metrics.sparse_categorical_accuracy(labels, LOGITS).numpy(),
                                  [1, 0, 1, 0])
    m = tk.metrics.SparseCategoricalAccuracy()
    m.update_state(labels[:, None], LOGITS)
    assert value(m) == 0.5


def test_categorical_binary_and_exact_accuracy():
    one_hot = np.eye(3, dtype=np.float32)[LABELS]
    m = tk.metrics.CategoricalAccuracy()
    m.update_state(one_hot, LOGITS)
    assert value(m) == 0.5
    b = tk.metrics.BinaryAccuracy()
    b.update_state([[1], [1], [0], [0]], [[0.98], [0.5], [0.0], [0.6]])   # 0.5 is not > 0.5
    assert value(b) == 0.5                                  # right: rows 0 and 2
    b2 = tk.metrics.BinaryAccuracy(threshold=0.4)
    b2.update_state([[1], [1], [0], [0]], [[0.98], [0.5], [0.0], [0.6]])
    assert value(b2) == 0.75                                # row 1 right now
    a = tk.metrics.Accuracy()
    a.update_state([1, 2, 3, 4], [0, 2, 3, 4])
    assert value(a) == 0.75


def test_top_k():
    m = tk.metrics.SparseTopKCategoricalAccuracy(k=2)
    m.update_state(LABELS, LOGITS)   # ranks of the label: 1st, 2nd, tie for 1st, 2nd
    assert value(m) == 1.0
    m1 = tk.metrics.SparseTopKCategoricalAccuracy(k=1)
    m1.update_state(LABELS, LOGITS)  # the tie counts as top-1 for both tied classes (in_top_k)
    assert value(m1) == 0.5
    t = tk.metrics.TopKCategoricalAccuracy(k=1)
    t.update_state(np.eye(3, dtype=np.float32)[[0, 1, 1, 0]], LOGITS)
    assert value(t) == 0.5     # row 2 (tie 0/1) and row 1 (argmax 1) right; rows 0 and 3 wrong
