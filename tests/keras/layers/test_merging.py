"""Merge layers and their functional forms (layers/merging.py), values derived with NumPy."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.testing import check_grads


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_merge_layers_and_their_functional_forms():
    a, b, c = (np.random.default_rng(i).normal(size=(2, 3)) for i in range(3))
    f64 = {"dtype": tk.float64}
    np.testing.assert_allclose(layers.Add(**f64)([a, b, c]).numpy(), a + b + c)
    np.testing.assert_allclose(layers.Subtract(**f64)([a, b]).numpy(), a - b)
    np.testing.assert_allclose(layers.Multiply(**f64)([a, b]).numpy(), a * b)
    np.testing.assert_allclose(layers.Average(**f64)([a, b, c]).numpy(), (a + b + c) / 3)
    np.testing.assert_allclose(layers.Maximum(**f64)([a, b]).numpy(), np.maximum(a, b))
    np.testing.assert_allclose(layers.Minimum(**f64)([a, b]).numpy(), np.minimum(a, b))
    np.testing.assert_allclose(layers.concatenate([a, b], **f64).numpy(), np.concatenate([a, b], -1))
    np.testing.assert_allclose(layers.dot([a, b], axes=1, **f64).numpy(), (a * b).sum(1, keepdims=True))
    cos = layers.Dot(axes=1, normalize=True, **f64)([a, b]).numpy()
    np.testing.assert_allclose(cos[:, 0], (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1))
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        layers.Subtract()([a, b, c])
    check_grads(lambda x, y: layers.Multiply(**f64)([x, y]), a, b)


def test_a_merge_of_one_tensor_or_a_tensor_is_a_clear_error():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"Add 'add': expected a list of at least 2 tensors, got "
                                         r"list of length 1"):
        layers.Add()([x])
    with pytest.raises(ValueError, match=r"Multiply 'multiply': expected a list of at least 2 "
                                         r"tensors, got Tensor$"):   # converted on the way in
        layers.Multiply()(x)


def test_output_shapes_broadcast_and_keep_unknown_sizes():
    assert layers.Add().compute_output_shape([(None, 3), (None, 1)]) == (None, 3)
    assert layers.Maximum().compute_output_shape([(1, 1), (1, 1)]) == (1, 1)
    assert layers.Concatenate().compute_output_shape([(None, 3), (None, 4)]) == (None, 7)
    assert layers.Concatenate(axis=1).compute_output_shape([(2, None, 5), (2, 3, 5)]) == (2, None, 5)
    assert layers.Dot(axes=(2, 1)).compute_output_shape([(None, 4, 3), (None, 3, 6)]) == (None, 4, 6)
    a, b = tk.Input((3,)), tk.Input((1,))
    assert layers.add([a, b]).shape == (None, 3)            # symbolic inputs: the same shapes


def test_add_broadcasts_and_concatenate_takes_its_axis():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([[10.0], [20.0]], np.float32)
    np.testing.assert_array_equal(layers.Add()([a, b]).numpy(), a + b)
    np.testing.assert_array_equal(layers.Concatenate(axis=0)([a, a]).numpy(), np.concatenate([a, a]))


def test_dot_of_rank_3_batches_contracts_the_axes_given():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 3, 5))
    f64 = {"dtype": tk.float64}
    np.testing.assert_allclose(layers.Dot(axes=(2, 1), **f64)([a, b]).numpy(),
                               np.einsum("bij,bjk->bik", a, b))
    c = rng.normal(size=(2, 4, 5))
    np.testing.assert_allclose(layers.Dot(axes=1, **f64)([a, c]).numpy(),     # both axis 1
                               np.einsum("bji,bjk->bik", a, c))
    assert layers.Dot(axes=(2, 1)).get_config()["axes"] == [2, 1]
    assert layers.Dot(axes=1).get_config()["axes"] == 1
    with pytest.raises(ValueError, match=r"supports inputs of rank 2 or 3, got shapes"):
        layers.Dot(axes=1)([np.ones((1, 2, 2, 2)), np.ones((1, 2, 2, 2))])


def test_masked_inputs_merge_as_in_keras_3():
    """Issue 43, Keras 3.15's numbers: two Embedding(5, 2, mask_zero=True) (tables 0.5 sin(0.37 n
    + 1) and + 2) on [[1, 0, 2, 0]] and [[0, 0, 3, 4]]. Add, Subtract, Average keep the values
    and OR the masks; Multiply counts a masked step as 1 (0 where both are masked); Maximum and
    Minimum take the other input's value there; Concatenate joins the masks; Dot has none."""
    def embedding(k):
        emb = tk.layers.Embedding(5, 2, mask_zero=True)
        emb.build((None, 4))
        emb.set_weights([(np.sin(np.arange(10) * 0.37 + k) * 0.5).astype(np.float32).reshape(5, 2)])
        return emb
    a = embedding(1.0)(np.array([[1, 0, 2, 0]]))
    b = embedding(2.0)(np.array([[0, 0, 3, 4]]))
    keras = {
        "Add": [[0.9475083, 0.7776978], [0.8753842, 0.8385929], [-0.1334159, -0.3525209], [-0.0640149, 0.0823219]],
        "Subtract": [[0.0382109, 0.08042], [-0.0339132, 0.1413152], [0.7477902, 0.6399989], [0.9054859, 0.8975861]],
        "Average": [[0.4737542, 0.3888489], [0.4376921, 0.4192964], [-0.0667079, -0.1762604], [-0.0320074, 0.041161]],
        "Multiply": [[0.4928596, 0.4290589], [0.0, 0.0], [-0.1353476, -0.0713319], [-0.4847504, -0.4076321]],
        "Maximum": [[0.4928596, 0.4290589], [0.4207355, 0.489954], [0.3071871, 0.143739], [-0.4847504, -0.4076321]],
        "Minimum": [[0.4928596, 0.4290589], [0.4207355, 0.489954], [-0.440603, -0.4962599], [-0.4847504, -0.4076321]],
        "Concatenate": [[0.4928596, 0.4290589, 0.4546487, 0.3486389], [0.4207355, 0.489954, 0.4546487, 0.3486389],
                        [0.3071871, 0.143739, -0.440603, -0.4962599], [0.4207355, 0.489954, -0.4847504, -0.4076321]],
    }
    for name, want in keras.items():
        out = getattr(tk.layers, name)()([a, b])
        np.testing.assert_allclose(out.numpy(), [want], atol=2e-7, err_msg=name)
        np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False, True, True]], err_msg=name)
    assert not hasattr(tk.layers.Dot(axes=2)([a, b]), "_keras_mask")
    plain = tk.constant(np.ones((1, 4, 2), np.float32))
    assert not hasattr(tk.layers.Add()([a, plain]), "_keras_mask")       # one input unmasked
    np.testing.assert_array_equal(tk.layers.Concatenate()([a, plain])._keras_mask.numpy(),
                                  [[True, True, True, True]])
    # one masked input of two: Multiply and Maximum read its masked steps as absent
    np.testing.assert_array_equal(tk.layers.Multiply()([a, plain * 2.0]).numpy()[0, 1], [2.0, 2.0])
    np.testing.assert_array_equal(tk.layers.Maximum()([plain * -3.0, a]).numpy()[0, 1], [-3.0, -3.0])
