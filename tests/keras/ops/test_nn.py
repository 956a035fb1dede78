"""keras.ops.nn (tapekit/keras/ops/nn.py): activations and one_hot."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import numerical_jacobian, reverse_jacobian

ops = tk.keras.ops

# --- cases
F = "np.array([[-1.0, 0.5, 2.0], [0.0, -3.0, 1.0]], 'float32')"
CASES = {
    "softmax": f"ops.softmax({F})", "softmax axis 0": f"ops.softmax({F}, axis=0)",
    "softmax over two axes": "ops.softmax(np.array([[0.0, 2], [1, 1]]), axis=(0, 1))",
    "softmax of int": "ops.softmax(np.array([0, 2]))",
    "gelu is tanh's by default": f"ops.gelu({F})", "gelu exact": f"ops.gelu({F}, approximate=False)",
    "gelu float64": "ops.gelu(np.array([-1.0, 0.5]))", "gelu of int": "ops.gelu(np.array([1, 2]))",
    "relu": f"ops.relu({F})", "relu of int": "ops.relu(np.array([-1, 2]))",
    "sigmoid": f"ops.sigmoid({F})", "sigmoid of int": "ops.sigmoid(np.array([0, 2]))",
    "one_hot": "ops.one_hot(np.array([0, 2, -1, 5]), 3)",
    "one_hot axis 0": "ops.one_hot(np.array([0, 2]), 3, axis=0)",
    "one_hot int": "ops.one_hot(np.array([0, 2]), 3, dtype='int32')",
    "one_hot 2-D": "ops.one_hot(np.array([[0, 1], [1, 0]]), 2)",
    "keras.ops.nn.one_hot": "ops.nn.one_hot(np.array([1]), 2)", "keras.ops.nn.relu": "ops.nn.relu(np.array([-1.0]))",
}
# --- end of cases

# --- Keras's answers (Keras 3.15.1, tools/keras_interop/ops_values.py)
KERAS = {'gelu exact': ['tensor', 'float32', [2, 3],
                [[-0.15865525603294373, 0.3457312285900116, 1.9544997215270996],
                 [0.0, -0.004049695562571287, 0.8413447141647339]]],
 'gelu float64': ['tensor', 'float64', [2], [-0.15880800972132364, 0.3457140097922433]],
 "gelu is tanh's by default": ['tensor', 'float32', [2, 3],
                               [[-0.15880799293518066, 0.3457140028476715, 1.9545977115631104],
                                [0.0, -0.0036374330520629883, 0.8411920070648193]]],
 'gelu of int': ['raises'],
 'keras.ops.nn.one_hot': ['tensor', 'float32', [1, 2], [[0.0, 1.0]]],
 'keras.ops.nn.relu': ['tensor', 'float64', [1], [0.0]],
 'one_hot': ['tensor', 'float32', [4, 3],
             [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
 'one_hot 2-D': ['tensor', 'float32', [2, 2, 2],
                 [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]],
 'one_hot axis 0': ['tensor', 'float32', [3, 2], [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]],
 'one_hot int': ['tensor', 'int32', [2, 3], [[1, 0, 0], [0, 0, 1]]],
 'relu': ['tensor', 'float32', [2, 3], [[0.0, 0.5, 2.0], [0.0, 0.0, 1.0]]],
 'relu of int': ['tensor', 'int64', [2], [0, 2]],
 'sigmoid': ['tensor', 'float32', [2, 3],
             [[0.2689414322376251, 0.622459352016449, 0.8807970881462097],
              [0.5, 0.04742587357759476, 0.7310585975646973]]],
 'sigmoid of int': ['raises'],
 'softmax': ['tensor', 'float32', [2, 3],
             [[0.039112575352191925, 0.17529039084911346, 0.7855970859527588],
              [0.2653879225254059, 0.013212884776294231, 0.7213991284370422]]],
 'softmax axis 0': ['tensor', 'float32', [2, 3],
                    [[0.2689414322376251, 0.970687747001648, 0.7310585379600525],
                     [0.7310585379600525, 0.02931223064661026, 0.2689414322376251]]],
 'softmax of int': ['raises'],
 'softmax over two axes': ['tensor', 'float64', [2, 2],
                           [[0.07232948812851328, 0.534446645388523],
                            [0.19661193324148182, 0.19661193324148182]]]}
# --- end of Keras's answers


@pytest.mark.parametrize("label", sorted(CASES))
def test_the_answer_is_keras_3s(label, keras_answer):
    keras_answer(CASES[label], KERAS[label])


def test_every_case_has_keras_3s_answer():
    assert sorted(KERAS) == sorted(CASES), "run tools/keras_interop/ops_values.py in the TF venv"


X = np.array([[-1.2, 0.5, 2.0], [0.3, -0.7, 1.1]])
GRADIENTS = {
    "softmax": lambda x: ops.softmax(x), "softmax axis 0": lambda x: ops.softmax(x, axis=0),
    "softmax two axes": lambda x: ops.softmax(x, axis=(0, 1)), "gelu": lambda x: ops.gelu(x),
    "gelu exact": lambda x: ops.gelu(x, approximate=False), "relu": lambda x: ops.relu(x),
    "sigmoid": lambda x: ops.sigmoid(x),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_the_gradient_through_a_tape_is_the_finite_differences(name):
    f = GRADIENTS[name]
    for tape, numeric in zip(reverse_jacobian(f, [X]), numerical_jacobian(f, [X])):
        np.testing.assert_allclose(tape, numeric, rtol=1e-6, atol=1e-8, err_msg=name)


def test_an_int_tensor_is_refused_with_the_cast_to_use():
    with pytest.raises(TypeError, match=r"keras.ops.sigmoid: x has dtype int64.*keras.ops.cast"):
        ops.sigmoid(np.array([0, 2]))
    with pytest.raises(ValueError, match="no sparse tensors"):
        ops.one_hot(np.array([0]), 2, sparse=True)
