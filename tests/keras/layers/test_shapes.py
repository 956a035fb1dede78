"""The shapes a layer is called on (layers/shapes.py): the InputSpec check and lists of shapes."""
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_dense_fed_another_last_dimension_says_what_it_was_built_for():
    dense = layers.Dense(2)
    dense(tk.ones((2, 3)))
    with pytest.raises(ValueError, match=r'Input 0 of layer "dense" is incompatible with the layer: '
                                         r'expected axis -1 of input shape to have value 3, but '
                                         r'received input with shape \(2, 4\)'):
        dense(tk.ones((2, 4)))
    model = tk.Sequential([layers.Dense(2, input_shape=(3,))])
    with pytest.raises(ValueError, match=r"expected axis -1 of input shape to have value 3.*\(5, 7\)"):
        model(tk.ones((5, 7)))
