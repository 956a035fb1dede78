"""tk.py_function: a Python function run eagerly at every call, even inside a tk.function;
tk.init_scope: code run eagerly once, while a tk.function traces, and kept out of its program.

    >>> def double(a):
    ...     return a.numpy() * 2          # any Python: NumPy, prints, files
    >>> tk.py_function(double, [tk.constant(1.5)], tk.float32)
    tk.Tensor(3.0, shape=(), dtype=float32)

Eagerly, `py_function(func, inp, Tout)` calls `func` on the inputs as tensors and converts
what it returns to `Tout`'s dtypes. While a tk.function traces, the tracer does not see
inside `func` (it is hidden from it, trace.Tracer.record_call): the program gets one `Call`
step (steps.py) that calls `func` again at every replay, so its Python (a `.numpy()`, a
print, a random draw of NumPy's) runs as it would eagerly, as TF's EagerPyFunc does.
Gradients flow through the tapekit ops `func` runs on its inputs, as in TF: a tape around
the call records them (in a replay on tensors too, program.run_tensors). What `func` computes
outside tapekit's ops (through `.numpy()`) has no gradient: TF gives zeros there, tapekit
None (the tape sees no path).

A trace is a real call, so `func` runs once in it, as at every replay; where tapekit
traces without a call of its own (get_concrete_function, the second trace of a first call
that creates variables) it runs `func` too, to learn its outputs, where TF's graph would
only hold the op.

Inside a tk.function, a GradientTape started within the function and recording around a
py_function would keep records of `func`'s ops that the program cannot replay; that
function then runs eagerly at every call (with a warning), as tk.custom_gradient does.
"""
import contextlib

from .. import dtypes
from ..context import state
from ..convert import convert_to_tensor
from ..errors import InvalidArgumentError
from ..tensor import Tensor, Variable, wrap_array
from .trace import Tracer


def py_function(func=None, inp=None, Tout=None, name=None):
    """Wrap a Python function into an op that runs it eagerly (`tf.py_function`).

    `inp`: a list of tensors (or values) passed to `func` as tensors; `Tout`: a dtype (one
    output, returned as a tensor) or a list or tuple of dtypes (returned as a list). With
    `func` left out it is a decorator: `@tk.py_function(Tout=tk.float32)`.

    >>> calls = []
    >>> def log_and_double(x):
    ...     calls.append(float(x))             # Python, run at every call, also in a replay
    ...     return x * 2.0
    >>> f = tk.function(lambda x: tk.py_function(log_and_double, [x], tk.float32) + 1.0)
    >>> f(tk.constant(1.0)), f(tk.constant(3.0)), calls
    (tk.Tensor(3.0, shape=(), dtype=float32), tk.Tensor(7.0, shape=(), dtype=float32), [1.0, 3.0])
    """
    if Tout is None:
        raise TypeError("tk.py_function: missing required argument 'Tout' (the dtype of what "
                        "func returns, or a list of them); as a decorator, give it by name: "
                        "`@tk.py_function(Tout=tk.float32)`")
    if func is None:
        def decorator(fn):
            def wrapped(*args):
                return py_function(fn, list(args), Tout, name)
            wrapped.__name__ = getattr(fn, "__name__", "py_function")
            wrapped.__wrapped__ = fn
            return wrapped
        return decorator
    if not callable(func):
        raise TypeError(f"tk.py_function: func must be callable, got {func!r}")
    inputs = [x.read_value() if isinstance(x, Variable) else convert_to_tensor(x)
              for x in (inp if isinstance(inp, (list, tuple)) else [inp] if inp is not None else [])]
    call = _Caller(func, Tout)
    return call.shape(run_call(call, inputs))


def run_call(call, inputs):
    """`call(inputs)`, eagerly, and a `Call` step in every tk.function tracing it. The
    tracers must not see func's ops (a replay would run them as ops, frozen where func read
    a value); the other tapes record them as they record eager code. A program's replay on
    tensors (steps.Call.run) comes here too, so a tk.function tracing it records the call."""
    tracers = [t for t in state.tapes if isinstance(t, Tracer)]
    if not tracers:
        return call(inputs)
    tapes = list(state.tapes)
    # A tape started inside the traced function (after its tracer) that records func's ops.
    inner = [any(not isinstance(t, Tracer) for t in tapes[tapes.index(tr) + 1:]) for tr in tracers]
    for tracer in tracers:
        state.tapes.remove(tracer)
    try:
        outs = call(inputs)
    finally:
        state.tapes[:] = tapes
    for tracer, taped in zip(tracers, inner):
        tracer.record_call(call, inputs, outs, taped)
    return outs


class _Caller:
    """`func` with its Tout: called on a list of tensors, gives the list of its outputs as
    tensors of Tout's dtypes (TF's conversion: a Python or NumPy value is converted, a
    tensor of another dtype is an error)."""

    def __init__(self, func, Tout):
        self.func = func
        self.single = not isinstance(Tout, (list, tuple))
        self.dtypes = [dtypes.as_dtype(Tout)] if self.single else [dtypes.as_dtype(t) for t in Tout]
        self.__name__ = getattr(func, "__name__", "func")

    def __call__(self, tensors):
        ret = self.func(*[t if isinstance(t, Tensor) else convert_to_tensor(t) for t in tensors])
        if self.single:
            ret = [ret]
        elif not isinstance(ret, (list, tuple)) or len(ret) != len(self.dtypes):
            raise ValueError(f"tk.py_function {self.__name__}: Tout lists {len(self.dtypes)} "
                             f"dtype(s), func returned {ret!r}")
        out = []
        for value, dtype in zip(ret, self.dtypes):
            if isinstance(value, Tensor) and value.dtype != dtype:
                raise InvalidArgumentError(
                    f"tk.py_function {self.__name__}: func returned a tensor of dtype "
                    f"{value.dtype.name} where Tout says {dtype.name}; return "
                    f"tk.cast(value, tk.{dtype.name}) or change Tout")
            out.append(value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtype))
        return out

    def shape(self, outs):
        return outs[0] if self.single else list(outs)

    def run(self, tensors):
        """A replay on tensors (steps.Call.run): as an eager call, seen by any tracer."""
        return run_call(self, tensors)

    @property
    def on_arrays(self):
        """What a program's Call line runs: on arrays, giving a tuple of arrays."""
        def run(*arrays):
            return tuple(t._value for t in self([wrap_array(a) for a in arrays]))
        run.__name__ = self.__name__
        return run




@contextlib.contextmanager
def init_scope():
    """Run the block outside every tk.function being traced, and outside every tape
    (`tf.init_scope`): its ops run once, now, as eager code, and the program uses their
    results as constants; no tape records them (TF pauses the gradient tape too).

    >>> @tk.function
    ... def f(x):
    ...     with tk.init_scope():
    ...         c = tk.constant(5.0) * 2.0     # run once, while tracing
    ...     return c * x
    >>> f(tk.constant(1.0))
    tk.Tensor(10.0, shape=(), dtype=float32)

    A variable created in the block is created once, as eager code creates it; the trace
    does not see it (TF's init_scope is where its own code makes variables on the first
    call).
    """
    tapes = list(state.tapes)
    state.tapes.clear()
    try:
        yield
    finally:
        state.tapes[:] = tapes
