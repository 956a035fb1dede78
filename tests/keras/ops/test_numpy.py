"""keras.ops.numpy (tapekit/keras/ops/numpy.py): Keras 3's answers, and gradients through a
tape against finite differences."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tapekit as tk
from tapekit.testing import numerical_jacobian, reverse_jacobian

ops = tk.keras.ops

# --- cases
I = "np.array([[1, 2], [3, 4]], 'int32')"
F = "np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], 'float32')"
CASES = {
    "sum all": f"ops.sum({F})", "sum axis keepdims": f"ops.sum({F}, axis=1, keepdims=True)",
    "sum axes": f"ops.sum({F}, axis=(0, 1))",
    "sum of bool is int32": "ops.sum(np.array([True, False, True]))",
    "sum of int8 is int32": "ops.sum(np.array([1, 2], 'int8'))",
    "sum of uint8 is uint32": "ops.sum(np.array([1, 2], 'uint8'))",
    "sum of a list": "ops.sum([1, 2])", "sum of int64": "ops.sum(np.array([1, 2], 'int64'))",
    "mean of int32 is float32": f"ops.mean({I})", "mean axis": f"ops.mean({F}, axis=0)",
    "mean of float16": "ops.mean(np.array([1, 2], 'float16'))",
    "mean of float64": "ops.mean(np.array([1, 2], 'float64'))",
    "mean of bool": "ops.mean(np.array([True, False]))",
    "mean axis -1 keepdims": f"ops.mean({F}, axis=-1, keepdims=True)",
    "max": f"ops.max({I})", "max axis initial": f"ops.max({I}, axis=0, initial=3)",
    "max of bool": "ops.max(np.array([True, False]))", "max axis 1": f"ops.max({F}, axis=1)",
    "arange int": "ops.arange(5)", "arange float step": "ops.arange(0, 1, 0.25)",
    "arange float stop": "ops.arange(5.0)", "arange int64": "ops.arange(np.int64(3))",
    "arange dtype": "ops.arange(3, dtype='float64')", "arange start stop": "ops.arange(2, 7, 2)",
    "linspace": "ops.linspace(0, 1, 5)", "linspace int dtype": "ops.linspace(0, 4, 5, dtype='int32')",
    "linspace retstep": "ops.linspace(0, 1, 5, retstep=True)",
    "linspace no endpoint": "ops.linspace(0, 1, 4, endpoint=False)",
    "linspace default num": "ops.linspace(-1.0, 1.0)",
    "full of an int is float32": "ops.full((2,), 3)", "full float": "ops.full((2, 2), 3.5)",
    "full dtype": "ops.full((3,), 7, dtype='int32')",
    "ones": "ops.ones((2,))", "ones int": "ops.ones(2, dtype='int32')", "zeros": "ops.zeros((2, 1))",
    "ones_like int": f"ops.ones_like({I})", "zeros_like dtype": f"ops.zeros_like({I}, dtype='float32')",
    "eye": "ops.eye(3)", "eye M k": "ops.eye(2, 3, k=1)", "eye k -1 int": "ops.eye(3, k=-1, dtype='int32')",
    "array": "ops.array([1.0, 2])", "array dtype": "ops.array([1, 2], dtype='float64')",
    "reshape -1": f"ops.reshape({I}, -1)", "reshape tuple": f"ops.reshape({I}, (4, -1))",
    "ravel": f"ops.ravel({I})",
    "transpose": "ops.transpose(np.arange(24.0).reshape(2, 3, 4))",
    "transpose axes": "ops.transpose(np.arange(24.0).reshape(2, 3, 4), axes=(1, 0, 2))",
    "expand_dims": f"ops.expand_dims({I}, 1)", "expand_dims tuple": f"ops.expand_dims({I}, (0, 3))",
    "expand_dims -1": f"ops.expand_dims({I}, -1)",
    "squeeze": "ops.squeeze(np.ones((1, 2, 1)))", "squeeze axis": "ops.squeeze(np.ones((1, 2, 1)), axis=(0,))",
    "squeeze a long axis": "ops.squeeze(np.ones((1, 2, 1)), axis=1)",
    "broadcast_to": "ops.broadcast_to(np.array([1, 2]), (2, 2))",
    "tile int": "ops.tile(np.array([[1, 2]]), 2)", "tile more reps": "ops.tile(np.array([1, 2]), (2, 2))",
    "tile per axis": f"ops.tile({I}, [2, 1])",
    "concatenate promotes": f"ops.concatenate([{I}, np.array([[1.5, 2]])], axis=0)",
    "concatenate axis 1": f"ops.concatenate([{I}, {I}], axis=1)",
    "concatenate axis None": f"ops.concatenate([{I}, {I}], axis=None)",
    "stack": "ops.stack([np.array([1, 2]), np.array([3.0, 4])], axis=1)",
    "stack -1": f"ops.stack([{F}, {F}], axis=-1)",
    "split sections": "ops.split(np.arange(6), 3)", "split indices": "ops.split(np.arange(6), [1, 4])",
    "split axis 1": f"ops.split({F}, 3, axis=1)", "split uneven": "ops.split(np.arange(6), 4)",
    "split index past the end": "ops.split(np.arange(6), [2, 9])",
    "split -1": f"ops.split({F}, [1], axis=-1)",
    "sqrt int": f"ops.sqrt({I})", "sqrt int64": "ops.sqrt(np.array([4], 'int64'))",
    "sqrt float64": "ops.sqrt(np.array([4.0], 'float64'))", "exp bool": "ops.exp(np.array([True]))",
    "exp": f"ops.exp({F})", "log int": "ops.log(np.array([1, 2]))", "log": "ops.log(np.array([0.5, 2.0], 'float32'))",
    "sin": f"ops.sin({F})", "cos int": f"ops.cos({I})", "arccos int": "ops.arccos(np.array([0, 1]))",
    "arccos": "ops.arccos(np.array([-0.5, 0.25], 'float32'))",
    "square int": f"ops.square({I})", "square bool": "ops.square(np.array([True]))", "square": f"ops.square({F})",
    "divide int int": f"ops.divide({I}, {I})", "divide int by 2": f"ops.divide({I}, 2)",
    "divide int64": "ops.divide(np.array([1], 'int64'), np.array([2], 'int64'))",
    "divide float16": "ops.divide(np.array([1], 'float16'), 2)", "divide": f"ops.divide({F}, 4.0)",
    "maximum int 2.5": f"ops.maximum({I}, 2.5)", "maximum float 2": "ops.maximum(np.array([1.0], 'float32'), 2)",
    "maximum int float64": f"ops.maximum({I}, np.array(2.5))",
    "maximum int8 uint8": "ops.maximum(np.array([1], 'int8'), np.array([1], 'uint8'))",
    "maximum float16 int32": "ops.maximum(np.array([1], 'float16'), np.array([1], 'int32'))",
    "maximum float32 float64": "ops.maximum(np.array([1], 'float32'), np.array([1], 'float64'))",
    "maximum int64 float32": "ops.maximum(np.array([1], 'int64'), np.array([1], 'float32'))",
    "maximum Python numbers": "ops.maximum(1, 2.5)", "maximum Python ints": "ops.maximum(1, 2)",
    "maximum bool 2": "ops.maximum(np.array([True]), 2)",
    "maximum int8 True": "ops.maximum(np.array([0, 2], 'int8'), True)",
    "divide by True": "ops.divide(np.array([1, 2]), True)",
    "maximum NumPy float64 scalar": "ops.maximum(np.array([1], 'float32'), np.float64(2))",
    "minimum": f"ops.minimum({F}, 0.5)", "minimum int": f"ops.minimum({I}, np.array([2, 2]))",
    "not_equal": f"ops.not_equal({I}, 2.0)", "not_equal arrays": f"ops.not_equal({F}, {F})",
    "matmul int": f"ops.matmul({I}, {I})",
    "matmul vectors": "ops.matmul(np.array([1.0, 2]), np.array([3.0, 4]))",
    "matmul matrix vector": "ops.matmul(np.ones((2, 3), 'float32'), np.array([1.0, 2, 3], 'float32'))",
    "matmul vector matrix": "ops.matmul(np.array([1.0, 2], 'float32'), np.arange(6.0, dtype='float32').reshape(2, 3))",
    "matmul batch": "ops.matmul(np.ones((2, 2, 3), 'float32'), np.ones((3, 4), 'float32'))",
    "tensordot axes 1": "ops.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=1)",
    "tensordot default": "ops.tensordot(np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3))",
    "einsum": f"ops.einsum('ij,jk->ik', {I}, {I})",
    "einsum promotes": f"ops.einsum('ij,jk->ik', {I}, np.ones((2, 2), 'float32'))",
    "einsum trace": "ops.einsum('ii', np.arange(9.0, dtype='float32').reshape(3, 3))",
    "where": "ops.where(np.array([True, False]), 1, 2.5)",
    "where indices": "ops.where(np.array([[True, False], [False, True]]))",
    "where one of two": "ops.where(np.array([True, False]), 1)",
    "where arrays": "ops.where(np.array([True, False]), np.array([1, 2]), np.array([3, 4]))",
    "where broadcasts": f"ops.where(np.array([True, False, True]), {F}, 0.0)",
    "clip": "ops.clip(np.array([-1.0, 0.5, 3]), 0, 1)", "clip int": "ops.clip(np.array([-1, 0, 3]), 0, 2)",
    "clip int with float bounds": "ops.clip(np.array([-1, 0, 3]), 0.5, 2.5)",
    "clip bool": "ops.clip(np.array([True, False]), 0, 1)",
    "argmax flat": "ops.argmax(np.array([[1, 5, 5], [7, 0, 7]]))",
    "argmax axis keepdims": "ops.argmax(np.array([[1, 5, 5], [7, 0, 7]]), axis=1, keepdims=True)",
    "argmax axis 0": "ops.argmax(np.array([[1.0, 5, 5], [7, 0, 7]]), axis=0)",
    "argmax flat keepdims": "ops.argmax(np.array([[1.0, 5], [7, 0]]), keepdims=True)",
    "cumsum flat": f"ops.cumsum({I})", "cumsum axis": f"ops.cumsum({I}, axis=1)",
    "cumsum bool": "ops.cumsum(np.array([True, True]))", "cumsum int8": "ops.cumsum(np.array([1, 2], 'int8'))",
    "cumsum dtype": f"ops.cumsum({I}, dtype='float32')", "cumsum float": f"ops.cumsum({F}, axis=0)",
    "take flat": f"ops.take({I}, 3)", "take negative": f"ops.take({I}, [-1, 0], axis=1)",
    "take 2-D indices": f"ops.take({I}, [[0, 1]], axis=0)", "take flat 2-D": f"ops.take({I}, [[0, 3]])",
    "take out of range": f"ops.take({I}, [5])",
}
# --- end of cases

# --- Keras's answers (Keras 3.15.1, tools/keras_interop/ops_values.py)
KERAS = {'arange dtype': ['tensor', 'float64', [3], [0.0, 1.0, 2.0]],
 'arange float step': ['tensor', 'float32', [4], [0.0, 0.25, 0.5, 0.75]],
 'arange float stop': ['tensor', 'float32', [5], [0.0, 1.0, 2.0, 3.0, 4.0]],
 'arange int': ['tensor', 'int32', [5], [0, 1, 2, 3, 4]],
 'arange int64': ['tensor', 'int64', [3], [0, 1, 2]],
 'arange start stop': ['tensor', 'int32', [3], [2, 4, 6]],
 'arccos': ['tensor', 'float32', [2], [2.094395160675049, 1.3181160688400269]],
 'arccos int': ['tensor', 'float32', [2], [1.5707963705062866, 0.0]],
 'argmax axis 0': ['tensor', 'int32', [3], [1, 0, 1]],
 'argmax axis keepdims': ['tensor', 'int32', [2, 1], [[1], [0]]],
 'argmax flat': ['tensor', 'int32', [], 3],
 'argmax flat keepdims': ['tensor', 'int32', [1, 1], [[2]]],
 'array': ['tensor', 'float32', [2], [1.0, 2.0]],
 'array dtype': ['tensor', 'float64', [2], [1.0, 2.0]],
 'broadcast_to': ['tensor', 'int64', [2, 2], [[1, 2], [1, 2]]],
 'clip': ['tensor', 'float64', [3], [0.0, 0.5, 1.0]],
 'clip bool': ['tensor', 'int32', [2], [1, 0]],
 'clip int': ['tensor', 'int64', [3], [0, 0, 2]],
 'clip int with float bounds': ['raises'],
 'concatenate axis 1': ['tensor', 'int32', [2, 4], [[1, 2, 1, 2], [3, 4, 3, 4]]],
 'concatenate axis None': ['raises'],
 'concatenate promotes': ['tensor', 'float64', [3, 2], [[1.0, 2.0], [3.0, 4.0], [1.5, 2.0]]],
 'cos int': ['tensor', 'float32', [2, 2],
             [[0.5403022766113281, -0.416146844625473],
              [-0.9899924993515015, -0.6536436080932617]]],
 'cumsum axis': ['tensor', 'int32', [2, 2], [[1, 3], [3, 7]]],
 'cumsum bool': ['tensor', 'int32', [2], [1, 2]],
 'cumsum dtype': ['tensor', 'float32', [4], [1.0, 3.0, 6.0, 10.0]],
 'cumsum flat': ['tensor', 'int32', [4], [1, 3, 6, 10]],
 'cumsum float': ['tensor', 'float32', [2, 3], [[1.5, -2.0, 3.0], [2.0, 2.0, 2.0]]],
 'cumsum int8': ['tensor', 'int8', [2], [1, 3]],
 'divide': ['tensor', 'float32', [2, 3], [[0.375, -0.5, 0.75], [0.125, 1.0, -0.25]]],
 'divide by True': ['tensor', 'float32', [2], [1.0, 2.0]],
 'divide float16': ['tensor', 'float16', [1], [0.5]],
 'divide int by 2': ['tensor', 'float32', [2, 2], [[0.5, 1.0], [1.5, 2.0]]],
 'divide int int': ['tensor', 'float32', [2, 2], [[1.0, 1.0], [1.0, 1.0]]],
 'divide int64': ['tensor', 'float32', [1], [0.5]],
 'einsum': ['tensor', 'int32', [2, 2], [[7, 10], [15, 22]]],
 'einsum promotes': ['tensor', 'float32', [2, 2], [[3.0, 3.0], [7.0, 7.0]]],
 'einsum trace': ['tensor', 'float32', [], 12.0],
 'exp': ['tensor', 'float32', [2, 3],
         [[4.481688976287842, 0.1353352814912796, 20.08553695678711],
          [1.6487212181091309, 54.598148345947266, 0.3678794503211975]]],
 'exp bool': ['tensor', 'float32', [1], [2.7182817459106445]],
 'expand_dims': ['tensor', 'int32', [2, 1, 2], [[[1, 2]], [[3, 4]]]],
 'expand_dims -1': ['tensor', 'int32', [2, 2, 1], [[[1], [2]], [[3], [4]]]],
 'expand_dims tuple': ['tensor', 'int32', [1, 2, 2, 1], [[[[1], [2]], [[3], [4]]]]],
 'eye': ['tensor', 'float32', [3, 3], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]],
 'eye M k': ['tensor', 'float32', [2, 3], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]],
 'eye k -1 int': ['tensor', 'int32', [3, 3], [[0, 0, 0], [1, 0, 0], [0, 1, 0]]],
 'full dtype': ['tensor', 'int32', [3], [7, 7, 7]],
 'full float': ['tensor', 'float32', [2, 2], [[3.5, 3.5], [3.5, 3.5]]],
 'full of an int is float32': ['tensor', 'float32', [2], [3.0, 3.0]],
 'linspace': ['tensor', 'float32', [5], [0.0, 0.25, 0.5, 0.75, 1.0]],
 'linspace default num': ['tensor', 'float32', [50],
                          [-1.0, -0.9591836929321289, -0.918367326259613, -0.8775510191917419,
                           -0.8367347121238708, -0.795918345451355, -0.7551020383834839,
                           -0.7142857313156128, -0.6734694242477417, -0.6326530575752258,
                           -0.5918367505073547, -0.5510203838348389, -0.5102040767669678,
                           -0.4693877696990967, -0.4285714626312256, -0.3877550959587097,
                           -0.3469387888908386, -0.30612248182296753, -0.26530611515045166,
                           -0.22448980808258057, -0.18367350101470947, -0.1428571343421936,
                           -0.10204082727432251, -0.061224520206451416, -0.020408153533935547,
                           0.020408153533935547, 0.06122446060180664, 0.10204076766967773,
                           0.14285707473754883, 0.18367350101470947, 0.22448980808258057,
                           0.26530611515045166, 0.30612242221832275, 0.34693872928619385,
                           0.38775503635406494, 0.42857134342193604, 0.4693877696990967,
                           0.5102040767669678, 0.5510203838348389, 0.59183669090271,
                           0.632652997970581, 0.6734693050384521, 0.7142857313156128,
                           0.7551020383834839, 0.795918345451355, 0.8367346525192261,
                           0.8775509595870972, 0.9183672666549683, 0.9591836929321289, 1.0]],
 'linspace int dtype': ['tensor', 'int32', [5], [0, 1, 2, 3, 4]],
 'linspace no endpoint': ['tensor', 'float32', [4], [0.0, 0.25, 0.5, 0.75]],
 'linspace retstep': ['tuple',
                      [['tensor', 'float32', [5], [0.0, 0.25, 0.5, 0.75, 1.0]],
                       ['tensor', 'float32', [], 0.25]]],
 'log': ['tensor', 'float32', [2], [-0.6931471824645996, 0.6931471824645996]],
 'log int': ['tensor', 'float32', [2], [0.0, 0.6931471824645996]],
 'matmul batch': ['tensor', 'float32', [2, 2, 4],
                  [[[3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]],
                   [[3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]]]],
 'matmul int': ['tensor', 'int32', [2, 2], [[7, 10], [15, 22]]],
 'matmul matrix vector': ['tensor', 'float32', [2], [6.0, 6.0]],
 'matmul vector matrix': ['tensor', 'float32', [3], [6.0, 9.0, 12.0]],
 'matmul vectors': ['tensor', 'float64', [], 11.0],
 'max': ['tensor', 'int32', [], 4],
 'max axis 1': ['tensor', 'float32', [2], [3.0, 4.0]],
 'max axis initial': ['tensor', 'int32', [2], [3, 4]],
 'max of bool': ['tensor', 'bool', [], True],
 'maximum NumPy float64 scalar': ['tensor', 'float64', [1], [2.0]],
 'maximum Python ints': ['tensor', 'int32', [], 2],
 'maximum Python numbers': ['tensor', 'float32', [], 2.5],
 'maximum bool 2': ['tensor', 'int32', [1], [2]],
 'maximum float 2': ['tensor', 'float32', [1], [2.0]],
 'maximum float16 int32': ['tensor', 'float16', [1], [1.0]],
 'maximum float32 float64': ['tensor', 'float64', [1], [1.0]],
 'maximum int 2.5': ['tensor', 'float32', [2, 2], [[2.5, 2.5], [3.0, 4.0]]],
 'maximum int float64': ['tensor', 'float64', [2, 2], [[2.5, 2.5], [3.0, 4.0]]],
 'maximum int64 float32': ['tensor', 'float32', [1], [1.0]],
 'maximum int8 True': ['tensor', 'int8', [2], [1, 2]],
 'maximum int8 uint8': ['tensor', 'int16', [1], [1]],
 'mean axis': ['tensor', 'float32', [3], [1.0, 1.0, 1.0]],
 'mean axis -1 keepdims': ['tensor', 'float32', [2, 1],
                           [[0.8333333134651184], [1.1666666269302368]]],
 'mean of bool': ['tensor', 'float32', [], 0.5],
 'mean of float16': ['tensor', 'float16', [], 1.5],
 'mean of float64': ['tensor', 'float64', [], 1.5],
 'mean of int32 is float32': ['tensor', 'float32', [], 2.5],
 'minimum': ['tensor', 'float32', [2, 3], [[0.5, -2.0, 0.5], [0.5, 0.5, -1.0]]],
 'minimum int': ['tensor', 'int64', [2, 2], [[1, 2], [2, 2]]],
 'not_equal': ['tensor', 'bool', [2, 2], [[True, False], [True, True]]],
 'not_equal arrays': ['tensor', 'bool', [2, 3], [[False, False, False], [False, False, False]]],
 'ones': ['tensor', 'float32', [2], [1.0, 1.0]],
 'ones int': ['tensor', 'int32', [2], [1, 1]],
 'ones_like int': ['tensor', 'int32', [2, 2], [[1, 1], [1, 1]]],
 'ravel': ['tensor', 'int32', [4], [1, 2, 3, 4]],
 'reshape -1': ['tensor', 'int32', [4], [1, 2, 3, 4]],
 'reshape tuple': ['tensor', 'int32', [4, 1], [[1], [2], [3], [4]]],
 'sin': ['tensor', 'float32', [2, 3],
         [[0.9974949955940247, -0.9092974066734314, 0.14112000167369843],
          [0.4794255495071411, -0.756802499294281, -0.8414709568023682]]],
 'split -1': ['list',
              [['tensor', 'float32', [2, 1], [[1.5], [0.5]]],
               ['tensor', 'float32', [2, 2], [[-2.0, 3.0], [4.0, -1.0]]]]],
 'split axis 1': ['list',
                  [['tensor', 'float32', [2, 1], [[1.5], [0.5]]],
                   ['tensor', 'float32', [2, 1], [[-2.0], [4.0]]],
                   ['tensor', 'float32', [2, 1], [[3.0], [-1.0]]]]],
 'split index past the end': ['raises'],
 'split indices': ['list',
                   [['tensor', 'int64', [1], [0]], ['tensor', 'int64', [3], [1, 2, 3]],
                    ['tensor', 'int64', [2], [4, 5]]]],
 'split sections': ['list',
                    [['tensor', 'int64', [2], [0, 1]], ['tensor', 'int64', [2], [2, 3]],
                     ['tensor', 'int64', [2], [4, 5]]]],
 'split uneven': ['raises'],
 'sqrt float64': ['tensor', 'float64', [1], [2.0]],
 'sqrt int': ['tensor', 'float32', [2, 2], [[1.0, 1.4142135381698608], [1.7320507764816284, 2.0]]],
 'sqrt int64': ['tensor', 'float32', [1], [2.0]],
 'square': ['tensor', 'float32', [2, 3], [[2.25, 4.0, 9.0], [0.25, 16.0, 1.0]]],
 'square bool': ['tensor', 'int32', [1], [1]],
 'square int': ['tensor', 'int32', [2, 2], [[1, 4], [9, 16]]],
 'squeeze': ['tensor', 'float64', [2], [1.0, 1.0]],
 'squeeze a long axis': ['raises'],
 'squeeze axis': ['tensor', 'float64', [2, 1], [[1.0], [1.0]]],
 'stack': ['tensor', 'float64', [2, 2], [[1.0, 3.0], [2.0, 4.0]]],
 'stack -1': ['tensor', 'float32', [2, 3, 2],
              [[[1.5, 1.5], [-2.0, -2.0], [3.0, 3.0]], [[0.5, 0.5], [4.0, 4.0], [-1.0, -1.0]]]],
 'sum all': ['tensor', 'float32', [], 6.0],
 'sum axes': ['tensor', 'float32', [], 6.0],
 'sum axis keepdims': ['tensor', 'float32', [2, 1], [[2.5], [3.5]]],
 'sum of a list': ['tensor', 'int32', [], 3],
 'sum of bool is int32': ['tensor', 'int32', [], 2],
 'sum of int64': ['tensor', 'int64', [], 3],
 'sum of int8 is int32': ['tensor', 'int32', [], 3],
 'sum of uint8 is uint32': ['tensor', 'uint32', [], 3],
 'take 2-D indices': ['tensor', 'int32', [1, 2, 2], [[[1, 2], [3, 4]]]],
 'take flat': ['tensor', 'int32', [], 4],
 'take flat 2-D': ['tensor', 'int32', [1, 2], [[1, 4]]],
 'take negative': ['tensor', 'int32', [2, 2], [[2, 1], [4, 3]]],
 'take out of range': ['raises'],
 'tensordot axes 1': ['tensor', 'float64', [2, 2], [[3.0, 3.0], [3.0, 3.0]]],
 'tensordot default': ['tensor', 'float64', [], 55.0],
 'tile int': ['tensor', 'int64', [1, 4], [[1, 2, 1, 2]]],
 'tile more reps': ['tensor', 'int64', [2, 4], [[1, 2, 1, 2], [1, 2, 1, 2]]],
 'tile per axis': ['tensor', 'int32', [4, 2], [[1, 2], [3, 4], [1, 2], [3, 4]]],
 'transpose': ['tensor', 'float64', [4, 3, 2],
               [[[0.0, 12.0], [4.0, 16.0], [8.0, 20.0]], [[1.0, 13.0], [5.0, 17.0], [9.0, 21.0]],
                [[2.0, 14.0], [6.0, 18.0], [10.0, 22.0]],
                [[3.0, 15.0], [7.0, 19.0], [11.0, 23.0]]]],
 'transpose axes': ['tensor', 'float64', [3, 2, 4],
                    [[[0.0, 1.0, 2.0, 3.0], [12.0, 13.0, 14.0, 15.0]],
                     [[4.0, 5.0, 6.0, 7.0], [16.0, 17.0, 18.0, 19.0]],
                     [[8.0, 9.0, 10.0, 11.0], [20.0, 21.0, 22.0, 23.0]]]],
 'where': ['tensor', 'float32', [2], [1.0, 2.5]],
 'where arrays': ['tensor', 'int64', [2], [1, 4]],
 'where broadcasts': ['tensor', 'float32', [2, 3], [[1.5, 0.0, 3.0], [0.5, 0.0, -1.0]]],
 'where indices': ['list', [['tensor', 'int32', [2], [0, 1]], ['tensor', 'int32', [2], [0, 1]]]],
 'where one of two': ['raises'],
 'zeros': ['tensor', 'float32', [2, 1], [[0.0], [0.0]]],
 'zeros_like dtype': ['tensor', 'float32', [2, 2], [[0.0, 0.0], [0.0, 0.0]]]}
# --- end of Keras's answers


@pytest.mark.parametrize("label", sorted(CASES))
def test_the_answer_is_keras_3s(label, keras_answer):
    keras_answer(CASES[label], KERAS[label])


def test_every_case_has_keras_3s_answer():
    assert sorted(KERAS) == sorted(CASES), "run tools/keras_interop/ops_values.py in the TF venv"


# --- gradients: the tape's Jacobian against central differences (float64) -------------------
A = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.6]])
B = np.array([[0.5, 0.2], [-0.3, 0.8], [0.9, -0.4]])
P = np.array([[0.6, 1.3, 0.2], [2.1, 0.9, 1.7]])            # positive, for sqrt and log
GRADIENTS = {
    "sum": (lambda x: ops.sum(x, axis=1), [A]), "mean": (lambda x: ops.mean(x, axis=0), [A]),
    "mean all": (lambda x: ops.mean(x), [A]), "max": (lambda x: ops.max(x, axis=1, initial=0.5), [A]),
    "reshape": (lambda x: ops.reshape(x, (3, 2)) * np.arange(6.0).reshape(3, 2), [A]),
    "ravel": (lambda x: ops.ravel(x) ** 2, [A]),
    "transpose": (lambda x: ops.transpose(x) * B, [A]),
    "expand_dims": (lambda x: ops.expand_dims(x, (0, 2)) ** 2, [A]),
    "squeeze": (lambda x: ops.squeeze(ops.expand_dims(x, 0)) ** 2, [A]),
    "broadcast_to": (lambda x: ops.broadcast_to(x, (2, 2, 3)) * np.arange(12.0).reshape(2, 2, 3), [A]),
    "tile": (lambda x: ops.tile(x, (1, 2)) ** 2, [A]),
    "concatenate": (lambda x, y: ops.concatenate([x, ops.transpose(y)], axis=0) ** 2, [A, B]),
    "stack": (lambda x, y: ops.stack([x, ops.transpose(y)], axis=1) ** 2, [A, B]),
    "split": (lambda x: ops.split(x, [1, 2], axis=1)[1] * 3.0 + ops.split(x, 2)[0] ** 2, [A]),
    "sqrt": (lambda x: ops.sqrt(x), [P]), "exp": (lambda x: ops.exp(x), [A]),
    "log": (lambda x: ops.log(x), [P]), "sin": (lambda x: ops.sin(x), [A]),
    "cos": (lambda x: ops.cos(x), [A]), "arccos": (lambda x: ops.arccos(x / 2.0), [A]),
    "square": (lambda x: ops.square(x), [A]),
    "maximum": (lambda x, y: ops.maximum(x, ops.transpose(y)), [A, B]),
    "minimum": (lambda x: ops.minimum(x, 0.5), [A]),
    "divide": (lambda x, y: ops.divide(x, y), [A, P]),
    "matmul": (lambda x, y: ops.matmul(x, y), [A, B]),
    "matmul vector": (lambda x, y: ops.matmul(x, y[:, 0]), [A, B]),
    "tensordot": (lambda x, y: ops.tensordot(x, y, axes=1), [A, B]),
    "einsum": (lambda x, y: ops.einsum("ij,jk->ik", x, y), [A, B]),
    "where": (lambda x, y: ops.where(np.array([[True, False, True]]), x, y), [A, P]),
    "clip": (lambda x: ops.clip(x, -0.5, 0.9), [A]),
    "cumsum": (lambda x: ops.cumsum(x, axis=1), [A]), "cumsum flat": (lambda x: ops.cumsum(x), [A]),
    "take": (lambda x: ops.take(x, [2, -1, 0], axis=1), [A]), "take flat": (lambda x: ops.take(x, [[5, 0]]), [A]),
    "linspace": (lambda x: ops.linspace(x[0], x[1], 4), [A]),
    "full": (lambda x: ops.full((2, 2), x[0, 0], dtype="float64") * x[1, 1], [A]),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_the_gradient_through_a_tape_is_the_finite_differences(name):
    f, xs = GRADIENTS[name]
    for tape, numeric in zip(reverse_jacobian(f, xs), numerical_jacobian(f, xs)):
        np.testing.assert_allclose(tape, numeric, rtol=1e-6, atol=1e-8, err_msg=name)


def test_a_tape_records_keras_ops_on_a_variable():
    w = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        loss = ops.mean(ops.square(ops.matmul(w, ops.ones((2, 1)))))     # mean of (3, 7)^2
    np.testing.assert_allclose(tape.gradient(loss, w).numpy(), [[3.0, 3.0], [7.0, 7.0]])


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 1), st.booleans())
def test_mean_sum_and_max_agree_with_numpy(rows, cols, axis, keepdims):
    x = np.arange(rows * cols, dtype="float32").reshape(rows, cols) * 0.5 - 1
    for keras_op, numpy_op in ((ops.mean, np.mean), (ops.sum, np.sum), (ops.max, np.max)):
        got = keras_op(x, axis=axis, keepdims=keepdims)
        np.testing.assert_allclose(got.numpy(), numpy_op(x, axis=axis, keepdims=keepdims), rtol=1e-6)
    np.testing.assert_array_equal(ops.argmax(x, axis=axis).numpy(), np.argmax(x, axis=axis))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.lists(st.integers(0, 12), max_size=3))
def test_split_by_indices_is_numpys(length, cuts):
    cuts = sorted(min(c, length) for c in cuts)
    parts = ops.split(np.arange(length), cuts)
    want = np.split(np.arange(length), cuts)
    assert [p.numpy().tolist() for p in parts] == [w.tolist() for w in want]


def test_bad_arguments_say_what_to_do():
    with pytest.raises(ValueError, match=r"keras.ops.split: 4 equal sections do not divide axis 0 of length 6"):
        ops.split(np.arange(6), 4)
    with pytest.raises(ValueError, match=r"keras.ops.squeeze: cannot squeeze axis 1 .* its length is 2"):
        ops.squeeze(np.ones((1, 2, 1)), axis=1)
    with pytest.raises(IndexError, match=r"keras.ops.take: .* out of range for axis 0 of length 4"):
        ops.take(np.ones((2, 2)), [5])
    with pytest.raises(TypeError, match=r"keras.ops.clip: x has dtype int64 .* cast x to a float"):
        ops.clip(np.array([1, 2]), 0.5, 1)
    with pytest.raises(ValueError, match=r"keras.ops.mean: axis 2 is out of range .* 2 axes"):
        ops.mean(np.ones((2, 2)), axis=2)
    with pytest.raises(ValueError, match="give both x1 and x2, or neither"):
        ops.where(np.array([True]), 1)
