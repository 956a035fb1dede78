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
