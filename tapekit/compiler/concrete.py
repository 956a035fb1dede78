"""get_concrete_function's result: one traced program of a tk.function, to read and call.

    >>> @tk.function
    ... def f(x):
    ...     return x * 2.0
    >>> print(f.get_concrete_function(tk.TensorSpec([None], tk.float32)))   # doctest: +SKIP
    ConcreteFunction f(x: TensorSpec(shape=(None,), dtype=tk.float32, name=None))
    def f(s0):
        s1 = multiply(s0, 2.0)
        return s1

A TensorSpec's None dimensions are traced at size 1 (tapekit's programs have concrete
shapes); calling the concrete function with other sizes traces those as the tk.function
would. The program shown is the path the traced values took; other paths are traced when
a call takes them (guards).
"""
import numpy as np

from .. import nest
from ..tensor import Tensor
from .codegen import inert
from .signature import TensorSpec


def dummy_arguments(args, kwargs, unknown_rank=0):
    """`args`/`kwargs` with each TensorSpec replaced by zeros of its shape (None -> 1; a spec
    of unknown rank by zeros of shape (1,) * unknown_rank)."""
    def fill(leaf):
        if isinstance(leaf, TensorSpec):
            shape = (1,) * unknown_rank if leaf.shape is None else [1 if d is None else d for d in leaf.shape]
            return Tensor(np.zeros(shape, leaf.dtype))
        return leaf
    structure = (tuple(args), dict(kwargs))
    return nest.pack_like(structure, [fill(leaf) for leaf in nest.flatten(structure)])


class ConcreteFunction:
    """One traced program of a tk.function: `str()` / `.code` is its Python source; calling
    it checks the arguments against what it was traced for, then calls the function."""

    def __init__(self, function, program, specs):
        self.function = function
        self.program = program
        self._args, self._kwargs = specs
        self.structured_input_signature = specs

    @property
    def code(self):
        return self.program.code

    def __call__(self, *args, **kwargs):
        flat_specs = nest.flatten((tuple(self._args), dict(self._kwargs)))
        flat_args = nest.flatten((tuple(args), dict(kwargs)))
        if len(flat_specs) != len(flat_args):
            raise TypeError(f"ConcreteFunction {self.function._name}: traced for "
                            f"{len(flat_specs)} argument value(s), called with {len(flat_args)}")
        for k, (spec, arg) in enumerate(zip(flat_specs, flat_args)):
            if not isinstance(spec, (TensorSpec, Tensor)):
                continue
            want = spec if isinstance(spec, TensorSpec) else TensorSpec.from_tensor(spec)
            if not want.is_compatible_with(arg if hasattr(arg, "dtype") else np.asarray(arg)):
                raise ValueError(f"ConcreteFunction {self.function._name}: argument value {k} "
                                 f"has shape {np.shape(arg)} and dtype "
                                 f"{getattr(arg, 'dtype', type(arg).__name__)}; it was traced "
                                 f"for {want!r}. Call the tk.function itself to trace new "
                                 f"signatures")
        return self.function(*args, **kwargs)

    def __str__(self):
        params = self.function._params
        parts = []
        for k, a in enumerate(self._args):
            name = params[k] if k < len(params) else f"arg{k}"
            spec = TensorSpec.from_tensor(a) if isinstance(a, Tensor) else a
            parts.append(f"{name}: {spec!r}")
        parts += [f"{k}: {v!r}" for k, v in self._kwargs.items()]
        # The header is one line (user text made inert), then the program's source.
        return f"ConcreteFunction {inert(self.function._name)}({inert(', '.join(parts))})\n{self.code}"

    def __repr__(self):
        return f"<{str(self)}>"
