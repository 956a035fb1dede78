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
from typing import NamedTuple

import numpy as np

from .. import nest
from ..convert import convert_to_tensor
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ..tensor_shape import TensorShape
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
        self._graph = None

    @property
    def code(self):
        return self.program.code

    @property
    def graph(self):
        """The program as TF's graph (`Graph`): `graph.get_operations()`, each with `name`,
        `type`, `inputs`, `outputs`."""
        if self._graph is None:
            self._graph = Graph(self.program, (self._args, self._kwargs), self.function._params)
        return self._graph

    @property
    def inputs(self):
        return self.graph.inputs

    @property
    def outputs(self):
        return self.graph.outputs

    @property
    def structured_outputs(self):
        return self.graph.structured_outputs

    def __call__(self, *args, **kwargs):
        """The function on these arguments, which must fit the specs it was traced for:
        as TF's does, a value of another dtype is InvalidArgumentError, other sizes are
        taken (they trace a program of their own, see the module's docstring)."""
        if len(args) > len(self._args) or set(kwargs) - set(self._kwargs) - set(
                self.function._params[:len(self._args)]):
            raise TypeError(f"ConcreteFunction {self.function._name}: traced for "
                            f"{len(self._args)} positional argument(s) and keywords "
                            f"{sorted(self._kwargs)}, called with {len(args)} and "
                            f"{sorted(kwargs)}")
        names, args, kwargs = self.function._params, list(args), dict(kwargs)
        for k, spec in enumerate(self._args):
            if k < len(args):
                args[k] = self._check(k, spec, args[k])
            elif k < len(names) and names[k] in kwargs:
                kwargs[names[k]] = self._check(k, spec, kwargs[names[k]])
            else:
                raise TypeError(f"ConcreteFunction {self.function._name}: missing argument "
                                f"{names[k] if k < len(names) else k!r}")
        for name, spec in self._kwargs.items():
            if name in kwargs:
                kwargs[name] = self._check(name, spec, kwargs[name])
        return self.function(*args, **kwargs)

    def _check(self, where, spec, arg):
        if isinstance(spec, (list, tuple, dict)):
            if type(arg) is not type(spec) or len(arg) != len(spec):
                raise TypeError(f"ConcreteFunction {self.function._name}: argument {where} "
                                f"should have the nesting of {spec!r}, got {arg!r}")
            keys = spec if isinstance(spec, dict) else range(len(spec))
            checked = [self._check(f"{where}[{key!r}]", spec[key], arg[key]) for key in keys]
            return dict(zip(keys, checked)) if isinstance(spec, dict) else type(spec)(checked)
        if not isinstance(spec, (TensorSpec, Tensor)):
            return arg
        dtype = getattr(arg, "dtype", None)
        if dtype is not None and np.dtype(dtype) != spec.dtype:
            raise InvalidArgumentError(
                f"ConcreteFunction {self.function._name}: argument {where} is a tensor of "
                f"dtype {np.dtype(dtype).name}, it was traced for {spec.dtype.name} "
                f"({spec!r}); cast it with tk.cast(x, tk.{spec.dtype.name}) or call the "
                f"tk.function itself to trace another dtype")
        # A Python list or number where a tensor was traced: a tensor of the spec's dtype.
        return arg if dtype is not None else convert_to_tensor(arg, dtype=spec.dtype)

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


# --- the program seen as TF's graph: `concrete.graph.get_operations()` ---------------------

# TF's operation types for the ops learners meet first (tapekit's name otherwise).
_TF_TYPES = {"add": "AddV2", "subtract": "Sub", "multiply": "Mul", "divide": "RealDiv",
             "matmul": "MatMul", "negative": "Neg", "reduce_sum": "Sum", "reduce_mean": "Mean",
             "reduce_max": "Max", "reduce_min": "Min", "exp": "Exp", "log": "Log",
             "square": "Square", "sqrt": "Sqrt", "tanh": "Tanh", "sigmoid": "Sigmoid",
             "relu": "Relu", "reshape": "Reshape", "cast": "Cast", "identity": "Identity",
             "pow": "Pow", "maximum": "Maximum", "minimum": "Minimum", "abs": "Abs",
             "softmax": "Softmax", "transpose": "Transpose", "concat": "ConcatV2"}


class GraphTensor:
    """One value of a program as TF's graph shows a tensor: `name` ('mul:0'), `op`, `shape`,
    `dtype`. It holds no value: call the concrete function for numbers."""

    def __init__(self, op, index, shape, dtype):
        self.op, self.value_index, self.dtype = op, index, dtype
        self.shape = None if shape is None else TensorShape(shape)

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    def __repr__(self):
        shape = "<unknown>" if self.shape is None else tuple(self.shape)
        dtype = getattr(self.dtype, "name", self.dtype)
        return f"<tk.GraphTensor {self.name!r} shape={shape} dtype={dtype}>"


class Operation:
    """One step of the program as a graph operation: `name`, `type` (TF's op type where the
    step is one of TF's ops: 'Mul', 'ReadVariableOp', 'Placeholder'), `inputs`, `outputs`."""

    def __init__(self, name, type, inputs=()):
        self.name, self.type, self.inputs, self.outputs = name, type, list(inputs), []

    def add_output(self, shape, dtype):
        self.outputs.append(GraphTensor(self, len(self.outputs), shape, dtype))
        return self.outputs[-1]

    def __repr__(self):
        return f"<tk.Operation {self.name!r} type={self.type}>"


class NodeDef(NamedTuple):
    name: str
    op: str
    input: list


class GraphDef(NamedTuple):
    node: list


class Graph:
    """A read-only view of one program in the words of TF's FuncGraph: `get_operations()`,
    `as_graph_def().node`, `inputs`, `outputs`. Built from the program's steps after its
    passes (what a replay runs): arguments are Placeholders, constants Consts, each result
    an Identity, and a guard (tapekit's Python decision) an operation of type 'Guard'."""

    def __init__(self, program, specs, params):
        self._ops, self._names, tensors = [], {}, {}
        flat = [s for s in nest.flatten(specs) if isinstance(s, (TensorSpec, Tensor))]
        self.inputs = []
        for k, spec in enumerate(flat[:program.n_args]):
            name = params[k] if k < len(params) and len(flat) == len(params) else f"args_{k}"
            shape = spec.shape if isinstance(spec, TensorSpec) else tuple(spec.shape)
            tensors[k] = self._op(name, "Placeholder").add_output(shape, spec.dtype)
            self.inputs.append(tensors[k])

        # With a None size among the specs, the program's own shapes are the traced ones
        # (size 1): the view says unknown, as TF's graph would say None.
        sized = all(isinstance(s, Tensor) or (s.shape is not None and None not in s.shape)
                    for s in flat)

        def ref(slot):
            if slot not in tensors and slot in program.consts:
                value = np.asarray(program.consts[slot][0])
                tensors[slot] = self._op("Const", "Const").add_output(value.shape, value.dtype)
            return tensors.get(slot)

        for step in program.steps:
            kind = type(step).__name__
            if kind == "Op":
                name = step.op.name
                op = self._op(name, _TF_TYPES.get(name, name), [ref(s) for s in step.reads])
                # shape None with a dtype: a NumPy scalar, the result of 0-d inputs
                shape = step.shape if step.shape is not None or step.dtype is None else ()
                tensors[step.result] = op.add_output(shape if sized else None, step.dtype)
            elif kind == "Read":
                op = self._op("ReadVariableOp", "ReadVariableOp")
                tensors[step.result] = op.add_output(step.variable.shape, step.variable.dtype)
            elif kind == "Assign":
                self._op("AssignVariableOp", "AssignVariableOp", [ref(step.value)])
            elif kind == "Update":
                how = "Sub" if step.ufunc is np.subtract else "Add"
                self._op(f"Assign{how}VariableOp", f"Assign{how}VariableOp", [ref(step.delta)])
            elif kind == "Check":
                self._op("CheckNumerics", "CheckNumerics", [ref(step.value)])
            elif kind == "Guard":
                self._op(f"guard_{step.kind}", "Guard", [ref(step.value)])
            elif kind == "Print":
                self._op("PrintV2", "PrintV2", [ref(s) for s in step.values])
            elif kind == "Call":     # tk.py_function: TF's EagerPyFunc
                op = self._op("EagerPyFunc", "EagerPyFunc", [ref(s) for s in step.inputs])
                for slot, dtype in zip(step.results, step.call.dtypes):
                    tensors[slot] = op.add_output(None, dtype)
        self.outputs, leaves = [], []
        for is_slot, slot in program.outputs:
            if not is_slot:
                leaves.append(slot)
                continue
            source = ref(slot)
            out = self._op("Identity", "Identity", [source]).add_output(
                source.shape if source is not None else None, getattr(source, "dtype", None))
            self.outputs.append(out)
            leaves.append(out)
        self.structured_outputs = program.pack(leaves)

    def _op(self, name, type, inputs=()):
        n = self._names.get(name, 0)
        self._names[name] = n + 1
        op = Operation(name if n == 0 else f"{name}_{n}", type, [t for t in inputs if t is not None])
        self._ops.append(op)
        return op

    def get_operations(self):
        """The operations in the order the program runs them."""
        return list(self._ops)

    def get_operation_by_name(self, name):
        for op in self._ops:
            if op.name == name:
                return op
        raise KeyError(f"the graph has no operation named {name!r}; its operations: "
                       f"{[op.name for op in self._ops]}")

    def as_graph_def(self):
        """The operations as TF's GraphDef lists them: each node's `name`, `op` and `input`
        (the names of the operations it reads)."""
        return GraphDef([NodeDef(op.name, op.type, [t.op.name for t in op.inputs])
                         for op in self._ops])


def pretty_signature(params, key, program):
    """One trace in the words of TF's `pretty_printed_concrete_signatures`: its parameters
    (a tensor as its TensorSpec, a Python value as `Literal[value]`), its output type and the
    variables it reads (TF's captures). `key` is a signature (signature.py), `program` one
    program traced for it."""
    lines, specs = ["Input Parameters:"], []
    for name, _, leaves in key:
        label = params[name] if isinstance(name, int) and name < len(params) else name
        shown = []
        for leaf in leaves:
            if leaf[0] == "tensor":
                specs.append(TensorSpec(leaf[1], leaf[2]))
                shown.append(repr(specs[-1]))
            else:
                shown.append(f"Literal[{leaf[1]!r}]" if len(leaf) > 1 else "object")
        lines.append(f"  {label} (POSITIONAL_OR_KEYWORD): "
                     f"{shown[0] if len(shown) == 1 else '[' + ', '.join(shown) + ']'}")
    graph = Graph(program, specs, [])
    out = graph.structured_outputs
    leaves = nest.flatten(out) if nest.is_nested(out) else [out]
    leaves = [TensorSpec(o.shape, o.dtype) if isinstance(o, GraphTensor) else o for o in leaves]
    shown = nest.pack_like(out, leaves) if nest.is_nested(out) else leaves[0]
    lines += ["Output Type:", f"  {shown!r}", "Captures:"]
    read = [type(s).__name__ == "Read" and s.variable for s in program.steps]
    names = [v.name for v in read if v]
    lines += [f"  {n}" for n in names] or ["  None"]
    return "\n".join(lines)
