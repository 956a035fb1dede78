"""tk.einsum: Einstein summation, with gradients for every input.

The VJP of an einsum is an einsum: for `ij,jk->ik` the cotangent of the first input is
`ik,jk->ij` (the output's subscripts in the input's place, the other inputs as they are).
Two cases need one more operand: a subscript that only this input has (`ij->i` sums j away:
its gradient spreads g along j, an einsum with a vector of ones `j`), and a subscript repeated
within the input (`ii->` is the trace: the gradient is g on the diagonal, an einsum with the
identity `if`, f a fresh letter). The cotangent's leading batch axes (jacobian) and the
broadcast axes of `...` ride in a leading ellipsis; backprop sums what the input did not have.

Supported: letters a-z A-Z, `...` at the start of a term, implicit output (no `->`: the
letters used once, sorted). Anything else raises an error that names the equation.

>>> a = tk.constant([[1.0, 2.0], [3.0, 4.0]])
>>> tk.einsum("ij,jk->ik", a, a)            # a @ a
tk.Tensor(
[[ 7. 10.]
 [15. 22.]], shape=(2, 2), dtype=float32)
>>> tk.einsum("ii", a)                      # the trace (implicit output: nothing left)
tk.Tensor(5.0, shape=(), dtype=float32)
>>> tk.einsum("...ij->...ji", tk.ones([3, 2, 4])).shape
(3, 4, 2)

>>> w = tk.Variable([1.0, 2.0, 3.0])
>>> with tk.GradientTape() as tape:
...     y = tk.einsum("i,i->", w, w)         # w . w
>>> tape.gradient(y, w)
tk.Tensor([2. 4. 6.], shape=(3,), dtype=float32)
"""
import string

import numpy as np

from .registry import defop

_ELLIPSIS = "..."


def _split(term, equation):
    """A term as (has_ellipsis, letters); '...' only at the start."""
    rest = term[3:] if term.startswith(_ELLIPSIS) else term
    if "." in rest or any(c not in string.ascii_letters for c in rest):
        raise ValueError(f"einsum: cannot read the term {term!r} of equation {equation!r}: use "
                         f"letters a-z, A-Z and '...' at the start of a term only")
    return term.startswith(_ELLIPSIS), rest


def parse(equation, n_inputs):
    """The explicit form of `equation` ('ij,jk->ik'), checked against the number of inputs."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise ValueError(f"einsum: equation {equation!r} has more than one '->'")
    lhs, out = eq.split("->") if "->" in eq else (eq, None)
    terms = lhs.split(",")
    if len(terms) != n_inputs:
        raise ValueError(f"einsum: equation {equation!r} has {len(terms)} input terms but "
                         f"{n_inputs} tensors were given")
    parts = [_split(t, equation) for t in terms]
    any_ellipsis = any(e for e, _ in parts)
    if out is None:   # implicit: letters used exactly once, in alphabetical order
        letters = "".join(p for _, p in parts)
        out = (_ELLIPSIS if any_ellipsis else "") + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    out_ellipsis, out_letters = _split(out, equation)
    if any_ellipsis and not out_ellipsis:
        raise ValueError(f"einsum: equation {equation!r} sums over the '...' axes; tapekit needs "
                         f"'...' in the output too (sum them with tk.reduce_sum afterwards)")
    used = set("".join(p for _, p in parts))
    if set(out_letters) - used or len(set(out_letters)) != len(out_letters):
        raise ValueError(f"einsum: the output {out!r} of equation {equation!r} must use each letter "
                         f"once, and only letters of the inputs")
    return ",".join(terms) + "->" + out


def _terms(equation):
    lhs, out = equation.split("->")
    return lhs.split(","), out


def _core(term):
    return term[3:] if term.startswith(_ELLIPSIS) else term


def _einsum(*xs, equation):
    big = sum(np.size(x) for x in xs) > 4096 and len(xs) > 1
    return np.einsum(equation, *xs, optimize=big)


def _input_cotangent(g, xs, i, equation):
    """The cotangent of input i: an einsum of g with the other inputs (and ones / identities)."""
    terms, out = _terms(equation)
    fresh = iter(c for c in string.ascii_letters if c not in equation)
    x = xs[i]
    core = _core(terms[i])
    sizes = dict(zip(core, x.shape[x.ndim - len(core):]))
    specs = [_ELLIPSIS + _core(out)] + [t for j, t in enumerate(terms) if j != i]
    operands = [g] + [xs[j] for j in range(len(xs)) if j != i]
    target, seen = "", set()
    for c in core:
        if c in seen:       # a repeated subscript: a fresh letter tied to c by the identity
            f = next(fresh)
            specs.append(c + f)
            operands.append(np.eye(sizes[c], dtype=g.dtype))
            target += f
        else:
            seen.add(c)
            target += c
    present = set("".join(specs))
    for c in sorted(seen - present):   # summed within this input only: spread g along it
        specs.append(c)
        operands.append(np.ones(sizes[c], dtype=g.dtype))
    return einsum_op(*operands, equation=",".join(specs) + "->" + _ELLIPSIS + target)


def _einsum_vjp(g, ans, *xs, equation):
    return [_input_cotangent(g, xs, i, equation) for i in range(len(xs))]


def _einsum_jvp(ts, ans, *xs, equation):
    total = None
    for i, t in enumerate(ts):
        if t is None:
            continue
        part = einsum_op(*(xs[:i] + (t,) + xs[i + 1:]), equation=equation)
        total = part if total is None else total + part
    return total


einsum_op = defop("einsum", _einsum, args="operands", save="operands", variadic=True,
                  same_dtype=True, vjp=_einsum_vjp, jvp=_einsum_jvp,
                  doc="Einstein summation over the subscripts of `equation` (explicit form).")


def einsum(equation, *inputs, **kwargs):
    """Einstein summation (`tf.einsum`): `equation` names each input's axes, e.g. 'ij,jk->ik'.

    Letters in the output are kept, the others summed over; '...' stands for leading axes
    that broadcast. Every input gets a gradient (see the module's notes).

    >>> tk.einsum("i,j->ij", tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0]))   # outer product
    tk.Tensor(
    [[3. 4.]
     [6. 8.]], shape=(2, 2), dtype=float32)
    """
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    unknown = set(kwargs) - {"name", "optimize"}
    if unknown:
        raise TypeError(f"einsum: unexpected keyword arguments {sorted(unknown)}")
    if not inputs:
        raise ValueError(f"einsum: equation {equation!r} needs at least one tensor")
    return einsum_op(*inputs, equation=parse(equation, len(inputs)))
