"""keras.ops: Keras 3's functions on tensors, by Keras's names, signatures and dtypes, on
tapekit's ops (so a tape records them and gradients flow).

    import tapekit as keras          # or: from tapekit import keras; or tk.keras.ops
    x = keras.ops.convert_to_tensor([[1, 2], [3, 4]])
    keras.ops.mean(x)                # tk.Tensor(2.5, shape=(), dtype=float32), as Keras 3
    keras.ops.argmax(x)              # 3: over the flattened tensor, NumPy's meaning

Keras's names are NumPy's, and several differ from TensorFlow's (tapekit's own op table,
tapekit/ops/, which tk.reduce_mean, tk.argmax, ... are): `transpose(x, axes)` not
`perm`, `argmax(x, axis=None)` over all entries, `shape(x)` a tuple of ints, `split` by
sections or indices, `mean` of int32 in float32. So keras.ops is its own namespace, laid out
as Keras 3 lays it out:

    numpy.py    keras.ops.numpy   the NumPy-style functions (mean, reshape, split, ...)
    nn.py       keras.ops.nn      activations and one_hot
    linalg.py   keras.ops.linalg  norm
    image.py    keras.ops.image   resize, extract_patches
    core.py     (Keras's core)    shape, cast, convert_to_tensor / _numpy, slice
    math.py     (Keras's math)    top_k
    promotion.py                  Keras's dtype promotion, which all of them share

Every function is also here at keras.ops. A keras.ops name tapekit lacks raises
tapekit.NotInTapekit, which says so (tapekit/not_in_tapekit.json, from the inventory).

`tk.ops` is this module too (`import tapekit as keras` makes keras.ops tk.ops); tapekit's op
table stays the package `tapekit.ops` for imports (`from tapekit.ops import reduce_sum`), and
its modules and registry are reachable from here as before (`tk.ops.registry`, `tk.ops.OPS`).
"""
import importlib as _importlib
from types import ModuleType as _ModuleType

from ...namespaces import public_dir as _public_dir, refusal as _refusal
from .. import identifiers as _identifiers
from . import image, linalg, nn, numpy  # noqa: F401  (keras.ops.image, ... as in Keras 3)
from .core import cast, convert_to_numpy, convert_to_tensor, shape, slice  # noqa: F401,A004
from .linalg import norm  # noqa: F401
from .math import top_k  # noqa: F401
from .nn import gelu, one_hot, relu, sigmoid, softmax  # noqa: F401
from .numpy import (arange, arccos, argmax, array, broadcast_to, clip, concatenate, cos,  # noqa: F401
                    cumsum, divide, einsum, exp, expand_dims, eye, full, linspace, log, matmul,
                    max, maximum, mean, minimum, not_equal, ones, ones_like, ravel, reshape, sin,
                    split, sqrt, square, squeeze, stack, sum, take, tensordot, tile, transpose,
                    where, zeros, zeros_like)

__all__ = _identifiers.exported(globals(), modules=("image", "linalg", "nn", "numpy"))

# tapekit's op table (the package tapekit.ops) that tk.ops named before issue 45: its modules
# (tk.ops.registry, tk.ops.matrix, ...) and its registry stay reachable here by those names,
# unless Keras has the name (keras.ops.conv is Keras's convolution, not tapekit/ops/conv.py).
_OP_TABLE_NAMES = ("OPS", "defop")


def __getattr__(name):
    """A keras.ops name tapekit lacks says so (NotInTapekit); tapekit's op table's modules
    and registry are handed on; any other name is Python's AttributeError."""
    error = _refusal(__name__, name) if not name.startswith("__") else None
    if error is not None:
        raise error
    found = vars(_importlib.import_module("tapekit.ops")).get(name)
    if found is not None and (isinstance(found, _ModuleType) or name in _OP_TABLE_NAMES):
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}", name=name,
                         obj=_importlib.import_module(__name__))


__dir__ = _public_dir(globals())
