"""Functional models (models/functional.py): the graph from Inputs to outputs, replayed on tensors."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.keras.models.functional import Graph


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_functional_model_equals_its_layers_applied_by_hand_values_and_gradients():
    tk.random.set_seed(0)
    inputs = tk.Input(shape=(5,), name="digits")
    d1, d2, d3 = layers.Dense(4, activation="relu"), layers.Dense(4, activation="tanh"), layers.Dense(2)
    outputs = d3(d2(d1(inputs)))
    model = tk.Model(inputs=inputs, outputs=outputs)
    x = tk.constant(np.random.default_rng(0).normal(size=(3, 5)).astype(np.float32))
    with tk.GradientTape(persistent=True) as tape:
        by_model = tk.reduce_sum(model(x) ** 2)
        by_hand = tk.reduce_sum(d3(d2(d1(x))) ** 2)
    assert float(by_model) == float(by_hand)
    assert len(model.trainable_weights) == 6
    for gm, gh in zip(tape.gradient(by_model, model.trainable_weights),
                      tape.gradient(by_hand, model.trainable_weights)):
        np.testing.assert_array_equal(gm.numpy(), gh.numpy())
    assert [layer.name for layer in model.layers] == ["digits", "dense", "dense_1", "dense_2"]
    assert model.name == "functional"


def test_functional_model_with_two_inputs_two_outputs_and_a_nested_sequential():
    a, b = tk.Input(shape=(3,), name="a"), tk.Input(shape=(2,), name="b")
    joined = layers.concatenate([a, b])
    tower = tk.Sequential([layers.Dense(4, activation="relu"), layers.Dense(1)], name="tower")
    score = tower(joined)
    extra = layers.Dense(2, name="extra")(b)
    model = tk.Model(inputs=[a, b], outputs={"score": score, "extra": extra})
    xa, xb = np.ones((2, 3), np.float32), np.full((2, 2), 2.0, np.float32)
    out = model([xa, xb])
    np.testing.assert_allclose(out["score"].numpy(), tower(np.concatenate([xa, xb], 1)).numpy())
    np.testing.assert_allclose(out["extra"].numpy(), model.get_layer("extra")(xb).numpy())
    by_name = model({"a": xa, "b": xb})
    np.testing.assert_array_equal(by_name["score"].numpy(), out["score"].numpy())
    assert score.shape == (None, 1) and tower.built


def test_functional_inputs_are_converted_to_the_input_dtype():
    inputs = tk.Input(shape=(4,))
    model = tk.Model(inputs, layers.Dense(1, kernel_initializer="ones")(inputs))
    assert model(np.full((1, 4), 2, np.uint8)).numpy().tolist() == [[8.0]]


def test_graph_disconnected_is_a_clear_error():
    a, b = tk.Input(shape=(2,), name="a"), tk.Input(shape=(2,), name="b")
    out = layers.Add()([a, b])
    with pytest.raises(ValueError, match=r"Graph disconnected.*\['a'\]"):
        tk.Model(inputs=a, outputs=out)
    with pytest.raises(TypeError, match="KerasTensor"):
        tk.Model(inputs=tk.ones((1, 2)), outputs=out)
    with pytest.raises(TypeError, match="placeholder without values"):
        a * 2.0


def test_add_loss_inside_a_functional_model_reaches_model_losses():
    class ActivityRegularization(layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * tk.reduce_sum(inputs))
            return inputs
    inputs = tk.Input(shape=(3,))
    x = layers.Dense(2, kernel_initializer="ones")(inputs)
    model = tk.Model(inputs, layers.Dense(1)(ActivityRegularization()(x)))
    assert model.losses == []                          # the symbolic call leaves none
    model(tk.ones((2, 3)))
    model(tk.ones((2, 3)))
    assert len(model.losses) == 1 and float(model.losses[0]) == pytest.approx(0.12)   # 0.01 * 12


def test_the_graph_runs_each_node_after_the_nodes_it_reads_and_a_shared_layer_once_listed():
    x = tk.Input((2,), name="x")
    shared = layers.Dense(2, name="shared")
    a = shared(x)
    b = layers.Dense(2, name="side")(x)
    out = shared(layers.Add(name="sum")([a, b]))           # shared is called twice
    graph = Graph(x, out)
    assert [n.layer.name for n in graph.nodes] == ["x", "shared", "side", "sum", "shared"]
    assert [layer.name for layer in graph.layers] == ["x", "shared", "side", "sum"]
    assert graph.output_shapes(shared) == [(None, 2), (None, 2)]
    value = np.array([[1.0, -2.0]], np.float32)
    hand = shared(shared(value) + graph.layers[2](value))
    np.testing.assert_allclose(graph.run(graph.convert(value)).numpy(), hand.numpy(), rtol=1e-6)


def test_inputs_by_name_and_their_count_are_checked():
    a, b = tk.Input((1,), name="a"), tk.Input((1,), name="b")
    model = tk.Model([a, b], layers.Subtract()([a, b]))
    one, two = np.array([[1.0]], np.float32), np.array([[3.0]], np.float32)
    assert float(model({"b": two, "a": one})[0, 0]) == -2.0
    with pytest.raises(ValueError, match=r"need the keys \['a', 'b'\] .* missing \['b'\]"):
        model({"a": one})
    with pytest.raises(ValueError, match=r"Model: expected 2 inputs \(\['a', 'b'\]\), got 3"):
        model([one, two, one])


def test_a_model_of_real_tensors_says_to_subclass():
    with pytest.raises(TypeError, match=r"Model\(outputs=...\): expected KerasTensors .* got "
                                        r"Tensor\. For a model on real tensors, subclass tk.Model"):
        tk.Model(tk.Input((1,)), tk.ones((1, 1)))
    with pytest.raises(TypeError, match=r"Model\(inputs=...\): .* got nothing"):
        Graph([], tk.Input((1,)))


def test_layers_and_weights_of_a_branched_model_come_in_keras_order():
    # Keras 3 orders a functional model's layers deepest first (layer calls to the furthest
    # output), and at one depth as a walk from the outputs first meets them. For
    # x -> h -> a (output 1) and h -> c, h -> b, add(c, b) (output 2): depths x 3, h 2,
    # c 1, b 1, a 0, add 0, walk order a, h, x, add, c, b. TF 2.21 / Keras 3.15 give
    # ['x', 'h', 'c', 'b', 'a', 'add'], and the weights in that order.
    x = tk.Input(shape=(4,), name="x")
    h = layers.Dense(3, name="h")(x)
    a = layers.Dense(1, name="a")(h)
    b = layers.Dense(2, name="b")(h)
    added = layers.Add(name="add")([layers.Dense(2, name="c")(h), b])
    model = tk.Model(x, [a, added])
    assert [layer.name for layer in model.layers] == ["x", "h", "c", "b", "a", "add"]
    assert [w.path for w in model.weights] == ["h/kernel", "h/bias", "c/kernel", "c/bias",
                                               "b/kernel", "b/bias", "a/kernel", "a/bias"]
    # a skip connection: the Input feeds both t1 and the Add, its depth is the longest path
    j = tk.Input(shape=(3,), name="j")
    t1 = layers.Dense(3, name="t1")(j)
    t3 = layers.Dense(3, name="t3")(layers.Add(name="sk")([j, layers.Dense(3, name="t2")(t1)]))
    model = tk.Model(j, [t3, t1])
    assert [layer.name for layer in model.layers] == ["j", "t1", "t2", "sk", "t3"]
    # an Input no output reads has depth 0 and comes first at that depth (Keras 3.15 gives
    # ['i1', 'unused', 'o'])
    i1, unused = tk.Input(shape=(2,), name="i1"), tk.Input(shape=(2,), name="unused")
    model = tk.Model([i1, unused], layers.Dense(1, name="o")(i1))
    assert [layer.name for layer in model.layers] == ["i1", "unused", "o"]


# --- masks through a functional graph (issue 43) -----------------------------------------------
def sine(shape, k):
    """Fixed test data: 0.5 * sin(0.37 n + k) over the entries, in float32."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + k) * 0.5).astype(np.float32).reshape(shape)


def with_sine_weights(model):
    model.set_weights([sine(v.shape, k + 1.0) for k, v in enumerate(model.weights)])
    return model


PADDED = sine((3, 4, 2), 3.0)
PADDED[0, 2:] = PADDED[2, 0] = 0.0      # Masking(0.0) pads steps 2, 3 of row 0 and 0 of row 2


def test_an_embeddings_mask_reaches_the_lstm_and_the_pooling_in_a_graph():
    """Keras 3.15: Input(int) -> Embedding(5, 3, mask_zero=True) -> LSTM(2, return_sequences)
    -> GlobalAveragePooling1D -> Dense(1), weights sine(shape, k + 1) in model.weights order."""
    i = tk.Input((4,), dtype="int32")
    h = layers.LSTM(2, return_sequences=True)(layers.Embedding(5, 3, mask_zero=True)(i))
    model = with_sine_weights(tk.Model(i, layers.Dense(1)(layers.GlobalAveragePooling1D()(h))))
    x = np.array([[1, 2, 0, 0], [3, 1, 4, 0], [0, 2, 2, 1]], np.int32)
    np.testing.assert_allclose(model(x).numpy(), [[-0.0742479], [-0.0815146], [-0.0759695]], atol=2e-7)
    # the same graph saved as .keras and read back (Keras 3.15 reads tapekit's file and
    # predicts these numbers too; a masking model is saved by its layers' configs alone)
    again = tk.Model.from_config(model.get_config())
    again.set_weights(model.get_weights())
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())


def test_masking_then_dense_and_dropout_then_a_recurrent_layer():
    """Keras 3.15: Input((4, 2)) -> Masking() -> Dense(3, tanh) -> Dropout(0.3) -> SimpleRNN(2):
    the mask passes through Dense and Dropout to the recurrent layer."""
    i = tk.Input((4, 2))
    h = layers.Dropout(0.3)(layers.Dense(3, activation="tanh")(layers.Masking()(i)))
    model = with_sine_weights(tk.Model(i, layers.SimpleRNN(2)(h)))
    np.testing.assert_allclose(model(PADDED).numpy(), [
        [0.0221036, 0.095287], [-0.3189027, -0.4043351], [-0.4406732, -0.3735175]], atol=2e-7)


def test_mask_given_to_a_model_goes_with_its_input_and_leaves_the_callers_tensor_alone():
    """Keras 3.15: model(x, mask=m) for Input((4, 2)) -> Dense(3) -> SimpleRNN(2), functional
    or Sequential, gives these numbers. Keras sets the mask on the caller's tensor (a later
    call without mask= still reads it); tapekit's tensor keeps none, so the next call is the
    unmasked one."""
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [0, 1, 1, 1]], bool)
    seq = with_sine_weights(tk.Sequential([tk.Input((4, 2)), layers.Dense(3), layers.SimpleRNN(2)]))
    masked = [[0.0262643, 0.0991129], [-0.3281429, -0.4452439], [-0.4411674, -0.3741004]]
    unmasked = [[-0.0954877, -0.1108742], [-0.3281429, -0.4452439], [-0.1081412, -0.0079717]]
    fun = tk.Model(seq.inputs[0], seq.outputs[0])
    x = tk.constant(PADDED)
    for model in (seq, fun):
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = model(x, mask=mask)
        np.testing.assert_allclose(y.numpy(), masked, atol=2e-7)
        assert not hasattr(x, "_keras_mask")
        np.testing.assert_allclose(model(x).numpy(), unmasked, atol=2e-7)
        g = tape.gradient(y, x)                           # the tape sees x itself
        assert g is not None and np.all(g.numpy()[~mask] == 0)
    with pytest.raises(ValueError, match=r"mask= needs one mask \(or None\) per input"):
        fun(x, mask=[mask, mask])


def test_a_symbolic_mask_argument_is_an_input_of_the_node():
    """`SimpleRNN(2)(x, mask=m)` on two Inputs: Keras 3.15 writes the mask in the node's
    kwargs as a __keras_tensor__, and tapekit reads and writes it the same way."""
    x, m = tk.Input((4, 2)), tk.Input((4,), dtype="bool")
    rnn = layers.SimpleRNN(2)
    model = with_sine_weights(tk.Model([x, m], rnn(x, mask=m)))
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [0, 1, 1, 1]], bool)
    want = rnn(PADDED, mask=mask).numpy()
    np.testing.assert_array_equal(model([PADDED, mask]).numpy(), want)
    assert model.get_config()["layers"][2]["inbound_nodes"][0]["kwargs"]["mask"] == {
        "class_name": "__keras_tensor__",
        "config": {"shape": [None, 4], "dtype": "bool", "keras_history": [m._keras_history[0].name, 0, 0]}}
    again = tk.Model.from_config(model.get_config())
    again.set_weights(model.get_weights())
    np.testing.assert_array_equal(again([PADDED, mask]).numpy(), want)


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")
def test_symbolic_tensors_carry_their_masks_and_a_call_that_needs_one_gets_it():
    """Keras 3's masking guide: a custom layer asserting `mask is not None` in call works in a
    functional model, and `x._keras_mask` of a KerasTensor is the mask's KerasTensor."""
    class TemporalSoftmax(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            assert mask is not None
            keep = tk.expand_dims(tk.cast(mask, "float32"), -1)
            e = tk.exp(inputs) * keep
            return e / tk.reduce_sum(e * keep, axis=-1, keepdims=True)

    i = tk.Input((None,), dtype="int32")
    e = layers.Embedding(10, 4, mask_zero=True)(i)
    assert repr(e._keras_mask) == "<KerasTensor shape=(None, None), dtype=bool, name=None>"
    assert e.shape == (None, None, 4)
    soft = TemporalSoftmax()(layers.Dense(1)(e))
    assert soft._keras_mask.shape == soft.shape[:2]      # (steps found by a run on zeros)
    seq, h = layers.GRU(3, return_sequences=True, return_state=True)(e)
    assert seq._keras_mask.shape == (None, None) and not hasattr(h, "_keras_mask")
    assert not hasattr(layers.GlobalAveragePooling1D()(seq), "_keras_mask")
    model = tk.Model(i, soft)
    y = model(np.array([[3, 0, 5]]))
    np.testing.assert_array_equal(y._keras_mask.numpy(), [[True, False, True]])
    with pytest.warns(UserWarning, match="'flatten' .* does not support masking"):
        flat = layers.Flatten()(layers.Masking()(tk.Input((3, 2))))        # Keras warns here too
    assert not hasattr(flat, "_keras_mask")


def test_the_model_calls_training_overrides_the_one_a_node_recorded():
    """Keras 3.15: for Dropout(0.5)(x, training=True) in a graph, model(x) drops about half,
    model(x, training=False) and predict none (the call's training wins when it is given).
    Keras 3 writes training=False into every recurrent layer's node, so a Keras file's LSTM
    dropout works in fit only by this rule."""
    i = tk.Input((2000,))
    model = tk.Model(i, layers.Dropout(0.5)(i, training=True))
    x = np.ones((1, 2000), np.float32)
    assert 0.4 < float(np.mean(model(x).numpy() == 0)) < 0.6
    assert float(np.mean(model(x, training=False).numpy() == 0)) == 0.0
    assert float(np.mean(model.predict(x, verbose=0) == 0)) == 0.0
    j = tk.Input((3, 50))
    rnn = tk.Model(j, layers.SimpleRNN(2, dropout=0.9)(j, training=False))
    s = np.ones((1, 3, 50), np.float32)
    np.testing.assert_array_equal(rnn(s).numpy(), rnn(s).numpy())
    assert not np.array_equal(rnn(s, training=True).numpy(), rnn(s).numpy())
