"""tk.function: run a Python function once per input signature, record it, then replay it.

    @tk.function
    def train_step(x, y):
        with tk.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

The first call with a new signature (each tensor argument's shape and dtype, the value
of every other argument) runs the function for real while a `_Tracer` sits among the
active tapes. Every op goes through `dispatch.apply`, which shows it to every active
tape, so the tracer sees them all: the forward pass, the derivative rules of any
`tape.gradient` inside (a tracer counts as a tape, so backward passes run on tensors
and are recorded too), the optimizer's arithmetic and random draws. Variable writes
reach it through `Variable.assign`. The result is a flat program of steps over
numbered slots: `slot = forward(slots..., **attrs)`, `slot = variable's value now`,
`variable = slot`, `check slot` (tk.debugging.check_numerics). Input checks that
depend on values (class-id labels, NaN checks) run at every replay, as at every eager
call. Later calls with the same signature run that program and skip
the Python function entirely:
- nothing records (no tape or accumulator active): a tight loop of NumPy forwards;
- a tape or accumulator is active: each step is called as an op on tensors, so an
  outer tape can differentiate through the call.

Limits, as in `tf.function`: Python side effects (print, appending to a list) happen
only while tracing; Python logic that reads values (`if loss.numpy() > 1`, `float(x)`,
`int(tensor)` as a shape) is decided once per trace; tensors made outside tapekit ops
(`tk.constant`, `tk.zeros`) and tensors from outside the function are constants;
variables are read afresh at every call. Functions using `tk.custom_gradient` run eagerly.

The work is split in three modules: tracing.py records a call (`Tracer`), replay.py
runs the recorded program (`Program`), and this one finds the program for a call.
"""
import functools
import warnings

import numpy as np

from . import nest
from .context import state
from .ops.elementwise import identity
from .replay import Program
from .convert import convert_to_tensor
from .tensor import Tensor, Variable
from .tracing import Tracer


class Function:
    """A callable that traces `python_function` once per input signature and replays it.

    `trace_count` counts the traces; `programs` maps each signature to its program
    (print one to see its steps).
    """

    def __init__(self, python_function, name=None):
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self.programs = {}
        self._by_fast_key = {}   # (type, shape, dtype) of each positional tensor -> program
        self.trace_count = 0
        self._warned = False

    def experimental_get_tracing_count(self):
        return self.trace_count

    def __get__(self, instance, owner):
        # A decorated method: bind `self`, which then is part of the signature (by identity).
        return self if instance is None else functools.partial(self.__call__, instance)

    def __call__(self, *args, **kwargs):
        # The common call, f(x, y) with tensors or arrays only, finds its program by the
        # arguments' types, shapes and dtypes: the same facts the full signature holds for
        # it, without flattening the call (a training step's first call after other work
        # pays several times the warm cost of every Python call it makes).
        fast_key = None if kwargs else _fast_key(args)
        program = self._by_fast_key.get(fast_key) if fast_key is not None else None
        if program is not None and not (state.tapes or state.accumulators):
            # A caller's array is copied (as when tracing): a result may be a view of it.
            return program.run_fast([a._value if type(a) is Tensor else a.copy() for a in args])
        leaves = nest.flatten((args, kwargs))
        key = _signature((args, kwargs), leaves)
        program = self.programs.get(key)
        if program is None:
            return self._trace(key, args, kwargs, leaves)
        if program.unsupported:
            return self.python_function(*args, **kwargs)
        if fast_key is not None:
            self._by_fast_key[fast_key] = program
        tensors = [leaf for leaf in leaves if _is_tensor_arg(leaf)]
        if state.tapes or state.accumulators:
            return program.run_tensors([convert_to_tensor(t) for t in tensors])
        return program.run_fast([t._value if isinstance(t, Tensor) else np.array(t) for t in tensors])

    def _trace(self, key, args, kwargs, leaves):
        # Tensor arguments get their own tape ids: f(x, x) must not merge the two inputs.
        new_leaves, arg_tensors, seen = [], [], set()
        for leaf in leaves:
            if _is_tensor_arg(leaf):
                leaf = convert_to_tensor(leaf)
                if leaf._tid in seen:
                    leaf = identity(leaf)  # before the tracer starts: only outer tapes see it
                seen.add(leaf._tid)
                arg_tensors.append(leaf)
            new_leaves.append(leaf)
        args, kwargs = nest.pack_like((args, kwargs), new_leaves)
        tracer = Tracer(arg_tensors)
        state.tapes.append(tracer)
        try:
            result = self.python_function(*args, **kwargs)
        finally:
            state.tapes.remove(tracer)
        program = Program(self._name, tracer, *tracer.finish(result))
        program.keepalive = [leaf for leaf in leaves if not _is_tensor_arg(leaf)]
        self.programs[key] = program
        self.trace_count += 1
        if program.unsupported and not self._warned:
            self._warned = True
            warnings.warn(f"tk.function {self._name}: it uses {program.unsupported}, and a replay "
                          f"could not recompute its Python code; the function runs eagerly on "
                          f"every call",
                          stacklevel=3)
        return result

    def __repr__(self):
        return f"<tk.function {self._name}: {self.trace_count} trace(s)>"


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_relax_shapes=None, name=None):
    """Compile a Python function into a replayable program (`tf.function`).

    Works as `@tk.function`, `@tk.function()` and `tk.function(fn)`.

    >>> @tk.function
    ... def f(x):
    ...     return x * x + 1.0
    >>> f(tk.constant(2.0)), f(tk.constant(3.0)), f.trace_count
    (tk.Tensor(5.0, ...), tk.Tensor(10.0, ...), 1)
    """
    if input_signature is not None:
        raise NotImplementedError("tk.function: input_signature is not supported; the signature "
                                  "comes from the shapes and dtypes of the arguments of each call")
    if func is None:
        return functools.partial(function, name=name)
    return Function(func, name=name)


def _is_tensor_arg(leaf):
    # Variables are captured by identity (reads and writes must reach the real one);
    # NumPy arrays count as tensors, as in tf.function.
    return (isinstance(leaf, Tensor) and not isinstance(leaf, Variable)) or isinstance(leaf, np.ndarray)


def _fast_key(args):
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


def _signature(structure, leaves):
    """The cache key: the nesting, then (shape, dtype) of tensors and the value of the rest.

    Variables and unhashable objects count by identity; the program keeps them alive, so
    their id() cannot be reused by another object while the key exists.
    """
    key = [_structure(structure)]
    for leaf in leaves:
        if _is_tensor_arg(leaf):
            key.append((leaf.shape, leaf.dtype))
        elif isinstance(leaf, Variable):
            key.append(("variable", id(leaf)))
        else:
            try:
                key.append((type(leaf), leaf, hash(leaf)))  # models, optimizers: identity hash
            except TypeError:
                key.append(("object", id(leaf)))
    return tuple(key)


def _structure(s):
    if isinstance(s, (list, tuple)):
        return (type(s), tuple(_structure(x) for x in s))
    if isinstance(s, dict):
        return (dict, tuple((k, _structure(s[k])) for k in sorted(s)))
    return None
