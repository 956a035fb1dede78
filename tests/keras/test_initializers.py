"""Initializers (keras/initializers.py): Keras's fans and distributions, seeds, configs."""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_seeded_initializers_repeat_and_match_their_distributions():
    g = tk.initializers.GlorotUniform(seed=3)
    np.testing.assert_array_equal(g((5, 4)), g((5, 4)))
    normal = tk.initializers.RandomNormal(mean=2.0, stddev=0.5, seed=1)((200, 100)).numpy()
    assert abs(normal.mean() - 2.0) < 0.01 and abs(normal.std() - 0.5) < 0.01
    he = tk.initializers.HeNormal(seed=0)((400, 300)).numpy()
    stddev = math.sqrt(2 / 400) / 0.87962566103423978
    assert np.abs(he).max() <= 2 * stddev + 1e-7
    assert abs(he.std() - math.sqrt(2 / 400)) < 0.02 * math.sqrt(2 / 400)
    u = tk.initializers.HeUniform(seed=0)((50, 10)).numpy()
    assert np.abs(u).max() <= math.sqrt(6 / 50)
    with pytest.raises(ValueError, match="Could not interpret initializer identifier: 'gloro'. Known names: 'constant', "):
        tk.initializers.get("gloro")


def test_glorot_and_he_limits_count_the_window_of_a_conv_kernel():
    # a (3, 3, 4, 8) kernel: fan_in 3*3*4 = 36, fan_out 3*3*8 = 72
    g = tk.initializers.GlorotUniform(seed=0)((3, 3, 4, 8)).numpy()
    limit = math.sqrt(6 / (36 + 72))
    assert np.abs(g).max() <= limit and np.abs(g).max() > 0.9 * limit
    h = tk.initializers.HeUniform(seed=0)((3, 3, 4, 8)).numpy()
    assert math.sqrt(6 / 72) < np.abs(h).max() <= math.sqrt(6 / 36)
    v = tk.initializers.GlorotUniform(seed=0)((10,)).numpy()          # a vector: fan 10 both ways
    assert np.abs(v).max() <= math.sqrt(6 / 20)


def test_truncated_normal_stays_within_two_standard_deviations():
    z = tk.initializers.TruncatedNormal(mean=1.0, stddev=0.5, seed=2)((100, 100)).numpy()
    assert z.min() >= 0.0 and z.max() <= 2.0
    assert abs(z.mean() - 1.0) < 0.01


def test_uniform_constant_and_dtypes():
    u = tk.initializers.RandomUniform(minval=2.0, maxval=3.0, seed=4)((1000,), "float64").numpy()
    assert u.dtype == np.float64 and 2.0 <= u.min() and u.max() < 3.0
    assert abs(u.mean() - 2.5) < 0.03
    c = tk.initializers.Constant(7)((2, 2), "int32").numpy()
    assert c.dtype == np.int32 and (c == 7).all()


def test_without_a_seed_they_follow_the_global_seed():
    tk.random.set_seed(5)
    a = tk.initializers.RandomNormal()((3,)).numpy()
    b = tk.initializers.RandomNormal()((3,)).numpy()
    tk.random.set_seed(5)
    np.testing.assert_array_equal(tk.initializers.RandomNormal()((3,)), a)
    assert not np.array_equal(a, b)


def test_serialize_and_deserialize_round_trip_the_arguments():
    init = tk.initializers.RandomNormal(mean=1.0, stddev=0.25, seed=9)
    config = tk.initializers.serialize(init)
    assert config == {"module": "keras.initializers", "class_name": "RandomNormal",
                      "config": {"seed": 9, "mean": 1.0, "stddev": 0.25}, "registered_name": None}
    again = tk.initializers.deserialize(config)
    assert type(again) is tk.initializers.RandomNormal
    np.testing.assert_array_equal(again((4,)), init((4,)))


def test_keras_only_keys_are_taken_at_their_defaults_and_refused_otherwise():
    g = tk.initializers.GlorotUniform.from_config({"seed": 1, "input_axes": None})
    assert g.seed == 1
    with pytest.raises(ValueError, match=r"GlorotUniform.from_config: tapekit does not support "
                                         r"output_axes=\[0\] \(only None\)"):
        tk.initializers.GlorotUniform.from_config({"output_axes": [0]})


def test_orthogonal_is_a_public_initializer_as_in_keras():
    """keras.initializers.Orthogonal: orthonormal columns (tall), rows (wide), scaled by gain;
    reachable by class and by name, seeded draws repeat, and its config round-trips."""
    tall = tk.initializers.Orthogonal(seed=1)((6, 3)).numpy()
    np.testing.assert_allclose(tall.T @ tall, np.eye(3), atol=1e-5)
    wide = tk.initializers.Orthogonal(gain=2.0, seed=1)((3, 6)).numpy()
    np.testing.assert_allclose(wide @ wide.T, 4 * np.eye(3), atol=1e-5)
    conv = tk.initializers.Orthogonal(seed=2)((3, 3, 4, 8)).numpy()      # leading axes fold into rows
    flat = conv.reshape(-1, 8)
    np.testing.assert_allclose(flat.T @ flat, np.eye(8), atol=1e-5)
    assert np.array_equal(tk.initializers.Orthogonal(seed=1)((6, 3)), tall)
    assert isinstance(tk.initializers.get("orthogonal"), tk.initializers.Orthogonal)
    assert isinstance(tk.initializers.get("Orthogonal"), tk.initializers.Orthogonal)
    config = tk.initializers.serialize(tk.initializers.Orthogonal(gain=0.5, seed=3))
    assert (config["module"], config["class_name"]) == ("keras.initializers", "Orthogonal")
    again = tk.initializers.deserialize(config)
    assert (again.gain, again.seed) == (0.5, 3)
    with pytest.raises(ValueError, match="Orthogonal: the shape needs at least 2 dimensions"):
        tk.initializers.Orthogonal()((4,))


# --- tf.zeros_initializer and tf.random_normal_initializer (TF 2.21's init_ops_v2) ----------------
def test_tensorflows_own_initializers_give_tensors():
    z = tk.zeros_initializer()
    got = z([2, 3])
    assert isinstance(got, tk.Tensor) and got.dtype == tk.float32 and not got.numpy().any()
    assert z([2], dtype=tk.int32).dtype == tk.int32           # TF: int32 zeros
    assert z.get_config() == {}
    r = tk.random_normal_initializer(1.0, 0.5, seed=3)
    assert r.get_config() == {"seed": 3, "mean": 1.0, "stddev": 0.5}   # TF's keys
    assert np.array_equal(r([3]).numpy(), r([3]).numpy())     # seeded: the same values, as TF
    with pytest.raises(ValueError, match="dtype must be floating, got int32"):
        r([2], dtype=tk.int32)                                # TF: ValueError
    many = tk.random_normal_initializer(1.0, 0.5, seed=4)([200_000]).numpy()
    assert abs(many.mean() - 1.0) < 0.005 and abs(many.std() - 0.5) < 0.005


def test_layers_take_tensorflows_initializers():
    dense = layers.Dense(2, kernel_initializer=tk.random_normal_initializer(stddev=0.02, seed=1),
                         bias_initializer=tk.zeros_initializer())
    dense(tk.ones((1, 3)))
    assert dense.kernel.shape == (3, 2) and float(tk.reduce_max(tk.abs(dense.kernel))) < 0.1
    assert not dense.bias.numpy().any()
    v = tk.Variable(tk.random_normal_initializer(seed=2)(shape=[2, 2]))
    assert v.dtype == tk.float32 and v.shape == (2, 2)


def test_an_initializer_gives_a_tensor_as_keras_3s_do():
    # Keras 3: `init(shape)` is a backend tensor, so `init(shape).numpy()` is how code reads
    # it; tapekit's gave a NumPy array, and `.numpy()` failed when such code was ported.
    for init in (tk.initializers.Zeros(), tk.initializers.Ones(), tk.initializers.Constant(0.5),
                 tk.initializers.GlorotUniform(seed=1), tk.initializers.HeNormal(seed=1),
                 tk.initializers.Orthogonal(seed=1), tk.initializers.get("random_normal")):
        got = init((3, 2))
        assert isinstance(got, tk.Tensor) and got.shape == (3, 2) and got.dtype == tk.float32, init
        assert got.numpy().shape == (3, 2)
    assert tk.initializers.Ones()((2,), dtype="float64").dtype == tk.float64
    seeded = tk.initializers.GlorotUniform(seed=4)
    np.testing.assert_array_equal(seeded((4, 4)).numpy(), seeded((4, 4)).numpy())


def test_an_initializer_of_ones_own_may_still_return_an_array():
    class Halves(tk.initializers.Initializer):
        def __call__(self, shape, dtype=None):
            return np.full(shape, 0.5, dtype or np.float32)
    layer = tk.layers.Dense(2, kernel_initializer=Halves(), bias_initializer="ones")
    np.testing.assert_array_equal(layer(tk.ones((1, 3))).numpy(), [[2.5, 2.5]])


def test_an_initializer_without_a_rule_says_what_to_write():
    class Nothing(tk.initializers.Initializer):
        pass
    with pytest.raises(NotImplementedError, match=r"Nothing must implement __call__\(shape, dtype=None\)"):
        Nothing()((2,))
