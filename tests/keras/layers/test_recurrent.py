"""SimpleRNN, LSTM and GRU: outputs against NumPy re-computations of Keras 3's equations (the
same weights through Keras 3.15 gave these numbers to 1.2e-7), shapes and states, gradients
through time against finite differences and a hand-derived chain; masks (issue 43) against
Keras 3.15's numbers."""
import re

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


# --- masks (issue 43) ---------------------------------------------------------------------------
def sine(shape, k):
    """Fixed test data: 0.5 * sin(0.37 n + k) over the entries, in float32."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + k) * 0.5).astype(np.float32).reshape(shape)


MASK_X = sine((2, 4, 3), 0.0)
# step 2 of the first row and the first and last steps of the second are padding
MASK = np.array([[1, 1, 0, 1], [0, 1, 1, 0]], bool)
MASK_KINDS = {"SimpleRNN": (tk.layers.SimpleRNN, {}), "LSTM": (tk.layers.LSTM, {}),
              "GRU": (tk.layers.GRU, {}), "GRU-reset_before": (tk.layers.GRU, {"reset_after": False})}
# Keras 3.15 on these layers with set_weights([sine(w.shape, i + 1) ...]): the sequence with
# the mask, with go_backwards, with initial_state [sine((2, 2), 7 + j)], with
# zero_output_for_mask=True, and the last states (return_state=True)
KERAS_MASKED = {
    "SimpleRNN": {
        "seq": [[[0.2573227, 0.0128239], [0.6478265, 0.44533], [0.6478265, 0.44533], [0.1578533, -0.0971073]],
                [[0.0, 0.0], [-0.1554541, -0.3389309], [0.3063254, 0.1270092], [0.3063254, 0.1270092]]],
        "backwards": [[[-0.2187905, -0.3187949], [-0.2187905, -0.3187949], [0.4544289, 0.2982801], [0.4839589, 0.1741731]],
                      [[0.0, 0.0], [0.4246929, 0.185091], [0.0724089, -0.1991973], [0.0724089, -0.1991973]]],
        "initial_state": [[[0.4613981, 0.1335377], [0.7103646, 0.501954], [0.7103646, 0.501954], [0.1961102, -0.074578]],
                          [[0.0, 0.0], [0.1622148, -0.1703785], [0.457271, 0.2365464], [0.457271, 0.2365464]]],
        "zero_output": [[[0.2573227, 0.0128239], [0.6478265, 0.44533], [0.0, 0.0], [0.1578533, -0.0971073]],
                        [[0.0, 0.0], [-0.1554541, -0.3389309], [0.3063254, 0.1270092], [0.0, 0.0]]],
        "last_states": [[[0.1578533, -0.0971073], [0.3063254, 0.1270092]]],
    },
    "LSTM": {
        "seq": [[[-0.080961, -0.0829732], [-0.1059637, -0.1127999], [-0.1059637, -0.1127999], [-0.136968, -0.1366175]],
                [[0.0, 0.0], [-0.0933024, -0.0893443], [-0.1159642, -0.1152614], [-0.1159642, -0.1152614]]],
        "backwards": [[[-0.0993156, -0.0958052], [-0.0993156, -0.0958052], [-0.1165534, -0.1180362], [-0.1303526, -0.1314556]],
                      [[0.0, 0.0], [-0.0748226, -0.0803151], [-0.1215115, -0.1196259], [-0.1215115, -0.1196259]]],
        "initial_state": [[[0.0033393, -0.0055706], [-0.0682164, -0.081801], [-0.0682164, -0.081801], [-0.1235865, -0.1255088]],
                          [[0.0, 0.0], [-0.0494109, -0.0690953], [-0.0971303, -0.1083455], [-0.0971303, -0.1083455]]],
        "zero_output": [[[-0.080961, -0.0829732], [-0.1059637, -0.1127999], [0.0, 0.0], [-0.136968, -0.1366175]],
                        [[0.0, 0.0], [-0.0933024, -0.0893443], [-0.1159642, -0.1152614], [0.0, 0.0]]],
        "last_states": [[[-0.136968, -0.1366175], [-0.1159642, -0.1152614]],
                        [[-0.3732501, -0.336601], [-0.2959912, -0.2829071]]],
    },
    "GRU": {
        "seq": [[[-0.237203, -0.1833585], [-0.2895091, -0.2309961], [-0.2895091, -0.2309961], [-0.3258249, -0.2914824]],
                [[0.0, 0.0], [-0.2498487, -0.197384], [-0.3037145, -0.2255224], [-0.3037145, -0.2255224]]],
        "backwards": [[[-0.2223564, -0.2251055], [-0.2223564, -0.2251055], [-0.2801047, -0.2463332], [-0.3176339, -0.2399031]],
                      [[0.0, 0.0], [-0.2283676, -0.1806588], [-0.3181625, -0.2373323], [-0.3181625, -0.2373323]]],
        "initial_state": [[[-0.1557447, -0.0795291], [-0.2674854, -0.2022721], [-0.2674854, -0.2022721], [-0.3191573, -0.2825188]],
                          [[0.0, 0.0], [-0.0995061, -0.0845016], [-0.2584355, -0.2005355], [-0.2584355, -0.2005355]]],
        "zero_output": [[[-0.237203, -0.1833585], [-0.2895091, -0.2309961], [0.0, 0.0], [-0.3258249, -0.2914824]],
                        [[0.0, 0.0], [-0.2498487, -0.197384], [-0.3037145, -0.2255224], [0.0, 0.0]]],
        "last_states": [[[-0.3258249, -0.2914824], [-0.3037145, -0.2255224]]],
    },
    "GRU-reset_before": {
        "seq": [[[-0.228724, -0.2292645], [-0.3067544, -0.3151085], [-0.3067544, -0.3151085], [-0.3551779, -0.3842146]],
                [[0.0, 0.0], [-0.238322, -0.2400876], [-0.3197186, -0.3128569], [-0.3197186, -0.3128569]]],
        "backwards": [[[-0.209735, -0.2530049], [-0.209735, -0.2530049], [-0.2954512, -0.3264723], [-0.3465242, -0.3467171]],
                      [[0.0, 0.0], [-0.2211866, -0.2264433], [-0.3285329, -0.3197461], [-0.3285329, -0.3197461]]],
        "initial_state": [[[-0.1042365, -0.0818228], [-0.2544347, -0.2577291], [-0.2544347, -0.2577291], [-0.330909, -0.35981]],
                          [[0.0, 0.0], [-0.0245161, -0.0772906], [-0.2266895, -0.2557728], [-0.2266895, -0.2557728]]],
        "zero_output": [[[-0.228724, -0.2292645], [-0.3067544, -0.3151085], [0.0, 0.0], [-0.3551779, -0.3842146]],
                        [[0.0, 0.0], [-0.238322, -0.2400876], [-0.3197186, -0.3128569], [0.0, 0.0]]],
        "last_states": [[[-0.3551779, -0.3842146], [-0.3197186, -0.3128569]]],
    },
}


def masked_layer(kind, dtype=None, **kwargs):
    cls, extra = MASK_KINDS[kind]
    layer = cls(2, dtype=dtype, **extra, **kwargs)
    layer.build((None, 4, 3))
    layer.set_weights([sine(v.shape, i + 1.0) for i, v in enumerate(layer.weights)])
    return layer


@pytest.mark.parametrize("kind", list(MASK_KINDS))
def test_a_masked_step_keeps_the_state_and_the_output_as_keras_3(kind):
    """Issue 43: with mask= the layers gave the unmasked numbers. Keras 3.15's numbers: a
    masked step keeps the states and repeats the previous output (zeros before any data)."""
    want = {k: np.array(v) for k, v in KERAS_MASKED[kind].items()}
    seq = masked_layer(kind, return_sequences=True)(MASK_X, mask=MASK)
    np.testing.assert_allclose(seq.numpy(), want["seq"], atol=2e-6)
    np.testing.assert_array_equal(seq._keras_mask.numpy(), MASK)        # carried on
    last = masked_layer(kind)(MASK_X, mask=MASK)
    np.testing.assert_allclose(last.numpy(), want["seq"][:, -1], atol=2e-6)
    assert not hasattr(last, "_keras_mask")                             # the last step: none
    unmasked = masked_layer(kind)(MASK_X)
    assert np.abs(unmasked.numpy() - last.numpy()).max() > 1e-3          # the mask matters
    out, *states = masked_layer(kind, return_state=True)(MASK_X, mask=MASK)
    np.testing.assert_allclose(np.stack([s.numpy() for s in states]), want["last_states"], atol=2e-6)
    np.testing.assert_allclose(out.numpy(), want["seq"][:, -1], atol=2e-6)
    # the mask as ints, floats and (batch, steps, 1) means the same (Keras casts it to bool)
    for other in (MASK.astype(np.int32), MASK * 0.5, MASK[..., None], tk.constant(MASK)):
        np.testing.assert_array_equal(masked_layer(kind)(MASK_X, mask=other).numpy(), last.numpy())


@pytest.mark.parametrize("kind", list(MASK_KINDS))
def test_masks_with_go_backwards_initial_state_and_zero_output(kind):
    """go_backwards reads the mask backwards too and returns the steps in reversed order,
    the mask (carried on) in the input's order, as Keras 3.15."""
    want = {k: np.array(v) for k, v in KERAS_MASKED[kind].items()}
    back = masked_layer(kind, return_sequences=True, go_backwards=True)(MASK_X, mask=MASK)
    np.testing.assert_allclose(back.numpy(), want["backwards"], atol=2e-6)
    np.testing.assert_array_equal(back._keras_mask.numpy(), MASK)
    n = 2 if kind == "LSTM" else 1
    init = [sine((2, 2), 7.0 + j) for j in range(n)]
    seq = masked_layer(kind, return_sequences=True)(MASK_X, mask=MASK, initial_state=init)
    np.testing.assert_allclose(seq.numpy(), want["initial_state"], atol=2e-6)
    zero = masked_layer(kind, return_sequences=True, zero_output_for_mask=True)
    np.testing.assert_allclose(zero(MASK_X, mask=MASK).numpy(), want["zero_output"], atol=2e-6)
    last = masked_layer(kind, zero_output_for_mask=True, return_state=True)(MASK_X, mask=MASK)
    np.testing.assert_allclose(last[0].numpy(), want["zero_output"][:, -1], atol=2e-6)
    np.testing.assert_allclose(last[1].numpy(), want["last_states"][0], atol=2e-6)   # kept
    config = zero.get_config()
    assert config["zero_output_for_mask"] is True
    assert type(zero).from_config(config).zero_output_for_mask is True


def test_the_mask_of_an_embedding_reaches_the_layer_and_initial_state_hides_it():
    """Embedding(mask_zero=True)'s mask is read from the input; with initial_state Keras 3.15
    reads none (its numbers equal the unmasked ones): tapekit the same, with a warning;
    mask= given explicitly is applied."""
    emb = tk.layers.Embedding(5, 3, mask_zero=True)
    emb.build((None, 4))
    emb.set_weights([sine((5, 3), 1.0)])
    ids = np.array([[1, 2, 0, 0], [3, 0, 4, 1]])
    e = emb(ids)
    rnn = tk.layers.SimpleRNN(2, return_sequences=True)
    rnn.build((None, 4, 3))
    rnn.set_weights([sine(v.shape, k + 2.0) for k, v in enumerate(rnn.weights)])
    # Keras 3.15: the mask read from the embedding's output
    np.testing.assert_allclose(rnn(e).numpy(), [
        [[-0.1460994, -0.348117], [-0.2823527, -0.2063392], [-0.2823527, -0.2063392], [-0.2823527, -0.2063392]],
        [[-0.5436169, -0.4528163], [-0.5436169, -0.4528163], [-0.4581442, -0.3273852], [-0.0870457, -0.1747395]]],
        atol=2e-6)
    h0 = sine((2, 2), 8.0)
    plain = rnn(tk.identity(e), initial_state=h0)         # no mask on the input
    with pytest.warns(UserWarning, match=r"SimpleRNN 'simple_rnn': its input carries a mask.*"
                                         r"not applied because initial_state is given.*mask="):
        hidden = rnn(e, initial_state=h0)
    np.testing.assert_array_equal(hidden.numpy(), plain.numpy())
    np.testing.assert_allclose(plain.numpy()[:, 1], [[-0.238595, -0.1217873], [-0.063675, -0.1935278]],
                               atol=2e-6)
    np.testing.assert_allclose(rnn(e, initial_state=h0, mask=e._keras_mask).numpy(), [
        [[-0.2305233, -0.5359651], [-0.238595, -0.1217873], [-0.238595, -0.1217873], [-0.238595, -0.1217873]],
        [[-0.5584397, -0.5283248], [-0.5584397, -0.5283248], [-0.4420195, -0.2978054], [-0.0941804, -0.1882898]]],
        atol=2e-6)


def test_a_mask_of_the_wrong_shape_or_dtype_is_refused_naming_the_layer_and_shapes():
    """Keras 3.15 fails deep in TensorFlow ("Cannot unstack 5 tensors", an IndexError, a
    SelectV2 broadcast error) or not at all; tapekit names the layer and the shapes."""
    layer = masked_layer("LSTM")
    for bad in ((2, 5), (2,), (4,), (3, 4), (2, 4, 3)):
        with pytest.raises(ValueError, match=r"LSTM 'lstm': the mask must have shape \(batch, steps\) "
                                             r"= \(2, 4\) or \(2, 4, 1\) for inputs of shape "
                                             rf"\(2, 4, 3\), got a mask of shape {re.escape(str(bad))}"):
            layer(MASK_X, mask=np.ones(bad, bool))
    with pytest.raises(TypeError, match=r"LSTM 'lstm': a mask must be bool.*got ndarray"):
        layer(MASK_X, mask=np.array([["a"] * 4] * 2))
    with pytest.raises(TypeError, match=r"LSTM 'lstm': a mask must be bool.*got dtype complex64"):
        layer(MASK_X, mask=tk.cast(tk.constant(MASK), tk.complex64))


@pytest.mark.parametrize("kind", list(MASK_KINDS))
def test_gradients_through_masked_steps_match_keras_and_finite_differences(kind):
    """The gradient reaches a masked step's input not at all and flows past it through the
    kept state; float64 layers against central differences (inputs and every weight)."""
    layer = masked_layer(kind, dtype="float64", return_sequences=True)
    x = MASK_X.astype(np.float64)
    w = sine((2, 4, 2), 9.0).astype(np.float64)

    def loss(xv):
        return tk.reduce_sum(layer(xv, mask=MASK) * w)

    tk.testing.check_grads(lambda xv: loss(xv), x, modes=("rev",))
    with tk.GradientTape() as tape:
        xt = tk.constant(x)
        tape.watch(xt)
        value = loss(xt)
    grads = tape.gradient(value, [xt, *layer.trainable_variables])
    assert np.all(grads[0].numpy()[~MASK] == 0)           # padded steps get no gradient
    eps = 1e-6
    for var, g in zip(layer.trainable_variables, grads[1:]):
        base = var.numpy().copy()
        num = np.zeros(base.shape)
        for idx in np.ndindex(*base.shape):
            for sign in (1, -1):
                v = base.copy()
                v[idx] += sign * eps
                var.assign(v)
                num[idx] += sign * float(loss(x)) / (2 * eps)
        var.assign(base)
        np.testing.assert_allclose(g.numpy(), num, atol=1e-8, err_msg=var.path)


def test_gradients_of_a_masked_lstm_equal_keras_3s():
    # Keras 3.15: d sum(lstm(x, mask) * sine((2, 4, 2), 9)) / dx and / d kernel
    layer = masked_layer("LSTM", return_sequences=True)
    with tk.GradientTape() as tape:
        x = tk.constant(MASK_X)
        tape.watch(x)
        loss = tk.reduce_sum(layer(x, mask=MASK) * sine((2, 4, 2), 9.0))
    gx, gk = tape.gradient(loss, [x, layer.kernel])
    np.testing.assert_allclose(gx.numpy(), [
        [[-0.0043244, 0.0128811, -0.0210142], [-0.0395679, 0.0560547, -0.070698], [0.0, 0.0, 0.0],
         [-0.0062208, 0.009265, -0.0120045]],
        [[0.0, 0.0, 0.0], [0.0124448, -0.025155, 0.037038], [0.0399735, -0.054024, 0.0662979],
         [0.0, 0.0, 0.0]]], atol=2e-7)
    np.testing.assert_allclose(gk.numpy(), [
        [0.0089878, 0.0175465, 0.0018469, 0.0037074, -0.0494334, -0.0724447, 0.0017791, 0.0145742],
        [-0.0003041, 0.0088262, -0.0022916, -0.0000472, -0.0151147, -0.0451663, -0.0154242, -0.0000672],
        [-0.0095548, -0.0010887, -0.00612, -0.0037955, 0.0212497, -0.0117749, -0.0305398, -0.0146996]],
        atol=2e-7)


def test_the_recurrent_layers_support_masking_and_say_which_outputs_carry_it():
    e = tk.layers.Embedding(4, 2, mask_zero=True)(np.array([[1, 0, 2]]))
    seq, h, c = tk.layers.LSTM(2, return_sequences=True, return_state=True)(e)
    np.testing.assert_array_equal(seq._keras_mask.numpy(), [[True, False, True]])
    assert not hasattr(h, "_keras_mask") and not hasattr(c, "_keras_mask")    # Keras 3.15: None
    layer = tk.layers.GRU(2, return_sequences=True, return_state=True)
    assert layer.supports_masking
    assert layer.compute_mask(None, tk.constant([[True]]))[1:] == [None]
