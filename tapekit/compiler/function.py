"""tk.function: trace a Python function per input signature and path, then replay it.

    @tk.function
    def train_step(x, y):
        with tk.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

The promise: a call gives the numbers the same Python code would give eagerly. The first
call with a new signature (signature.py: each tensor's shape and dtype, the value of every
other argument) runs the function for real while a `Tracer` (trace.py) records it: every
op, variable read and write, tk.print, and every Python decision on a traced value (`if x
> 0`, `float(x)`, `range(n)`, `x.numpy()`) as a guard. Later calls with that signature
replay the program (program.py) without the Python function. A replay whose values would
decide a guard differently stops there and the function traces that path too; each
signature keeps up to MAX_PATHS programs, one per path, then runs eagerly (with a
warning). Variables are read and written when the replay runs, under their locks.

Why guards and not AutoGraph's source conversion: a tracer that runs the real Python sees
every decision as it happens (a bool() on a traced value), wherever it is (in a layer, a
helper, a library) and whatever Python it is (a comprehension, a break, recursion);
converting source has to understand all of it, and whatever it misses is silently frozen.
Guards cost one comparison each on replay, and a data-dependent loop costs a path per trip
count, which the bound turns into eager calls rather than wrong ones.

Limits, as in tf.function: Python side effects (print, appending to a list) run only while
tracing (tk.print runs at every call); a function may create variables on its first call
only: as TF does, a first call that creates variables traces the function twice, the
second time to make sure it creates no more (else TF's ValueError). A call that raises
while it traces leaves every variable and random stream as it found them, as in TF, whose
trace runs nothing. Functions using tk.custom_gradient run eagerly.
"""
import collections
import functools
import inspect
import threading
import weakref

import numpy as np

from .. import nest
from ..callsite import warn_at_user
from ..context import recording, state
from ..convert import convert_to_tensor
from ..ops.passthrough import identity
from ..random import restore_state, save_state
from ..tensor import Tensor, TracedValueWarning
from ..traceback_utils import filter_traceback
from .codegen import inert
from .concrete import ConcreteFunction, dummy_arguments, pretty_signature
from .program import Program
from .signature import (TensorSpec, bind_input_signature, covers, describe_change, fast_key,
                        generalize, is_tensor_arg, signature, spec_signature)
from .steps import GuardFailed
from .trace import Tracer

MAX_PATHS = 8          # programs per signature (paths through its Python), then eager
MAX_SIGNATURES = 64    # signatures kept per function; the oldest goes first
RETRACE_WARNING = 5    # traces in as many calls (TF's threshold is 5 traces in its last 10 calls)
_run_eagerly = False   # tk.config.run_functions_eagerly(True): every tk.function calls its Python


def run_functions_eagerly(run_eagerly):
    """Make every tk.function run its Python function directly, as plain eager code, instead
    of its traced programs (`tf.config.run_functions_eagerly`): for debugging, a print or a
    breakpoint inside runs on every call. The numbers are the same either way (tk.function's
    promise); only the speed differs. `False` turns the programs back on.

    >>> f = tk.function(lambda x: x * 2)
    >>> tk.config.run_functions_eagerly(True)
    >>> tk.config.functions_run_eagerly(), f(tk.constant(3.0))
    (True, tk.Tensor(6.0, shape=(), dtype=float32))
    >>> tk.config.run_functions_eagerly(False)
    """
    global _run_eagerly
    _run_eagerly = bool(run_eagerly)


def functions_run_eagerly():
    """True while tk.config.run_functions_eagerly(True) is in effect
    (`tf.config.functions_run_eagerly`)."""
    return _run_eagerly


class _Paths:
    """The programs of one signature, one per path through the Python code."""

    __slots__ = ("programs", "first", "eager")

    def __init__(self):
        self.programs = []
        self.first = None     # programs[0] when a fast replay may use it
        self.eager = False    # too many paths: the signature runs eagerly

    def update(self):
        p = self.programs[0] if self.programs else None
        self.first = p if p is not None and not p.unsupported else None


class Function:
    """A callable that traces `python_function` once per input signature and path, and replays.

    `experimental_get_tracing_count()` (also `trace_count`) counts the traces as TF counts
    them: 2 after the first call of a function that creates variables, and one for all the
    shapes an input_signature (or, after its second shape, reduce_retracing) admits.
    tapekit's programs have concrete shapes, so it traces each new shape again all the same
    (running the Python, and its print, again): `traces_run` counts those too, every time
    the Python ran to trace. `programs` maps each signature to its programs (print one to
    read it as Python).
    """

    def __init__(self, python_function, name=None, input_signature=None, reduce_retracing=False):
        if inspect.isgeneratorfunction(python_function) or inspect.isasyncgenfunction(python_function) \
                or inspect.iscoroutinefunction(python_function):
            raise TypeError(_not_tensors(name or getattr(python_function, "__name__", "function"),
                                         "a generator function (it uses yield)"
                                         if inspect.isgeneratorfunction(python_function)
                                         else "an async function"))
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self.input_signature = None if input_signature is None else tuple(input_signature)
        self.reduce_retracing = bool(reduce_retracing)
        self._sigs = {}
        self._by_fast_key = {}
        self.trace_count = 0     # as TF counts (see the class's docstring)
        self.traces_run = 0      # every trace, each shape of an input_signature too
        self._tf_types = []      # the signatures TF would have traced, None dims generalised
        self._concrete = {}      # get_concrete_function's results, by the specs asked for
        self._calls = 0
        self._recent = collections.deque(maxlen=RETRACE_WARNING)   # call numbers that traced
        self._last_key = None
        self._last_program = None
        self._lock = threading.RLock()
        self._warned = set()
        self._bound = weakref.WeakKeyDictionary()   # instance -> its Function (a method)
        try:
            self._params = list(inspect.signature(python_function).parameters)
        except (TypeError, ValueError):
            self._params = []

    @property
    def programs(self):
        """{signature: [Program, ...]}: the programs of each signature, one per path."""
        return {k: list(p.programs) for k, p in self._sigs.items()}

    def experimental_get_tracing_count(self):
        return self.trace_count

    def __get__(self, instance, owner):
        # A decorated method: one tk.function per instance, as in TF (each instance may
        # create its variables on its own first call), kept while the instance lives.
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:     # unhashable or not weakly referable: `self` joins the signature
            return functools.partial(self.__call__, instance)
        if bound is None:
            # The instance by weak reference: the bound function must not keep it alive.
            ref, fn = weakref.ref(instance), self.python_function

            @functools.wraps(fn)
            def method(*args, **kwargs):
                return fn(ref(), *args, **kwargs)
            bound = Function(method, name=self._name, input_signature=self.input_signature,
                             reduce_retracing=self.reduce_retracing)
            bound._params = self._params[1:]
            self._bound[instance] = bound
        return bound

    @filter_traceback
    def __call__(self, *args, **kwargs):
        if _run_eagerly:        # tk.config.run_functions_eagerly(True)
            return self.python_function(*args, **kwargs)
        if state.accumulators:
            # As TF differentiates a tf.function call in forward mode through the call's
            # gradient, a custom_gradient inside takes its tangent from grad_fn (custom.py).
            outside = state.accumulators_outside_function
            state.accumulators_outside_function = outside | {id(a) for a in state.accumulators}
            try:
                return self._call(args, kwargs)
            finally:
                state.accumulators_outside_function = outside
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        self._calls += 1
        if self.input_signature is not None:
            args, kwargs = bind_input_signature(self._name, self.input_signature, args, kwargs,
                                                self._params)
        # The common call, f(x, y) with tensors or arrays only, finds its programs by the
        # arguments' types, shapes and dtypes, without flattening the call.
        fkey = None if kwargs else fast_key(args)
        paths = self._by_fast_key.get(fkey) if fkey is not None else None
        if paths is not None and paths.first is not None and not recording():
            # A caller's array is copied (as when tracing): a result may be a view of it.
            values = [a._value if type(a) is Tensor else a.copy() for a in args]
            try:
                return paths.first.run_fast(values)
            except GuardFailed as failed:
                return self._another_path(paths, None, args, kwargs, paths.first, failed)
        key = signature(args, kwargs)
        paths = self._sigs.get(key)
        if paths is None:
            return self._trace(key, args, kwargs, self._new_paths(key))
        if fkey is not None:
            self._by_fast_key[fkey] = paths
        return self._another_path(paths, key, args, kwargs, None, None)

    def _new_paths(self, key):
        with self._lock:
            if len(self._sigs) >= MAX_SIGNATURES:    # bounded: the oldest signature goes
                del self._sigs[next(iter(self._sigs))]
                self._by_fast_key.clear()
            paths = self._sigs[key] = _Paths()
        return paths

    def _another_path(self, paths, key, args, kwargs, failed_program, failed):
        """Run the program of the path this call takes, tracing it if it is new."""
        if paths.eager or any(p.unsupported for p in paths.programs[:1]):
            return self.python_function(*args, **kwargs)
        recorded = recording()
        observed = ()
        tried = set()
        if failed is not None:
            tried.add(id(failed_program))
            observed = failed_program.guard_outcomes[:failed.k] + (failed.outcome,)
        leaves = None
        while True:
            program = next((p for p in paths.programs if id(p) not in tried
                            and p.guard_outcomes[:len(observed)] == observed), None)
            if program is None:
                break
            if recorded and program.transactional:
                # Undoing writes that an outer tape or tracer already saw is not safe: the
                # Python runs eagerly (it is recorded as any eager code is).
                return self.python_function(*args, **kwargs)
            tried.add(id(program))
            if leaves is None:
                leaves = [leaf for leaf in nest.flatten((args, kwargs)) if is_tensor_arg(leaf)]
            try:
                if recorded:
                    return program.run_tensors([convert_to_tensor(t) for t in leaves])
                return program.run_fast([t._value if isinstance(t, Tensor) else np.array(t)
                                         for t in leaves])
            except GuardFailed as e:
                observed = program.guard_outcomes[:e.k] + (e.outcome,)
        if len(paths.programs) >= MAX_PATHS:
            paths.eager = True
            paths.update()
            self._warn_once("paths", f"tk.function {self._name}: its Python code took more than "
                            f"{MAX_PATHS} paths for one input signature (decisions on traced "
                            f"values: {_sites(paths)}); it now runs eagerly for that signature. "
                            f"Results stay right; to trace once, compute with tensors "
                            f"(tk.where, tk.cond-like masks) instead of Python if/while on values",
                            TracedValueWarning)
            return self.python_function(*args, **kwargs)
        return self._trace(key or signature(args, kwargs), args, kwargs, paths, new_path=True)

    def _trace(self, key, args, kwargs, paths, new_path=False, dry=False, check=False, tf_key=None):
        """Run the Python function with a Tracer among the tapes; its program joins `paths`.
        `dry`: leave no trace (variables and random streams restored, tk.print silent);
        `check`: the second trace of a first call that created variables (see below)."""
        call = (args, kwargs)
        leaves = nest.flatten((args, kwargs))
        # Tensor arguments get their own tape ids: f(x, x) must not merge the two inputs.
        new_leaves, arg_tensors, seen = [], [], set()
        for leaf in leaves:
            if is_tensor_arg(leaf):
                leaf = convert_to_tensor(leaf)
                if leaf._tid in seen:
                    leaf = identity(leaf)  # before the tracer starts: only outer tapes see it
                seen.add(leaf._tid)
                arg_tensors.append(leaf)
            new_leaves.append(leaf)
        args, kwargs = nest.pack_like((args, kwargs), new_leaves)
        tracer = Tracer(arg_tensors, dry=dry)
        if self.trace_count or check:
            tracer.create_error = _create_error(self._name)
        rng = save_state()
        state.tapes.append(tracer)
        try:
            result = self.python_function(*args, **kwargs)
            if inspect.isgenerator(result) or inspect.isawaitable(result) or inspect.isasyncgen(result):
                # A replay would hand back this one, already run, object at every call.
                raise TypeError(_not_tensors(self._name, f"one that returned a {type(result).__name__}"))
        except BaseException:
            _undo(tracer, rng)   # TF's trace runs nothing: one that raised changed nothing
            raise
        finally:
            state.tapes.remove(tracer)
        try:
            outputs, skeleton, result = tracer.finish(result, self._name)
        except BaseException:
            _undo(tracer, rng)   # a result TF refuses: the call changed nothing
            raise
        if dry:
            _undo(tracer, rng)
        tracer.seal(result, self._name)
        program = Program(self._name, tracer, outputs, skeleton)
        program.keepalive = [leaf for leaf in leaves if not is_tensor_arg(leaf)]
        if program.created and not check:
            # This trace made variables, which a replay would reuse where the Python would
            # make new ones. As TF does, trace again now, dry, where creating one raises TF's
            # ValueError; that program is the one replayed (eager code from now on creates
            # none either, as the singleton pattern `if self.v is None` does).
            with self._lock:
                self._count_trace(key, new_path, tf_key=tf_key)
            try:
                program, _ = self._trace(key, *call, paths, dry=True, check=True)
            except BaseException:
                _undo(tracer, rng)     # the first call changes nothing, as in TF
                with self._lock:
                    if self._sigs.get(key) is paths:
                        del self._sigs[key]
                        self._by_fast_key.clear()
                raise
            return (program, result) if dry else result
        with self._lock:
            paths.programs.append(program)
            paths.update()
            self._last_program = program
            self._count_trace(key, new_path, counted=check, tf_key=tf_key)
        if program.unsupported:
            self._warn_once("unsupported", f"tk.function {self._name}: it uses "
                            f"{program.unsupported}, and a replay could not recompute its "
                            f"Python code; the function runs eagerly on every call")
        return (program, result) if dry else result

    def _count_trace(self, key, new_path, counted=False, tf_key=None):
        """Count a trace as TF would: `tf_key` (else `key`, or the input_signature) is the
        signature TF would trace; none is counted that a signature TF traced already takes."""
        self.traces_run += 1
        if counted:    # the check trace of a call already counted (TF counts it too)
            self.trace_count += 1
            return
        if not new_path:      # a new path is tapekit's own trace (TF's graph has both branches)
            want = tf_key if tf_key is not None else key if self.input_signature is None \
                else spec_signature(self.input_signature, {})
            if any(covers(t, want) for t in self._tf_types):
                return        # TF would call the trace it has: its graph takes any such size
            if self.reduce_retracing:
                want = generalize(want, self._tf_types)
            if len(self._tf_types) >= MAX_SIGNATURES:
                del self._tf_types[0]
            self._tf_types.append(want)
        self.trace_count += 1
        cause = "a Python decision on a traced value took a new path" if new_path \
            else describe_change(self._last_key, key, self._params)[0]
        self._last_key = key
        self._recent.append(self._calls)
        if len(self._recent) == RETRACE_WARNING and self._recent[0] > self._calls - RETRACE_WARNING:
            self._recent.clear()
            self._warn_once("retrace", f"{RETRACE_WARNING} out of the last {RETRACE_WARNING} "
                            f"calls to tk.function {self._name} traced it again (the last "
                            f"because {cause}). Tracing runs the Python function and keeps a "
                            f"program per signature: pass numbers that change as tensors "
                            f"(tk.constant(lr)) rather than Python floats, give the function "
                            f"an input_signature=[tk.TensorSpec(...)], or use "
                            f"reduce_retracing=True for changing shapes; and define the "
                            f"tk.function once, outside any loop")

    def _warn_once(self, what, message, category=UserWarning):
        if what not in self._warned:
            self._warned.add(what)
            warn_at_user(message, category)

    def get_concrete_function(self, *args, **kwargs):
        """The program for these arguments (tensors, or tk.TensorSpec: a None size is traced
        at size 1, an unknown rank, TensorSpec(None), at the first rank the Python accepts,
        0 to 3), traced without running it for real if it is new: variables and the random
        streams are left as they were. As in TF, asking again for specs a concrete function
        already takes gives that same object. Print it to read the program; call it like
        the function; `.graph.get_operations()` lists its steps as TF's graph's operations."""
        if not args and not kwargs and self.input_signature is not None:
            args = self.input_signature
        specs = (args, kwargs)
        wanted = spec_signature(args, kwargs)
        with self._lock:
            found = self._concrete.get(wanted)
            if found is None:
                found = next((c for k, c in self._concrete.items() if covers(k, wanted)), None)
        if found is not None:
            return found
        for rank in range(4):
            dummy_args, dummy_kwargs = dummy_arguments(args, kwargs, unknown_rank=rank)
            if self.input_signature is not None:
                dummy_args, dummy_kwargs = bind_input_signature(self._name, self.input_signature,
                                                                dummy_args, dummy_kwargs)
            key = signature(dummy_args, dummy_kwargs)
            paths = self._sigs.get(key)
            if paths is not None and paths.programs:
                program = paths.programs[0]
                break
            paths = paths or self._new_paths(key)
            try:
                program, _ = self._trace(key, dummy_args, dummy_kwargs, paths, dry=True,
                                         tf_key=wanted)
                break
            except Exception:
                with self._lock:
                    if not paths.programs and self._sigs.get(key) is paths:
                        del self._sigs[key]
                # An unknown rank: the Python may want more dimensions; the last rank's error
                # is the one to read.
                if rank == 3 or not _has_unknown_rank(specs):
                    raise
        concrete = ConcreteFunction(self, program, specs)
        with self._lock:
            return self._concrete.setdefault(wanted, concrete)

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Each trace TF would have made (what experimental_get_tracing_count counts), in TF's
        words: input parameters, output type, captured variables; one block per trace."""
        blocks = []
        for want in list(self._tf_types):
            program = next((paths.programs[0] for key, paths in list(self._sigs.items())
                            if paths.programs and covers(want, key)), None)
            if program is not None:
                blocks.append(pretty_signature(self._params, want, program))
        return "\n\n".join(blocks)

    def __repr__(self):
        return f"<tk.function {inert(self._name)}: {self.trace_count} trace(s)>"   # a name is data


def _has_unknown_rank(specs):
    return any(isinstance(leaf, TensorSpec) and leaf.shape is None for leaf in nest.flatten(specs))


def _sites(paths):
    sites = {s for p in paths.programs for s in p.guard_sites}
    return ", ".join(f"{f.rsplit('/', 1)[-1]}:{n}" for f, n in sorted(sites)[:4]) or "none seen"


def _not_tensors(name, what):
    return (f"tk.function {name!r}: the function is {what}; a tk.function must return tensors "
            f"(or nests of them, Python values, or None), as in tf.function: a replay would "
            f"hand back the first call's generator, already used up. Return the values "
            f"instead: collect them in a list (`return [x * 2.0 for x in xs]`) or stack them "
            f"(`return tk.stack([...])`), or call the Python function without tk.function")


def _undo(tracer, rng):
    """Every variable the trace wrote back to its value before the trace, and the random
    streams where they were."""
    for variable, value in tracer.undo.values():
        with variable._lock:
            variable._value = value
    restore_state(rng)


def _create_error(name):
    return (f"tk.function {name} created a tk.Variable on a trace after its first (a first "
            f"call that creates variables is traced twice, as in TF, the second time to check "
            f"that it creates no more). tk.function "
            f"(like tf.function) only supports variables created on the first call (the "
            f"singleton pattern: `if self.v is None: self.v = tk.Variable(...)`), because a "
            f"replay reuses the first call's variables while eager code would make new ones. "
            f"Create the variable once, outside the function, or on its first call only")


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_relax_shapes=None, name=None):
    """Compile a Python function into replayable programs (`tf.function`).

    Works as `@tk.function`, `@tk.function()` and `tk.function(fn)`. `input_signature`: a
    list of tk.TensorSpec that every call must fit. `reduce_retracing=True`: calls that
    differ only in tensor shapes do not count toward the retracing warning (tapekit still
    traces per shape: its programs are not shape-polymorphic).

    >>> @tk.function
    ... def f(x):
    ...     return x * x + 1.0
    >>> f(tk.constant(2.0)), f(tk.constant(3.0)), f.experimental_get_tracing_count()
    (tk.Tensor(5.0, ...), tk.Tensor(10.0, ...), 1)
    """
    if input_signature is not None:
        if not isinstance(input_signature, (list, tuple)):
            raise TypeError(f"tk.function: input_signature must be a list or tuple of "
                            f"tk.TensorSpec (one per argument), got {input_signature!r}; e.g. "
                            f"input_signature=[tk.TensorSpec([None], tk.float32)]")
        for spec in nest.flatten(list(input_signature)):
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"tk.function: input_signature must hold tk.TensorSpec, got "
                                f"{spec!r}; e.g. input_signature=[tk.TensorSpec([None], tk.float32)]")
    relax = reduce_retracing or bool(experimental_relax_shapes)
    if func is None:
        return functools.partial(function, input_signature=input_signature,
                                 reduce_retracing=relax, name=name)
    return Function(func, name=name, input_signature=input_signature, reduce_retracing=relax)
