"""keras.ops.numpy: Keras 3's NumPy-style functions (also at keras.ops: keras.ops.mean is
keras.ops.numpy.mean), each a few lines over a tapekit op (tapekit/ops/, where the derivative
rules are), so a tape records it. What Keras changes from TensorFlow is in the arguments
and the dtypes:

- NumPy's argument names and meanings: `transpose(x, axes)`, `reshape(x, newshape)`,
  `tile(x, repeats)`, `split(x, indices_or_sections)`, `argmax(x, axis=None)` over the
  flattened tensor, `take(x, indices, axis=None)`, `cumsum(x, axis=None)`;
- Keras's dtypes (promotion.py): `mean` of int32 is float32, `sum` of bool is int32, `arange(5)`
  is int32, `ones((2,))` and `full((2,), 3)` are float32, `maximum(int32, 2.5)` is float32.

    >>> ops = tk.keras.ops
    >>> ops.mean(ops.convert_to_tensor([1, 2, 3, 4]))
    tk.Tensor(2.5, shape=(), dtype=float32)
    >>> ops.argmax(ops.convert_to_tensor([[1, 9], [7, 3]]))     # over all entries
    tk.Tensor(1, shape=(), dtype=int32)
    >>> [ops.shape(part) for part in ops.split(ops.arange(6), [1, 4])]
    [(1,), (3,), (2,)]
"""
import builtins
import numbers

import numpy as np

from ... import ops as tk_ops   # tapekit's op table, by TensorFlow's names (tapekit/ops/)
from ...dtypes import as_dtype
from ...namespaces import missing, public_dir
from ...tensor import Tensor
from .promotion import (BOOL, FLOATX, INT, floating, is_float, promoted, result_type, to_tensor)

__all__ = ["arange", "arccos", "argmax", "array", "broadcast_to", "clip", "concatenate", "cos",
           "cumsum", "divide", "einsum", "exp", "expand_dims", "eye", "full", "linspace", "log",
           "matmul", "max", "maximum", "mean", "minimum", "not_equal", "ones", "ones_like",
           "ravel", "reshape", "sin", "split", "sqrt", "square", "squeeze", "stack", "sum", "take",
           "tensordot", "tile", "transpose", "where", "zeros", "zeros_like"]


def _axes(axis, ndim, what):
    """axis (None, an int or a sequence of ints, negatives from the end) as a sorted tuple."""
    if axis is None:
        return tuple(range(ndim))
    out = []
    for a in ([axis] if isinstance(axis, numbers.Integral) else list(axis)):
        if not -ndim <= int(a) < ndim:
            raise ValueError(f"keras.ops.{what}: axis {a} is out of range for a tensor with "
                             f"{ndim} axes (use -{ndim} .. {ndim - 1})")
        out.append(int(a) % ndim)
    return tuple(sorted(set(out)))


def _shape(shape):
    return [int(shape)] if isinstance(shape, numbers.Integral) else [int(d) for d in shape]


def shape_of(x):
    return [int(d) for d in x.shape]


# --- creating tensors ---------------------------------------------------------------------

def array(x, dtype=None):
    return to_tensor(x, dtype)        # keras.ops.convert_to_tensor


def arange(start, stop=None, step=None, dtype=None):
    """start, start + step, ... below stop (`arange(5)` is 0..4). The dtype, when not given,
    is Keras's: int32 for Python ints, float32 as soon as one is a float."""
    given = [v for v in (start, stop, step) if v is not None]
    dtype = as_dtype(dtype) if dtype is not None else result_type(*given)
    start, stop, step = (0, start, step) if stop is None else (start, stop, step)
    step = 1 if step is None else step
    if not isinstance(step, Tensor) and step == 0:
        raise ValueError("keras.ops.arange: step must not be 0 (it would never reach stop)")
    bounds = [v.numpy().item() if isinstance(v, Tensor) else v for v in (start, stop, step)]
    return to_tensor(np.arange(*bounds).astype(dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from start to stop (stop left out when endpoint=False);
    retstep=True also gives the step. float32 unless `dtype` says otherwise. start and stop
    may be tensors (then the values are differentiable in them), placed along `axis`."""
    out_dtype = as_dtype(dtype) if dtype is not None else result_type(start, stop, float)
    work = out_dtype if is_float(out_dtype) else FLOATX
    lo, hi = to_tensor(start, work), to_tensor(stop, work)
    div = (num - 1) if endpoint else num
    frac = np.arange(num) / builtins.max(div, 1)
    ndim = len(np.broadcast_shapes(tuple(lo.shape), tuple(hi.shape))) + 1
    axis = axis % ndim
    frac = to_tensor(frac.reshape([-1 if i == axis else 1 for i in range(ndim)]), work)
    lo_, hi_ = tk_ops.expand_dims(lo, axis), tk_ops.expand_dims(hi, axis)
    values = lo_ + (hi_ - lo_) * frac
    values = values if values.dtype == out_dtype else tk_ops.cast(values, out_dtype)
    if retstep:
        return values, (hi - lo) / to_tensor(float(div) if div else float("nan"), work)
    return values


def full(shape, fill_value, dtype=None):
    """A tensor of `shape` filled with fill_value; float32 unless `dtype` is given (Keras 3:
    `full((2,), 3)` is float32)."""
    value = to_tensor(fill_value, as_dtype(dtype) or FLOATX)
    return tk_ops.broadcast_to(value, _shape(shape))


def ones(shape, dtype=None):
    """Ones of `shape`, float32 unless `dtype` is given (zeros likewise)."""
    return tk_ops.ones(_shape(shape), dtype=as_dtype(dtype) or FLOATX)


def zeros(shape, dtype=None):
    return tk_ops.zeros(_shape(shape), dtype=as_dtype(dtype) or FLOATX)


def ones_like(x, dtype=None):
    return tk_ops.ones_like(to_tensor(x), dtype=as_dtype(dtype))


def zeros_like(x, dtype=None):
    return tk_ops.zeros_like(to_tensor(x), dtype=as_dtype(dtype))


def eye(N, M=None, k=0, dtype=None):  # noqa: N803 - Keras's names
    """The N x M matrix with ones on diagonal k (k > 0 above the main one), float32 unless
    `dtype` is given."""
    return to_tensor(np.eye(int(N), None if M is None else int(M), int(k),
                            dtype=as_dtype(dtype) or FLOATX))


# --- shapes ------------------------------------------------------------------------------

def reshape(x, newshape):
    """x with shape `newshape` (an int or a tuple; one -1 is inferred)."""
    return tk_ops.reshape(to_tensor(x), _shape(newshape))


def ravel(x):
    """x flattened to one axis."""
    return tk_ops.reshape(to_tensor(x), [-1])


def expand_dims(x, axis):
    """x with a new axis of length 1 at `axis` (an int, or a tuple of the new axes' places)."""
    x = to_tensor(x)
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    new = _axes(axes, x.ndim + len(axes), "expand_dims")
    for a in new:
        x = tk_ops.expand_dims(x, a)
    return x


def squeeze(x, axis=None):
    """x without its axes of length 1 (all of them, or those of `axis`)."""
    x = to_tensor(x)
    dims = shape_of(x)
    if axis is None:
        drop = [i for i, d in enumerate(dims) if d == 1]
    else:
        drop = _axes(axis, len(dims), "squeeze")
        wrong = [a for a in drop if dims[a] != 1]
        if wrong:
            raise ValueError(f"keras.ops.squeeze: cannot squeeze axis {wrong[0]} of a tensor of "
                             f"shape {tuple(dims)}: its length is {dims[wrong[0]]}, not 1")
    return tk_ops.reshape(x, [d for i, d in enumerate(dims) if i not in drop])


def transpose(x, axes=None):
    """x with its axes permuted by `axes` (reversed when None)."""
    return tk_ops.transpose(to_tensor(x), perm=None if axes is None else list(axes))


def broadcast_to(x, shape):
    return tk_ops.broadcast_to(to_tensor(x), _shape(shape))


def tile(x, repeats):
    """x repeated `repeats` times along each axis, NumPy's way: an int repeats the last axis;
    fewer repeats than axes count from the last axis; more add leading axes."""
    x = to_tensor(x)
    reps = _shape(repeats)
    if len(reps) > x.ndim:
        x = tk_ops.reshape(x, [1] * (len(reps) - x.ndim) + shape_of(x))
    reps = [1] * (x.ndim - len(reps)) + reps
    return tk_ops.tile(x, reps)


def concatenate(xs, axis=0):
    """The tensors of xs joined along `axis`, promoted to one dtype."""
    if axis is None:
        raise ValueError("keras.ops.concatenate: axis=None is not supported (Keras 3 refuses it "
                         "too); flatten first: concatenate([ravel(a), ravel(b)], axis=0)")
    return tk_ops.concat(promoted(*xs), axis=int(axis))


def stack(x, axis=0):
    """The tensors of x stacked along a new axis, promoted to one dtype."""
    return tk_ops.stack(promoted(*x), axis=int(axis))


def split(x, indices_or_sections, axis=0):
    """x cut along `axis`, as NumPy's split: an int n gives n equal parts (it must divide the
    length); a list of indices gives the parts between them. A list of tensors."""
    x = to_tensor(x)
    axis = _axes(axis, x.ndim, "split")[0]
    length = shape_of(x)[axis]
    if isinstance(indices_or_sections, numbers.Integral):
        n = int(indices_or_sections)
        if n <= 0 or length % n:
            raise ValueError(f"keras.ops.split: {n} equal sections do not divide axis {axis} of "
                             f"length {length}; give a divisor of {length}, or a list of indices")
        cuts = [length // n * i for i in range(1, n)]
    else:
        cuts = [int(i) for i in np.ravel(indices_or_sections)]
        if any(b < a for a, b in zip([0] + cuts, cuts + [length])):
            raise ValueError(f"keras.ops.split: the indices {cuts} must increase and lie in "
                             f"[0, {length}] (axis {axis} has length {length})")
    bounds = list(zip([0] + cuts, cuts + [length]))
    return [x[(np.s_[:],) * axis + (np.s_[a:b],)] for a, b in bounds]


# --- arithmetic ------------------------------------------------------------------------------

def sqrt(x):
    """The square root; an integer x gives float32."""
    return tk_ops.sqrt(floating(x))


def exp(x):
    return tk_ops.exp(floating(x))


def log(x):
    return tk_ops.log(floating(x))


def sin(x):
    return tk_ops.sin(floating(x))


def cos(x):
    return tk_ops.cos(floating(x))


def arccos(x):
    """The inverse cosine (tk.acos), in radians."""
    return tk_ops.acos(floating(x))


def square(x):
    """x * x; a bool x gives int32, as in Keras 3."""
    x = to_tensor(x)
    return tk_ops.square(x if x.dtype != BOOL else tk_ops.cast(x, INT))


def maximum(x1, x2):
    return tk_ops.maximum(*promoted(x1, x2))


def minimum(x1, x2):
    return tk_ops.minimum(*promoted(x1, x2))


def divide(x1, x2):
    """x1 / x2, always floating: two int32 give float32."""
    dtype = result_type(x1, x2, float)
    return tk_ops.divide(*promoted(x1, x2, dtype=dtype))


def not_equal(x1, x2):
    return tk_ops.not_equal(*promoted(x1, x2))


def matmul(x1, x2):
    """The matrix product, NumPy's way: a 1-D argument is a vector (two vectors give their dot
    product), more axes are batches."""
    a, b = promoted(x1, x2)
    vec_a, vec_b = a.ndim == 1, b.ndim == 1
    a = tk_ops.expand_dims(a, 0) if vec_a else a
    b = tk_ops.expand_dims(b, -1) if vec_b else b
    out = tk_ops.matmul(a, b)
    if vec_a or vec_b:
        dims = shape_of(out)
        keep = [d for i, d in enumerate(dims) if not (vec_b and i == len(dims) - 1)
                and not (vec_a and i == len(dims) - 2)]
        out = tk_ops.reshape(out, keep)
    return out


def tensordot(x1, x2, axes=2):
    """Sum of products over `axes` (an int: the last axes of x1 with the first of x2)."""
    return tk_ops.tensordot(*promoted(x1, x2), axes)


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation over the operands, promoted to one dtype."""
    if kwargs:
        raise TypeError(f"keras.ops.einsum: tapekit takes no keyword arguments here "
                        f"(got {sorted(kwargs)})")
    return tk_ops.einsum(subscripts, *promoted(*operands))


def where(condition, x1=None, x2=None):
    """x1 where condition holds, x2 elsewhere (broadcast, promoted to one dtype). With neither,
    the indices where condition holds: a list of int32 tensors, one per axis."""
    if x1 is None and x2 is None:
        cond = np.asarray(condition.numpy() if isinstance(condition, Tensor) else condition)
        return [to_tensor(i.astype(INT)) for i in np.nonzero(cond)]
    if x1 is None or x2 is None:
        raise ValueError("keras.ops.where: give both x1 and x2, or neither (then the indices "
                         "where condition holds)")
    a, b = promoted(x1, x2)
    cond = to_tensor(condition)
    cond = cond if cond.dtype == BOOL else tk_ops.cast(cond, BOOL)
    return tk_ops.where(cond, a, b)


def clip(x, x_min, x_max):
    """x limited to [x_min, x_max], in x's dtype (a bool x becomes int32). The gradient is 1
    inside the interval, 0 outside."""
    x = to_tensor(x)
    if x.dtype == BOOL:
        x = tk_ops.cast(x, INT)
    bounds = []
    for bound in (x_min, x_max):
        value = bound.numpy() if isinstance(bound, Tensor) else np.asarray(bound)
        if not is_float(x.dtype) and np.any(value != np.round(value)):
            raise TypeError(f"keras.ops.clip: x has dtype {x.dtype} but a bound is {value!r}, "
                            f"which is not an integer (Keras 3 refuses it too); cast x to a "
                            f"float dtype first")
        bounds.append(to_tensor(bound, x.dtype))
    return tk_ops.clip_by_value(x, *bounds)


# --- reductions ------------------------------------------------------------------------------

_SUM_DTYPES = {np.dtype(d): np.dtype(to) for d, to in (("bool", "int32"), ("int8", "int32"),
                                                       ("int16", "int32"), ("uint8", "uint32"),
                                                       ("uint16", "uint32"))}


def sum(x, axis=None, keepdims=False):  # noqa: A001 - Keras's name
    """The sum over `axis` (all axes when None). Small integers and bools sum in int32
    (uint8 in uint32), as in Keras 3."""
    x = to_tensor(x)
    wide = _SUM_DTYPES.get(x.dtype)
    x = tk_ops.cast(x, wide) if wide is not None else x
    return tk_ops.reduce_sum(x, axis=list(_axes(axis, x.ndim, "sum")), keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    """The mean over `axis` (all axes when None); integers and bools give float32, float16
    is averaged in float32 and given back as float16, as in Keras 3."""
    x = to_tensor(x)
    out_dtype = x.dtype if is_float(x.dtype) else FLOATX
    work = tk_ops.cast(x, FLOATX) if x.dtype != np.float64 and x.dtype != FLOATX else x
    out = tk_ops.reduce_mean(work, axis=list(_axes(axis, x.ndim, "mean")), keepdims=keepdims)
    return out if out.dtype == out_dtype else tk_ops.cast(out, out_dtype)


def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001 - Keras's name
    """The largest entry over `axis`; with `initial`, never below it."""
    x = to_tensor(x)
    out = tk_ops.reduce_max(x, axis=list(_axes(axis, x.ndim, "max")), keepdims=keepdims)
    return out if initial is None else tk_ops.maximum(out, to_tensor(initial, out.dtype))


def argmax(x, axis=None, keepdims=False):
    """The index of the largest entry along `axis` (the first of equal ones), as int32. With
    axis=None, the index into the flattened tensor (NumPy's and Keras's meaning; tk.argmax's
    axis=None means axis 0)."""
    x = to_tensor(x)
    if axis is None:
        out = tk_ops.argmax(tk_ops.reshape(x, [-1]), axis=0, output_type=INT)
        return tk_ops.reshape(out, [1] * x.ndim) if keepdims else out
    axis = _axes(axis, x.ndim, "argmax")[0]
    out = tk_ops.argmax(x, axis=axis, output_type=INT)
    return tk_ops.expand_dims(out, axis) if keepdims else out


def cumsum(x, axis=None, dtype=None):
    """The running sum along `axis` (over the flattened tensor when None); bools count in
    int32."""
    x = to_tensor(x)
    if dtype is not None:
        x = tk_ops.cast(x, as_dtype(dtype))
    elif x.dtype == BOOL:
        x = tk_ops.cast(x, INT)
    if axis is None:
        return tk_ops.cumsum(tk_ops.reshape(x, [-1]), axis=0)
    return tk_ops.cumsum(x, axis=_axes(axis, x.ndim, "cumsum")[0])


def take(x, indices, axis=None):
    """The entries of x at `indices` along `axis` (of the flattened x when None); negative
    indices count from the end. Differentiable in x."""
    x = to_tensor(x)
    if axis is None:
        x, axis = tk_ops.reshape(x, [-1]), 0
    axis = _axes(axis, x.ndim, "take")[0]
    idx = np.asarray(indices.numpy() if isinstance(indices, Tensor) else indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"keras.ops.take: indices must be integers, got dtype {idx.dtype}")
    length = shape_of(x)[axis]
    if idx.size and (idx.min() < -length or idx.max() >= length):
        raise IndexError(f"keras.ops.take: an index in {idx.tolist()} is out of range for axis "
                         f"{axis} of length {length} (use -{length} .. {length - 1})")
    return tk_ops.gather(x, to_tensor(np.where(idx < 0, idx + length, idx).astype(INT)), axis=axis)


__dir__ = public_dir(globals())
__getattr__ = missing(__name__)
