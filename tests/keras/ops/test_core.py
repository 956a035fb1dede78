"""keras.ops's core functions (tapekit/keras/ops/core.py): shape, cast, conversions, slice."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import numerical_jacobian, reverse_jacobian

ops = tk.keras.ops

# --- cases
I = "np.array([[1, 2], [3, 4]], 'int32')"
CASES = {
    "shape is a tuple of ints": f"ops.shape({I})", "shape of a tensor": "ops.shape(ops.ones((2, 3, 1)))",
    "shape of a scalar": "ops.shape(ops.convert_to_tensor(1.0))", "shape of a list": "ops.shape([[1, 2, 3]])",
    "cast truncates": "ops.cast(np.array([1.7, -1.7]), 'int32')", "cast up": f"ops.cast({I}, 'float64')",
    "cast to bool": "ops.cast(np.array([0.0, 2.0]), 'bool')",
    "convert float64 array": "ops.convert_to_tensor(np.array([1.0, 2]))",
    "convert int list": "ops.convert_to_tensor([1, 2])", "convert float": "ops.convert_to_tensor(2.5)",
    "convert dtype": "ops.convert_to_tensor([1, 2], dtype='float32')",
    "convert a tensor": "ops.convert_to_tensor(ops.ones((2,)), dtype='float64')",
    "convert bool": "ops.convert_to_tensor([True, False])",
    "to numpy": "ops.convert_to_numpy(ops.ones(2))", "to numpy int": f"ops.convert_to_numpy(ops.convert_to_tensor({I}))",
    "slice": "ops.slice(np.arange(12).reshape(3, 4), (1, 1), (2, -1))",
    "slice all": "ops.slice(np.arange(12.0).reshape(3, 4), (0, 0), (3, 4))",
    "slice 1-D": "ops.slice(np.arange(5), [2], [2])",
    "slice too long": "ops.slice(np.arange(12).reshape(3, 4), (1, 1), (3, 1))",
}
# --- end of cases

# --- Keras's answers (Keras 3.15.1, tools/keras_interop/ops_values.py)
KERAS = {'cast to bool': ['tensor', 'bool', [2], [False, True]],
 'cast truncates': ['tensor', 'int32', [2], [1, -1]],
 'cast up': ['tensor', 'float64', [2, 2], [[1.0, 2.0], [3.0, 4.0]]],
 'convert a tensor': ['tensor', 'float64', [2], [1.0, 1.0]],
 'convert bool': ['tensor', 'bool', [2], [True, False]],
 'convert dtype': ['tensor', 'float32', [2], [1.0, 2.0]],
 'convert float': ['tensor', 'float32', [], 2.5],
 'convert float64 array': ['tensor', 'float64', [2], [1.0, 2.0]],
 'convert int list': ['tensor', 'int32', [2], [1, 2]],
 'shape is a tuple of ints': ['tuple', [['py', 2], ['py', 2]]],
 'shape of a list': ['tuple', [['py', 1], ['py', 3]]],
 'shape of a scalar': ['tuple', []],
 'shape of a tensor': ['tuple', [['py', 2], ['py', 3], ['py', 1]]],
 'slice': ['tensor', 'int64', [2, 3], [[5, 6, 7], [9, 10, 11]]],
 'slice 1-D': ['tensor', 'int64', [2], [2, 3]],
 'slice all': ['tensor', 'float64', [3, 4],
               [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]],
 'slice too long': ['raises'],
 'to numpy': ['ndarray', 'float32', [2], [1.0, 1.0]],
 'to numpy int': ['ndarray', 'int32', [2, 2], [[1, 2], [3, 4]]]}
# --- end of Keras's answers


@pytest.mark.parametrize("label", sorted(CASES))
def test_the_answer_is_keras_3s(label, keras_answer):
    keras_answer(CASES[label], KERAS[label])


def test_every_case_has_keras_3s_answer():
    assert sorted(KERAS) == sorted(CASES), "run tools/keras_interop/ops_values.py in the TF venv"


def test_slice_and_cast_pass_the_gradient():
    x = np.arange(12.0).reshape(3, 4) / 7
    f = lambda t: ops.slice(t, (1, 0), (2, 3)) ** 2       # noqa: E731
    for tape, numeric in zip(reverse_jacobian(f, [x]), numerical_jacobian(f, [x])):
        np.testing.assert_allclose(tape, numeric, rtol=1e-6, atol=1e-8)
    # through float32 and back: exact but for float32's rounding, so a wide step
    f = lambda t: ops.cast(ops.cast(t, "float32"), "float64") * 2.0       # noqa: E731
    for tape, numeric in zip(reverse_jacobian(f, [x]), numerical_jacobian(f, [x], eps=1e-2)):
        np.testing.assert_allclose(tape, numeric, rtol=1e-4, atol=1e-5)


def test_convert_to_tensor_keeps_a_tensor_and_refuses_what_tapekit_lacks():
    t = tk.constant([1.0, 2.0])
    assert ops.convert_to_tensor(t) is t                  # a tape still sees the same tensor
    assert isinstance(ops.convert_to_numpy(t), np.ndarray)
    with pytest.raises(ValueError, match="tapekit has no sparse tensors"):
        ops.convert_to_tensor([1.0], sparse=True)
    with pytest.raises(ValueError, match=r"keras.ops.slice: on axis 0 \(length 3\) the block \[1, 4\)"):
        ops.slice(np.ones((3, 4)), (1, 0), (3, 1))
    with pytest.raises(ValueError, match="one start and one size per axis"):
        ops.slice(np.ones((3, 4)), (1,), (3,))
