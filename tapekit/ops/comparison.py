"""Comparisons and logic: less, greater, equal and the others, logical_and/or/not, is_nan and
is_finite. Their results are booleans: no gradient flows through them.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.equal(tk.constant([1.0, 2.0]), 2.0)
tk.Tensor([False  True], shape=(2,), dtype=bool)

>>> tk.not_equal(tk.constant([1.0, 2.0]), 2.0)
tk.Tensor([ True False], shape=(2,), dtype=bool)

>>> tk.greater(tk.constant([1.0, 2.0, 3.0]), 2.0)
tk.Tensor([False False  True], shape=(3,), dtype=bool)

>>> tk.greater_equal(tk.constant([1.0, 2.0, 3.0]), 2.0)
tk.Tensor([False  True  True], shape=(3,), dtype=bool)

>>> tk.less(tk.constant([1.0, 2.0, 3.0]), 2.0)
tk.Tensor([ True False False], shape=(3,), dtype=bool)

>>> tk.less_equal(tk.constant([1.0, 2.0, 3.0]), 2.0)
tk.Tensor([ True  True False], shape=(3,), dtype=bool)

>>> tk.is_nan(tk.constant([1.0, np.nan]))
tk.Tensor([False  True], shape=(2,), dtype=bool)

>>> tk.is_finite(tk.constant([1.0, np.inf, np.nan]))
tk.Tensor([ True False False], shape=(3,), dtype=bool)

>>> tk.logical_and(tk.constant([True, True]), tk.constant([True, False]))
tk.Tensor([ True False], shape=(2,), dtype=bool)

>>> tk.logical_or(tk.constant([True, False]), tk.constant([False, False]))
tk.Tensor([ True False], shape=(2,), dtype=bool)

>>> tk.logical_not(tk.constant([True, False]))
tk.Tensor([False  True], shape=(2,), dtype=bool)
"""
import numpy as np

from .registry import defop


less = defop("less", np.less, args="x y", ufunc=np.less)
less_equal = defop("less_equal", np.less_equal, args="x y", ufunc=np.less_equal)
greater = defop("greater", np.greater, args="x y", ufunc=np.greater)
greater_equal = defop("greater_equal", np.greater_equal, args="x y", ufunc=np.greater_equal)
equal = defop("equal", np.equal, args="x y", ufunc=np.equal)
not_equal = defop("not_equal", np.not_equal, args="x y", ufunc=np.not_equal)
logical_and = defop("logical_and", np.logical_and, args="x y", ufunc=np.logical_and)
logical_or = defop("logical_or", np.logical_or, args="x y", ufunc=np.logical_or)
logical_not = defop("logical_not", np.logical_not, ufunc=np.logical_not)
is_nan = defop("is_nan", np.isnan, ufunc=np.isnan)
is_finite = defop("is_finite", np.isfinite, ufunc=np.isfinite)
# `&`, `|`, `~` on integer tensors: TensorFlow's bitwise ops (tf.bitwise), not the logical ones.
bitwise_and = defop("bitwise_and", np.bitwise_and, args="x y", same_dtype=True)
bitwise_or = defop("bitwise_or", np.bitwise_or, args="x y", same_dtype=True)
invert = defop("invert", np.invert)


def _kind(v):
    """'b' for bools, 'i'/'u' for integers, 'f' for floats: a tensor's dtype or a Python value's."""
    if type(v) is bool:
        return "b"
    if type(v) is int:
        return "i"
    return getattr(v, "dtype", np.asarray(v).dtype).kind


def logic_operator(symbol, x, y=None):
    """`x & y`, `x | y`, `~x` as TensorFlow runs them: logical on bools, bitwise on integers
    (6 & 3 is 2, ~5 is -6), an error for floats or for a bool meeting an integer."""
    args = (x,) if y is None else (x, y)
    kinds = {_kind(v) for v in args}
    if kinds == {"b"}:
        logical = {"&": logical_and, "|": logical_or, "~": logical_not}[symbol]
    elif kinds <= {"i", "u"}:
        logical = {"&": bitwise_and, "|": bitwise_or, "~": invert}[symbol]
    else:
        got = " and ".join(str(getattr(v, "dtype", type(v).__name__)) for v in args)
        raise TypeError(f"`{symbol}` needs bools (logical) or integers (bitwise), got {got}; "
                        f"TensorFlow refuses it too. Compare first (x > 0) or cast: "
                        f"tk.cast(x, tk.bool)")
    return logical(*args)


def logical_and_operator(x, y):
    """`x & y` (Tensor.__and__)."""
    return logic_operator("&", x, y)


def logical_or_operator(x, y):
    """`x | y` (Tensor.__or__)."""
    return logic_operator("|", x, y)
