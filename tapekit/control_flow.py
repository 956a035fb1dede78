"""TensorFlow's functional control flow, run eagerly: `tk.map_fn` and `tk.while_loop`.

In TensorFlow they build one graph op each (so a loop can run inside a graph). tapekit runs
eagerly, so each is the Python loop it stands for: `fn` or `body` is called once per
element or iteration, and every op they run is recorded on the active tapes as any other
op. That is why gradients flow through them with nothing of their own: the tape sees the
unrolled loop. The arguments that only tune TensorFlow's graph op (parallel_iterations,
swap_memory, back_prop, shape_invariants, infer_shape) are accepted and change nothing.

>>> x = tk.Variable(2.0)
>>> with tk.GradientTape() as tape:
...     i, y = tk.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, 1.0])
>>> y, tape.gradient(y, x)                      # x ** 3 and 3 x ** 2
(tk.Tensor(8.0, shape=(), dtype=float32), tk.Tensor(12.0, shape=(), dtype=float32))
"""
from . import dtypes, nest
from .errors import InvalidArgumentError
from .namespaces import missing, public_dir
from .ops.inputs import as_int
from .ops.conversion import convert_to_tensor
from .ops.shapes import stack
from .tensor import Tensor
from .tensor_array import TensorArray

__all__ = ["map_fn", "while_loop"]


def _as_tensor(x):
    return x if isinstance(x, (Tensor, TensorArray)) else convert_to_tensor(x)


def _leaf_dtypes(signature):
    """The dtype each leaf of an fn_output_signature asks for: a dtype, or a TensorSpec's."""
    def one(s):
        if hasattr(s, "kind") or isinstance(s, (type, str)):       # a dtype: tk.float32, "int32"
            return dtypes.as_dtype(s)
        return dtypes.as_dtype(s.dtype)                             # a tk.TensorSpec
    return [one(s) for s in nest.flatten(signature)]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """`fn` applied to each slice of `elems` along axis 0, the results stacked along a new
    axis 0 (`tf.map_fn`). `elems` is a tensor or a nested structure (tuple, list, dict) of
    tensors of one length; `fn` then gets the same structure of slices. What `fn` returns
    must have the structure and dtypes of `elems`, unless `fn_output_signature` (or, as
    earlier TensorFlow, `dtype`) says what it returns instead: a dtype, a tk.TensorSpec, or
    a structure of those. An eager loop: every op of every call is recorded on the tape.

    >>> tk.map_fn(lambda row: tk.reduce_sum(row * row), tk.constant([[1.0, 2.0], [3.0, 4.0]]))
    tk.Tensor([ 5. 25.], shape=(2,), dtype=float32)
    >>> tk.map_fn(lambda p: p[0] * p[1], (tk.constant([1, 2]), tk.constant([3, 4])),
    ...           fn_output_signature=tk.int32)
    tk.Tensor([3 8], shape=(2,), dtype=int32)
    """
    if not callable(fn):
        raise TypeError(f"map_fn: fn must be callable, got {type(fn).__name__}")
    signature = fn_output_signature if fn_output_signature is not None else dtype
    leaves = [_as_tensor(e) for e in nest.flatten(elems)]
    if not leaves:
        raise ValueError("map_fn: elems must hold at least one tensor")
    if any(e.ndim == 0 for e in leaves):
        raise ValueError("map_fn: the tensors in elems must have rank 1 or more (map_fn maps "
                         "over their axis 0), got a scalar")
    lengths = {int(e.shape[0]) for e in leaves}
    if len(lengths) > 1:
        raise ValueError(f"map_fn: the tensors in elems must have one length along axis 0, got "
                         f"lengths {sorted(lengths)}")
    n = lengths.pop()
    out_structure = elems if signature is None else signature
    wanted = _leaf_dtypes(signature) if signature is not None else [e.dtype for e in leaves]
    results = []
    for i in range(n):
        value = fn(nest.pack_like(elems, [e[i] for e in leaves]))
        flat = [_as_tensor(v) for v in nest.flatten(value)]
        if len(flat) != len(wanted) or nest.is_nested(value) != nest.is_nested(out_structure):
            raise ValueError(
                f"map_fn: fn returned {_describe(value)}, but map_fn expects "
                f"{_describe(out_structure)} (the structure of "
                f"{'fn_output_signature' if signature is not None else 'elems'}); when fn "
                f"returns something else, say what in fn_output_signature")
        for k, (v, d) in enumerate(zip(flat, wanted)):
            if v.dtype != d:
                raise dtypes_error(k, v.dtype, d, signature)
        results.append(flat)
    if n == 0:      # nothing to call fn on: empty results of the dtypes expected
        stacked = [convert_to_tensor([], dtype=d) for d in wanted]
    else:
        shapes = [[tuple(r[k].shape) for r in results] for k in range(len(wanted))]
        for k, s in enumerate(shapes):
            if len(set(s)) > 1:
                raise ValueError(f"map_fn: fn's results must have one shape for every element "
                                 f"(they are stacked), got shapes {s[0]} and "
                                 f"{next(x for x in s if x != s[0])} for output {k}")
        stacked = [stack([r[k] for r in results]) for k in range(len(wanted))]
    if not nest.is_nested(out_structure):
        return stacked[0]
    return nest.pack_like(out_structure, stacked)


def dtypes_error(k, got, want, signature):
    return InvalidArgumentError(
        f"map_fn: fn returned a {got.name} tensor for output {k}, but "
        f"{'fn_output_signature' if signature is not None else 'elems'} says {want.name}; "
        f"{'give fn_output_signature=tk.' + got.name + ' when fn changes the dtype' if signature is None else 'cast in fn, or fix fn_output_signature'}")


def _describe(structure):
    if not nest.is_nested(structure):
        return "one tensor"
    return f"a {type(structure).__name__} of {len(nest.flatten(structure))} tensors"


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true (`tf.while_loop`),
    at most `maximum_iterations` times; returns the final loop variables, in the list or
    tuple `body` returns. `loop_vars` is a list or tuple (one entry per argument of `cond`
    and `body`, each a tensor, a number or a nested structure); `body` returns the same
    structure. An eager Python loop: the ops of every iteration are recorded on the tape,
    so gradients flow through the loop.

    >>> tk.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), [0, 0])
    (tk.Tensor(4, shape=(), dtype=int32), tk.Tensor(6, shape=(), dtype=int32))
    >>> tk.while_loop(lambda i: True, lambda i: [i * 2], [1], maximum_iterations=5)
    [tk.Tensor(32, shape=(), dtype=int32)]
    """
    if not callable(cond):
        raise TypeError("while_loop: 'cond' must be callable (a function of the loop variables "
                        "returning a boolean)")
    if not callable(body):
        raise TypeError("while_loop: 'body' must be callable (a function of the loop variables "
                        "returning their next values)")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise ValueError(f"while_loop: 'loop_vars' must be a non-empty list or tuple, one entry "
                         f"per argument of cond and body; got {_short(loop_vars)} (wrap one "
                         f"variable: [x])")
    limit = None
    if maximum_iterations is not None:
        limit = as_int(maximum_iterations, "while_loop: maximum_iterations")
        if limit < 0:
            raise ValueError(f"while_loop: maximum_iterations must be >= 0, got {limit}")
    structure = loop_vars
    current = nest.pack_like(loop_vars, [_as_tensor(v) for v in nest.flatten(loop_vars)])
    count = 0
    while limit is None or count < limit:
        go = cond(*current)
        if isinstance(go, Tensor) and go.size != 1:
            raise ValueError(f"while_loop: cond must return one boolean, got a tensor of shape "
                             f"{tuple(go.shape)}; reduce it first (tk.reduce_all, tk.reduce_any)")
        if not bool(go):
            break
        new = body(*current)
        if not isinstance(new, (list, tuple)):
            raise TypeError(f"while_loop: body must return a list or tuple of the loop "
                            f"variables ({len(structure)} of them), got {_short(new)}; for "
                            f"one variable return (x,) or [x]")
        flat = nest.flatten(new)
        if len(new) != len(structure) or len(flat) != len(nest.flatten(structure)):
            raise ValueError(f"while_loop: body returned {len(new)} loop variables "
                             f"({len(flat)} tensors in all), but loop_vars has "
                             f"{len(structure)} ({len(nest.flatten(structure))} tensors); body "
                             f"must return the structure of loop_vars")
        current = nest.pack_like(new, [_as_tensor(v) for v in flat])
        count += 1
    return current


def _short(value):
    if isinstance(value, Tensor):
        return f"a tensor of shape {tuple(value.shape)}"
    return f"a {type(value).__name__}"


__dir__ = public_dir(globals())
__getattr__ = missing(__name__)
