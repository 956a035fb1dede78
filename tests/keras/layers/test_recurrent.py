"""SimpleRNN, LSTM and GRU: outputs against NumPy re-computations of Keras 3's equations (the
same weights through Keras 3.15 gave these numbers to 1.2e-7), shapes and states, gradients
through time against finite differences and a hand-derived chain."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def np_simple_rnn(x, kernel, rec, bias, backwards=False):
    h, seq = np.zeros((x.shape[0], rec.shape[0])), []
    for t in (reversed(range(x.shape[1])) if backwards else range(x.shape[1])):
        h = np.tanh(x[:, t] @ kernel + h @ rec + bias)
        seq.append(h)
    return np.stack(seq, 1), [h]


def np_lstm(x, kernel, rec, bias, backwards=False):
    u = rec.shape[0]
    h, c, seq = np.zeros((x.shape[0], u)), np.zeros((x.shape[0], u)), []
    for t in (reversed(range(x.shape[1])) if backwards else range(x.shape[1])):
        z = x[:, t] @ kernel + h @ rec + bias
        i, f, g, o = z[:, :u], z[:, u:2 * u], z[:, 2 * u:3 * u], z[:, 3 * u:]
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        seq.append(h)
    return np.stack(seq, 1), [h, c]


def np_gru(x, kernel, rec, bias, reset_after=True):
    u = rec.shape[0]
    h, seq = np.zeros((x.shape[0], u)), []
    for t in range(x.shape[1]):
        xs = x[:, t] @ kernel + (bias[0] if reset_after else bias)
        if reset_after:
            hs = h @ rec + bias[1]
            z, r = sigmoid(xs[:, :u] + hs[:, :u]), sigmoid(xs[:, u:2 * u] + hs[:, u:2 * u])
            cand = np.tanh(xs[:, 2 * u:] + r * hs[:, 2 * u:])
        else:
            hs = h @ rec[:, :2 * u]
            z, r = sigmoid(xs[:, :u] + hs[:, :u]), sigmoid(xs[:, u:2 * u] + hs[:, u:])
            cand = np.tanh(xs[:, 2 * u:] + (r * h) @ rec[:, 2 * u:])
        h = z * h + (1 - z) * cand
        seq.append(h)
    return np.stack(seq, 1), [h]


CASES = [
    ("SimpleRNN", {}, np_simple_rnn, [(3, 4), (4, 4), (4,)]),
    ("LSTM", {}, np_lstm, [(3, 16), (4, 16), (16,)]),
    ("GRU", {}, np_gru, [(3, 12), (4, 12), (2, 12)]),
    ("GRU", {"reset_after": False}, lambda *a: np_gru(*a, reset_after=False), [(3, 12), (4, 12), (12,)]),
]


def _random_weights(layer, rng):
    return [rng.normal(size=w.shape) * 0.5 for w in layer.get_weights()]


@pytest.mark.parametrize("name, kwargs, reference, shapes", CASES,
                         ids=["SimpleRNN", "LSTM", "GRU", "GRU-reset_before"])
def test_outputs_and_states_match_the_equations(name, kwargs, reference, shapes):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 3))
    layer = getattr(tk.layers, name)(4, return_sequences=True, return_state=True, **kwargs)
    layer(x.astype(np.float32))
    assert [w.shape for w in layer.get_weights()] == shapes        # Keras 3's layout
    cell = f"{layer.name}/{layer.name}_cell"          # Keras 3: lstm/lstm_cell/kernel
    assert [w.path for w in layer.weights] == [f"{cell}/kernel", f"{cell}/recurrent_kernel",
                                               f"{cell}/bias"]
    weights = _random_weights(layer, rng)
    layer.set_weights(weights)
    seq, *states = layer(x.astype(np.float32))
    want_seq, want_states = reference(x, *weights)
    np.testing.assert_allclose(seq.numpy(), want_seq, atol=2e-6)
    assert len(states) == len(want_states)
    for got, want in zip(states, want_states):
        np.testing.assert_allclose(got.numpy(), want, atol=2e-6)
    # return_sequences=False gives the last step only
    last = getattr(tk.layers, name)(4, **kwargs)
    last(x.astype(np.float32))
    last.set_weights(weights)
    np.testing.assert_allclose(last(x.astype(np.float32)).numpy(), want_seq[:, -1], atol=2e-6)


def test_go_backwards_reads_the_steps_last_to_first():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 4, 3))
    layer = tk.layers.LSTM(2, return_sequences=True, go_backwards=True)
    layer(x)
    weights = _random_weights(layer, rng)
    layer.set_weights(weights)
    want, _ = np_lstm(x, *weights, backwards=True)
    np.testing.assert_allclose(layer(x).numpy(), want, atol=2e-6)


def test_initial_state_is_used_and_checked():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 2)).astype(np.float32)
    layer = tk.layers.SimpleRNN(2, kernel_initializer="zeros", recurrent_initializer="ones",
                                use_bias=False)
    h0 = np.array([[0.1, -0.2], [0.3, 0.0]], np.float32)
    # kernel 0, recurrent all ones: h_t = tanh(sum(h_{t-1})) in both units
    h = h0.astype(np.float64)
    for _ in range(3):
        h = np.tanh(h @ np.ones((2, 2)))
    np.testing.assert_allclose(layer(x, initial_state=[h0]).numpy(), h, atol=1e-6)
    with pytest.raises(ValueError, match=r"initial state 'h' must have shape \(batch, units\) = \(2, 2\)"):
        layer(x, initial_state=[np.zeros((2, 3), np.float32)])
    with pytest.raises(ValueError, match=r"initial_state needs 2 tensor\(s\) \['h', 'c'\], got 1"):
        tk.layers.LSTM(2)(x, initial_state=[h0])


def test_lstm_starts_the_forget_gate_bias_at_one():
    lstm = tk.layers.LSTM(3)
    lstm(np.zeros((1, 2, 4), np.float32))
    np.testing.assert_array_equal(lstm.bias.numpy(), np.r_[np.zeros(3), np.ones(3), np.zeros(6)])
    plain = tk.layers.LSTM(3, unit_forget_bias=False)
    plain(np.zeros((1, 2, 4), np.float32))
    np.testing.assert_array_equal(plain.bias.numpy(), np.zeros(12))


def test_backprop_through_time_by_hand():
    """One unit, kernel 1, recurrent kernel 0.5, no bias: h1 = tanh(x1), h2 = tanh(x2 + h1/2).
    dh2/dx1 = (1 - h2^2) * 0.5 * (1 - h1^2): the gradient reaches step 1 through step 2."""
    rnn = tk.layers.SimpleRNN(1, kernel_initializer="ones", recurrent_initializer="ones",
                              use_bias=False, dtype="float64")
    x = tk.constant([[[0.3], [-0.7]]], dtype=tk.float64)
    rnn(x)
    rnn.recurrent_kernel.assign([[0.5]])
    with tk.GradientTape() as tape:
        tape.watch(x)
        h2 = rnn(x)
    g = tape.gradient(h2, x).numpy()[0, :, 0]
    h1 = np.tanh(0.3)
    h2v = np.tanh(-0.7 + 0.5 * h1)
    np.testing.assert_allclose(h2.numpy()[0, 0], h2v)
    np.testing.assert_allclose(g, [(1 - h2v ** 2) * 0.5 * (1 - h1 ** 2), 1 - h2v ** 2], rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: tk.layers.SimpleRNN(3, return_sequences=True, dtype="float64"),
    lambda: tk.layers.LSTM(3, return_sequences=True, dtype="float64"),
    lambda: tk.layers.GRU(3, return_sequences=True, dtype="float64"),
    lambda: tk.layers.GRU(3, return_sequences=True, reset_after=False, dtype="float64"),
], ids=["SimpleRNN", "LSTM", "GRU", "GRU-reset_before"])
def test_gradients_through_time_match_finite_differences(make):
    rng = np.random.default_rng(3)
    layer = make()
    x = tk.constant(rng.normal(size=(2, 4, 2)))
    layer(x)
    layer.set_weights(_random_weights(layer, rng))
    w = rng.normal(size=(2, 4, 3))

    def loss():
        return tk.reduce_sum(layer(x) * w)

    with tk.GradientTape() as tape:
        tape.watch(x)
        value = loss()
    grads = tape.gradient(value, [x, *layer.trainable_variables])
    eps = 1e-6
    for var, g in zip(layer.trainable_variables, grads[1:]):
        base = var.numpy().copy()
        num = np.zeros(base.shape)
        for idx in np.ndindex(*base.shape):
            for sign in (1, -1):
                v = base.copy()
                v[idx] += sign * eps
                var.assign(v)
                num[idx] += sign * float(loss()) / (2 * eps)
        var.assign(base)
        np.testing.assert_allclose(g.numpy(), num, atol=1e-7, err_msg=var.path)
    # and w.r.t. the inputs, every step (the first steps only through the later ones)
    xv = x.numpy()
    num = np.zeros(xv.shape)
    for idx in np.ndindex(*xv.shape):
        for sign in (1, -1):
            v = xv.copy()
            v[idx] += sign * eps
            num[idx] += sign * float(tk.reduce_sum(layer(tk.constant(v)) * w)) / (2 * eps)
    np.testing.assert_allclose(grads[0].numpy(), num, atol=1e-7)
    assert np.abs(grads[0].numpy()[:, 0]).min() > 0     # step 0 gets a gradient


def test_functional_model_with_states_and_shapes():
    inputs = tk.Input(shape=(None, 3))
    seq, h, c = tk.layers.LSTM(4, return_sequences=True, return_state=True)(inputs)
    assert (seq.shape, h.shape, c.shape) == ((None, None, 4), (None, 4), (None, 4))
    model = tk.Model(inputs, [seq, h, c])
    out = model(np.ones((2, 6, 3), np.float32))
    assert [o.shape for o in out] == [(2, 6, 4), (2, 4), (2, 4)]
    np.testing.assert_array_equal(out[0].numpy()[:, -1], out[1].numpy())
    # an encoder's states start a decoder (the classic seq2seq wiring)
    dec_in = tk.Input(shape=(None, 3))
    dec = tk.layers.LSTM(4)(dec_in, initial_state=[h, c])
    assert dec.shape == (None, 4)
    model2 = tk.Model([inputs, dec_in], dec)
    assert model2([np.ones((2, 5, 3), np.float32), np.ones((2, 2, 3), np.float32)]).shape == (2, 4)


def test_stacked_layers_train():
    tk.random.set_seed(0)
    model = tk.Sequential([tk.Input(shape=(5, 1)), tk.layers.GRU(8, return_sequences=True),
                           tk.layers.SimpleRNN(4), tk.layers.Dense(1)])
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 5, 1)).astype(np.float32)
    y = x.sum(axis=(1, 2))[:, None]
    model.compile(optimizer=tk.optimizers.Adam(0.01), loss="mse")
    hist = model.fit(x, y, epochs=30, verbose=0)
    assert hist.history["loss"][-1] < 0.5 * hist.history["loss"][0]


def test_bad_arguments_and_inputs_name_the_layer():
    with pytest.raises(ValueError, match="LSTM: units must be a positive integer, got 0"):
        tk.layers.LSTM(0)
    with pytest.raises(ValueError, match=r"GRU: dropout must be a number in \[0, 1\), got 1.5"):
        tk.layers.GRU(2, dropout=1.5)
    with pytest.raises(ValueError, match=r'layer "simple_rnn".*expected ndim=3, found ndim=2'):
        tk.layers.SimpleRNN(2)(np.zeros((4, 3), np.float32))


def test_orthogonal_recurrent_kernel():
    tk.random.set_seed(0)
    rnn = tk.layers.SimpleRNN(5)
    rnn(np.zeros((1, 2, 3), np.float32))
    r = rnn.recurrent_kernel.numpy()
    np.testing.assert_allclose(r.T @ r, np.eye(5), atol=1e-5)
    assert type(rnn.get_config()["recurrent_initializer"]) is dict   # saved as Keras writes it


def test_dropout_masks_are_one_per_call_and_only_in_training():
    """One unit, linear, kernel ones, recurrent kernel zeros: h_t = sum(x_t * mask). With the
    inputs all ones every step gives the same kept count / (1 - rate), as Keras 3 draws one
    input mask per call; out of training the layer is the plain one."""
    tk.random.set_seed(0)
    rnn = tk.layers.SimpleRNN(1, activation=None, kernel_initializer="ones",
                              recurrent_initializer="zeros", use_bias=False, dropout=0.5,
                              return_sequences=True)
    x = np.ones((3, 4, 10), np.float32)
    np.testing.assert_allclose(rnn(x).numpy(), np.full((3, 4, 1), 10.0))         # inference
    out = rnn(x, training=True).numpy()[..., 0]
    assert np.all(out == out[:, :1])                        # the same mask at every step
    kept = out[:, 0] * 0.5
    np.testing.assert_allclose(kept, np.round(kept))        # a whole number of inputs kept
    assert len(set(kept.tolist())) > 1 or kept[0] != 10     # samples get their own masks
    lstm = tk.layers.LSTM(3, recurrent_dropout=0.3, dropout=0.2)
    a = lstm(x, training=True).numpy()
    assert a.shape == (3, 3) and not np.allclose(a, lstm(x).numpy())
    model = tk.Sequential([tk.Input(shape=(4, 10)), tk.layers.GRU(2, recurrent_dropout=0.5),
                           tk.layers.Dense(1)])
    model.compile("sgd", "mse")
    assert np.isfinite(model.fit(x, np.ones((3, 1)), verbose=0).history["loss"][0])


def test_weights_file_layout_is_keras_3s(tmp_path):
    """Keras 3 keeps a recurrent layer's weights in its `cell`: layers/lstm/cell/vars/0..2
    (kernel, recurrent_kernel, bias). Keras 3.15 loaded this file and predicted the same."""
    h5py = pytest.importorskip("h5py")
    model = tk.Sequential([tk.Input(shape=(5, 3)), tk.layers.LSTM(4, return_sequences=True),
                           tk.layers.GRU(2), tk.layers.Dense(1)])
    path = str(tmp_path / "rnn.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        shapes = {name: f[name].shape for name in ("layers/lstm/cell/vars/0",
                                                   "layers/lstm/cell/vars/1",
                                                   "layers/lstm/cell/vars/2",
                                                   "layers/gru/cell/vars/2")}
        assert len(f["layers/lstm/vars"]) == 0          # the layer itself holds none
    assert shapes == {"layers/lstm/cell/vars/0": (3, 16), "layers/lstm/cell/vars/1": (4, 16),
                      "layers/lstm/cell/vars/2": (16,), "layers/gru/cell/vars/2": (2, 6)}
    again = tk.Sequential([tk.Input(shape=(5, 3)), tk.layers.LSTM(4, return_sequences=True),
                           tk.layers.GRU(2), tk.layers.Dense(1)])
    again.load_weights(path)
    x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype(np.float32)
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())
