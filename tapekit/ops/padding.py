"""tk.pad: a tensor surrounded by a constant (TensorFlow's Pad/PadV2) or by its own mirror
image (MirrorPad: REFLECT and SYMMETRIC).

The derivative of CONSTANT padding is the slice that removes the padding again; a mirror pad
copies some elements into the border, so its derivative also adds the border's cotangents back
onto the elements they were copied from (a scatter-add over the index the forward read).
The constant itself gets no gradient (TensorFlow's rule for PadV2: None).
"""
import numpy as np

from ..tensor import Tensor
from .indexing import getitem_op, scatter_add
from .inputs import as_int
from .registry import defop

_NP_MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


def _mirror_index(size, before, after, mode):
    """The source index of each output position along one axis of a mirror pad.

    REFLECT mirrors around the edge element (not repeated: [3 2 | 1 2 3 | 2 1]), SYMMETRIC
    repeats it ([2 1 | 1 2 3 | 3 2]); pad() checks the paddings are small enough for one
    mirror image."""
    idx = np.arange(-before, size + after)
    edge = 0 if mode == "REFLECT" else 1
    idx = np.where(idx < 0, -idx - edge, idx)
    return np.where(idx >= size, 2 * size - 2 + edge - idx, idx)


def _mirror_indices(shape, paddings, mode):
    """np.ix_ of the per-axis source indices: x[index] is the mirror-padded array."""
    return np.ix_(*[_mirror_index(n, b, a, mode) for n, (b, a) in zip(shape, paddings)])


def _pad(x, constant_values, paddings, mode):
    if mode == "CONSTANT":
        return np.pad(x, paddings, mode="constant", constant_values=constant_values)
    return x[_mirror_indices(x.shape, paddings, mode)]


def _pad_vjp(g, ans, x, constant_values, paddings, mode):
    nlead = g.ndim - ans.ndim   # a batch of cotangents (jacobian) keeps its leading axes
    if mode == "CONSTANT":
        inner = tuple(slice(b, b + n) for n, (b, _) in zip(x.shape, paddings))
        return getitem_op(g, index=(slice(None),) * nlead + inner)
    return scatter_add(g, index=_mirror_indices(x.shape, paddings, mode), shape=tuple(x.shape))


def _pad_jvp(t, ans, x, constant_values, paddings, mode):
    return pad_op(t, np.zeros((), t.dtype), paddings=paddings, mode=mode)


pad_op = defop("pad", _pad, args="x constant_values", save="", same_dtype=True, bools=True,
               vjp=[_pad_vjp, None], jvp=[_pad_jvp, None])


def _paddings(paddings, shape):
    """`paddings` checked: one [before, after] pair of integers >= 0 per axis of `shape`."""
    value = paddings._value if isinstance(paddings, Tensor) else paddings
    pairs = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value
    if pairs.shape != (len(shape), 2):
        raise ValueError(f"pad: paddings must have shape [{len(shape)}, 2] (a [before, after] pair "
                         f"per axis of the input of shape {tuple(shape)}), got "
                         f"{np.asarray(value).tolist()!r} of shape {pairs.shape}")
    out = tuple((as_int(b, f"pad: paddings[{i}][0]"), as_int(a, f"pad: paddings[{i}][1]"))
                for i, (b, a) in enumerate(pairs.tolist()))
    for i, (b, a) in enumerate(out):
        if b < 0 or a < 0:
            raise ValueError(f"pad: paddings[{i}] = [{b}, {a}]: padding sizes must be >= 0")
    return out


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """`tensor` with `paddings[i] = [before, after]` elements added on each side of axis i.

    `mode` is "CONSTANT" (filled with `constant_values`), "REFLECT" (mirrored without the edge
    element: each padding must be smaller than its axis) or "SYMMETRIC" (mirrored with it:
    at most the axis's size). The gradient reaches `tensor` only: the constant gets None, as
    in TensorFlow.

    >>> x = tk.constant([[1, 2, 3], [4, 5, 6]])
    >>> tk.pad(x, [[1, 1], [2, 2]])
    tk.Tensor(
    [[0 0 0 0 0 0 0]
     [0 0 1 2 3 0 0]
     [0 0 4 5 6 0 0]
     [0 0 0 0 0 0 0]], shape=(4, 7), dtype=int32)
    >>> tk.pad(x, [[1, 1], [2, 2]], "REFLECT")
    tk.Tensor(
    [[6 5 4 5 6 5 4]
     [3 2 1 2 3 2 1]
     [6 5 4 5 6 5 4]
     [3 2 1 2 3 2 1]], shape=(4, 7), dtype=int32)
    >>> tk.pad(x, [[1, 1], [2, 2]], "SYMMETRIC")
    tk.Tensor(
    [[2 1 1 2 3 3 2]
     [2 1 1 2 3 3 2]
     [5 4 4 5 6 6 5]
     [5 4 4 5 6 6 5]], shape=(4, 7), dtype=int32)
    """
    shape = tuple(tensor.shape) if hasattr(tensor, "shape") else np.shape(tensor)
    pairs = _paddings(paddings, shape)
    key = mode.upper() if isinstance(mode, str) else mode
    if key not in _NP_MODES:
        raise ValueError(f"pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC' (any case), "
                         f"got {mode!r}")
    if key != "CONSTANT":
        limit = 0 if key == "REFLECT" else 1
        for i, ((b, a), n) in enumerate(zip(pairs, shape)):
            if max(b, a) > n - 1 + limit:
                most = n - 1 + limit
                raise ValueError(f"pad: {key} padding of axis {i} is [{b}, {a}] but that axis has "
                                 f"{n} elements; {key} pads at most {most} on each side "
                                 f"({'size - 1' if key == 'REFLECT' else 'size'})")
    if isinstance(constant_values, Tensor) and constant_values.shape != ():
        raise ValueError(f"pad: constant_values must be one number (a scalar), got shape "
                         f"{constant_values.shape}")
    if type(constant_values) is int and constant_values == 0 and getattr(tensor, "dtype", None) == bool:
        constant_values = False   # the default 0 on a bool tensor: TensorFlow pads with False
    return pad_op(tensor, constant_values, paddings=pairs, mode=key)
