"""What makes two calls of a tk.function the same trace: signatures, TensorSpec, and the
words for why a call traced again.

A call's key is, per argument: its nesting, then for each tensor (or NumPy array) its shape
and dtype, for a Python float its bits (so 0.0 and -0.0 differ, as 1/x does, and every
NaN is one key), for other hashable values their value, and for anything else (a model,
an optimizer, a Variable) its identity; an object with `__tf_tracing_type__` by the
TraceType it returns (TF's protocol: two calls share a trace when their types are equal).
"""
import abc

import numpy as np

from .. import dtypes, nest
from ..convert import convert_to_tensor
from ..namespaces import no_attribute
from ..tensor import Tensor, Variable


class TensorSpec:
    """The shape and dtype a tensor argument must have (`tf.TensorSpec`); None in the shape
    is a dimension of any size.

    >>> tk.TensorSpec(shape=[None, 3], dtype=tk.float32)
    TensorSpec(shape=(None, 3), dtype=tk.float32, name=None)
    """

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, value):
        shape = tuple(np.shape(value)) if not isinstance(value, TensorSpec) else value.shape
        dtype = getattr(value, "dtype", None)
        if dtype is not None and np.dtype(dtype) != self.dtype:
            return False
        return _shape_fits(shape, self.shape)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype, self.name) == \
            (other.shape, other.dtype, other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype=tk.{self.dtype.name}, name={self.name!r})"


class TraceType(abc.ABC):
    """What decides whether two calls share a trace, for an argument of your own class
    (`tf.types.experimental.TraceType`): the class gives `__tf_tracing_type__(self, context)`
    returning one, and calls whose types are equal (`__eq__`, `__hash__`) share a trace.

    >>> class Fruit(tk.types.experimental.TraceType):
    ...     def __init__(self, kind): self.kind = kind
    ...     def is_subtype_of(self, other): return self == other
    ...     def most_specific_common_supertype(self, others):
    ...         return self if all(self == o for o in others) else None
    ...     def placeholder_value(self, placeholder_context=None): return self.kind
    ...     def __eq__(self, other): return type(other) is Fruit and self.kind == other.kind
    ...     def __hash__(self): return hash(self.kind)
    >>> Fruit("apple") == Fruit("apple")
    True

    tapekit asks equality only (TF also reuses a trace whose type is a supertype); it passes
    the call's own object to the traced Python, where TF passes `placeholder_value`.
    """

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """Whether a trace for `other` may take this type's values."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that takes this one's and each of `others`', or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context):
        """The value TF's tracing passes for this type."""

    @abc.abstractmethod
    def __eq__(self, other):
        """Equal types share a trace."""

    @abc.abstractmethod
    def __hash__(self):
        """Consistent with __eq__: the type is a cache key."""

    def to_tensors(self, value):
        """The tensors `value` holds (none by default: the value is part of the trace)."""
        return []

    def from_tensors(self, tensors):
        return self.placeholder_value(None)

    def flatten(self):
        return []

    def cast(self, value, cast_context):
        return value


def _shape_fits(shape, spec_shape):
    if spec_shape is None:
        return True
    if shape is None or len(shape) != len(spec_shape):
        return False
    return all(s is None or d is None or s == d for d, s in zip(shape, spec_shape))


def bind_input_signature(fn_name, signature, args, kwargs, params=()):
    """The call's arguments (by position, or by the names in `params`) as tensors of the
    signature's dtypes; otherwise TF's TypeError, naming the argument, what was given and
    what the signature says."""
    if kwargs:
        args = list(args)
        for name in list(kwargs):
            k = params.index(name) if name in params else -1
            if k < len(args) or k >= len(signature):
                what = "was also given by position" if 0 <= k < len(args) else \
                    "is not one of its input_signature's parameters " \
                    f"{list(params[:len(signature)])}"
                raise TypeError(f"tk.function {fn_name}: keyword argument {name!r} {what}")
        names = params[len(args):len(signature)]
        missing = [n for n in names if n not in kwargs]
        if missing:
            raise TypeError(f"tk.function {fn_name}: missing argument(s) {missing} of its "
                            f"input_signature")
        args += [kwargs[n] for n in names]
    if len(args) != len(signature):
        raise TypeError(f"tk.function {fn_name}: its input_signature lists {len(signature)} "
                        f"argument(s), the call gave {len(args)}")
    bound = []
    for k, (arg, spec) in enumerate(zip(args, signature)):
        specs = nest.flatten(spec) if nest.is_nested(spec) else [spec]
        leaves = nest.flatten(arg) if nest.is_nested(spec) else [arg]
        if len(specs) != len(leaves):
            raise TypeError(f"tk.function {fn_name}: argument {k} has {len(leaves)} value(s), "
                            f"its input_signature entry {spec!r} has {len(specs)}")
        out = []
        for leaf, s in zip(leaves, specs):
            if isinstance(leaf, Tensor) and leaf.dtype != s.dtype:
                raise TypeError(f"tk.function {fn_name}: argument {k} is a tensor of dtype "
                                f"{leaf.dtype.name}, the input_signature says {s!r}; cast it "
                                f"with tk.cast(x, tk.{s.dtype.name})")
            if isinstance(leaf, Tensor):
                t = leaf
            else:
                try:
                    t = convert_to_tensor(leaf, dtype=s.dtype)
                except (TypeError, ValueError) as e:
                    raise TypeError(f"tk.function {fn_name}: argument {k} is {leaf!r}, which "
                                    f"is no tensor for the input_signature's {s!r}: {e}") from None
            if not _shape_fits(t.shape, s.shape):
                raise TypeError(f"tk.function {fn_name}: argument {k} has shape {t.shape}, "
                                 f"which the input_signature {s!r} does not allow (None is any "
                                 f"size); reshape the argument or widen the signature")
            out.append(t)
        bound.append(nest.pack_like(spec, out) if nest.is_nested(spec) else out[0])
    return tuple(bound), {}


def is_tensor_arg(leaf):
    # Variables are captured by identity (reads and writes must reach the real one);
    # NumPy arrays count as tensors, as in tf.function.
    return (isinstance(leaf, Tensor) and not isinstance(leaf, Variable)) or isinstance(leaf, np.ndarray)


def fast_key(args):
    """(type, shape, dtype) of each argument when all are Tensors or arrays, else None."""
    key = []
    for a in args:
        t = type(a)
        if t is Tensor:
            v = a._value
        elif t is np.ndarray:
            v = a
        else:
            return None
        key.append((t, v.shape, v.dtype))
    return tuple(key)


def signature(args, kwargs):
    """The cache key: per argument (positional, then keywords by name) its nesting and the
    key of each leaf (see the module's docstring)."""
    parts = [(k, _structure(a), tuple(_leaf_key(x) for x in _leaves(a)))
             for k, a in enumerate(args)]
    parts += [(name, _structure(kwargs[name]), tuple(_leaf_key(x) for x in _leaves(kwargs[name])))
              for name in sorted(kwargs)]
    return tuple(parts)


def _leaves(a):
    return nest.flatten(a) if nest.is_nested(a) else [a]


def _leaf_key(leaf):
    if is_tensor_arg(leaf):
        return ("tensor", leaf.shape, leaf.dtype)
    if isinstance(leaf, Variable):
        return ("variable", id(leaf))
    if isinstance(leaf, (float, np.floating)):
        return (type(leaf), float(leaf).hex())   # -0.0 is not 0.0; every NaN is one key
    tracing_type = getattr(type(leaf), "__tf_tracing_type__", None)
    if tracing_type is not None:
        return ("trace_type", tracing_type(leaf, None))
    try:
        return (type(leaf), leaf, hash(leaf))   # models, optimizers: identity hash
    except TypeError:
        return ("object", id(leaf))


def _structure(s):
    if isinstance(s, (list, tuple)):
        return (type(s), tuple(_structure(x) for x in s))
    if isinstance(s, dict):
        return (dict, tuple((k, _structure(s[k])) for k in sorted(s)))
    return None


def spec_signature(args, kwargs):
    """`signature` of arguments given as tk.TensorSpec (get_concrete_function's, an
    input_signature's): a spec is a tensor of its shape (None: any size; shape None: any
    rank) and dtype."""
    def key(leaf):
        return ("tensor", leaf.shape, leaf.dtype) if isinstance(leaf, TensorSpec) else _leaf_key(leaf)
    parts = [(k, _structure(a), tuple(key(x) for x in _leaves(a))) for k, a in enumerate(args)]
    parts += [(n, _structure(kwargs[n]), tuple(key(x) for x in _leaves(kwargs[n])))
              for n in sorted(kwargs)]
    return tuple(parts)


def covers(general, key):
    """Whether a trace for `general` (a signature, None dims meaning any size) takes a call
    of signature `key`: what TF asks of its traces before tracing again."""
    return _merge(general, key, lambda a, b: a if _takes(a, b) else False) is not False


def _takes(general, shape):
    if general is None:
        return True
    return shape is not None and len(shape) == len(general) and \
        all(g is None or g == d for g, d in zip(general, shape))


def generalize(key, others):
    """The most specific signature that takes `key` and each of `others` that differs from
    it in tensor shapes only (reduce_retracing): sizes that differ become None, ranks that
    differ an unknown rank; `key` itself when none of them does."""
    for other in others:
        merged = _merge(key, other, _common_shape)
        if merged is not False:
            key = merged
    return key


def _common_shape(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def _merge(a, b, shapes):
    """`a` and `b` with each pair of tensor shapes replaced by shapes(sa, sb); False where
    they differ in anything but tensor shapes (or where `shapes` says False)."""
    if len(a) != len(b):
        return False
    parts = []
    for (name_a, s_a, k_a), (name_b, s_b, k_b) in zip(a, b):
        if name_a != name_b or s_a != s_b or len(k_a) != len(k_b):
            return False
        leaves = []
        for x, y in zip(k_a, k_b):
            if x[0] == "tensor" and y[0] == "tensor" and x[2] == y[2]:
                shape = shapes(x[1], y[1])
                if shape is False:
                    return False
                leaves.append(("tensor", shape, x[2]))
            elif x == y:
                leaves.append(x)
            else:
                return False
        parts.append((name_a, s_a, tuple(leaves)))
    return tuple(parts)


def describe_change(old, new, param_names):
    """Why `new` traced again after `old`: the first argument whose key differs, in words;
    and whether only tensor shapes changed (reduce_retracing does not count those)."""
    if old is None:
        return "its first call", False
    if len(old) != len(new):
        return "a different number of arguments", False
    for (name, s_old, k_old), (_, s_new, k_new) in zip(old, new):
        if (s_old, k_old) == (s_new, k_new):
            continue
        label = param_names[name] if isinstance(name, int) and name < len(param_names) else name
        if s_old != s_new or len(k_old) != len(k_new):
            return f"argument {label!r} has a different nesting", False
        for a, b in zip(k_old, k_new):
            if a == b:
                continue
            if a[0] == "tensor" and b[0] == "tensor":
                shape_only = a[2] == b[2]
                return (f"argument {label!r} is a tensor of shape {b[1]} {b[2].name} (before: "
                        f"{a[1]} {a[2].name})", shape_only)
            return f"argument {label!r} is {_show(b)} (before: {_show(a)})", False
    return "a Python decision on a traced value took a new path", False


def _show(key):
    kind = key[0]
    if kind == "tensor":
        return f"a tensor of shape {key[1]}"
    if kind in ("variable", "object", "trace_type"):
        return "another object"
    if isinstance(key[1], str) and issubclass(kind, (float, np.floating)):
        return f"the Python {kind.__name__} {float.fromhex(key[1])!r}"
    return f"the Python {kind.__name__} {key[1]!r}"
