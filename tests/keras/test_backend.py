"""keras.backend.get_value / set_value (tapekit/keras/backend.py), as callbacks use them."""
import pytest

import tapekit as tk


def test_keras_backend_get_and_set_value_on_the_learning_rate():
    opt = tk.optimizers.RMSprop(0.1)
    assert float(tk.keras.backend.get_value(opt.learning_rate)) == pytest.approx(0.1)
    tk.keras.backend.set_value(opt.learning_rate, 0.05)
    assert float(opt.learning_rate) == pytest.approx(0.05)
    with pytest.raises(TypeError, match="must be a tk.Variable"):
        tk.keras.backend.set_value(tk.constant(1.0), 2.0)


def test_epsilon_and_clear_session_are_keras_backends():
    assert tk.keras.backend.epsilon() == 1e-7          # Keras 3.15 gives 1e-07
    tk.layers.Dense(1)
    tk.keras.backend.clear_session()
    assert tk.layers.Dense(1).name == "dense"
    tk.keras.backend.clear_session(free_memory=False)
    assert tk.layers.Dense(1).name == "dense"


def test_backend_names_tapekit_so_code_for_tensorflow_only_is_not_taken():
    # Keras 3.15 on TensorFlow answers "tensorflow"; tapekit is no TensorFlow
    import tapekit as keras
    assert keras.backend.backend() == "tapekit" and tk.keras.backend.backend() == "tapekit"
