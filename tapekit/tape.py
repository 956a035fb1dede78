"""GradientTape: records the ops that touch what it watches, then differentiates them.

A tape is an append-only list of records plus the set of tape ids it tracks
(watched tensors, and every output computed from one). An op is recorded when
one of its inputs is tracked; its output then becomes tracked too.

Some tracked values are inert: recorded, so that the picture and `explain` can show
them, but never a source of a gradient, because TensorFlow's tape does not track them.
These are integer and bool values, stop_gradient's outputs, and whatever is computed
from inert values alone (an op's output is live when it read a live floating value).
"""
from contextlib import contextmanager
from operator import attrgetter
from types import MappingProxyType

import numpy as np

from . import backprop, nest
from . import observers as observing
from .backprop import UnconnectedGradients, warn_watch_dtype
from .context import recording, state
from .memory import tape_memory
from .ops.passthrough import stop_gradient_op
from .record import Record, Recorder, RecordList
from .tensor import Tensor, Variable, wrap_array
from .traceback_utils import filter_traceback


class GradientTape(Recorder):
    """Record operations for automatic differentiation (`tf.GradientTape`).

    >>> x = tk.Variable(3.0)
    >>> with tk.GradientTape() as tape:
    ...     y = x ** 2
    >>> tape.gradient(y, x)
    tk.Tensor(6.0, shape=(), dtype=float32)
    """
    # Set from outside this file: the tape's read-only display methods, explain, describe and
    # _repr_mimebundle_ (its picture in a notebook), by display/__init__.py: display reads
    # tapes, and the core never imports it.

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._records = []
        self._record_list = None  # its read-only view, made when first asked for (record_list)
        self._tracked = set()
        self._inert = set()       # tracked, but no gradient is taken w.r.t. them (see above)
        self._watched = {}        # tid -> the watched Tensor or Variable, in watch order
        self._used = False        # a non-persistent tape allows one gradient/jacobian
        self._failed = None       # what that one call raised, if it did (for the next call)
        self._entered = False     # a `with` block began: TF's errors outside one differ (below)
        self._observers = observing.for_new_tape()   # add_observer adds this tape's own

    # --- context -------------------------------------------------------------
    def __enter__(self):
        if self in state.tapes:
            raise RuntimeError("this GradientTape is already recording; a tape cannot be "
                               "entered twice at once")
        state.tapes.append(self)
        self._entered = True
        return self

    def __exit__(self, exc_type, exc, tb):
        # Remove this tape wherever it is, so an exception never leaves a tape active.
        if self in state.tapes:
            state.tapes.remove(self)
        return False

    # --- what display and the widgets read: views that cannot change the tape ----------
    # Plain reads of the fields (attrgetter: no Python frame), so an observer that asks them
    # in every gradient() call costs no call into this file.
    persistent = property(attrgetter("_persistent"),
                          doc="True: gradient() may be called more than once (the constructor's flag).")
    watch_accessed_variables = property(
        attrgetter("_watch_accessed"), doc="True: trainable variables read inside are watched.")
    used = property(attrgetter("_used"),
                    doc="True once a non-persistent tape's one gradient/jacobian ran.")

    @property
    def record_list(self):
        """The records, a read-only view of the tape's list (record.RecordList): the same
        object until reset() or a non-persistent gradient() starts a new list."""
        if self._record_list is None:
            self._record_list = RecordList(self._records)
        return self._record_list

    watched = property(lambda self: MappingProxyType(self._watched),
                       doc="{tape id: watched Tensor or Variable}, in watch order, read-only.")
    tracked = property(lambda self: frozenset(self._tracked),
                       doc="The tape ids tracked now (watched, or computed from one).")

    inert = property(lambda self: frozenset(self._inert),
                     doc="The tracked tape ids no gradient is taken with respect to: integer and "
                         "bool values, stop_gradient's outputs, and what is computed from those alone.")

    def is_tracked(self, tid):
        """True if the tape tracks tape id `tid` (cheaper than `tid in tape.tracked`)."""
        return tid in self._tracked

    def _differentiable(self, tid):
        return tid in self._tracked and tid not in self._inert

    # --- what is watched ---------------------------------------------------------
    def watch(self, tensor):
        """Track `tensor` (a Tensor, Variable, or nested list/tuple/dict of them)."""
        for t in nest.flatten(tensor):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"GradientTape.watch: can only watch tk.Tensor or tk.Variable, got "
                    f"{type(t).__name__} {t!r:.40}. Convert it first: x = tk.constant(...)")
            if t._value.dtype.kind not in "fc":
                warn_watch_dtype(t)   # its gradient will be None (backprop.py)
            self._watch(t)

    def _watch(self, t):
        self._tracked.add(t._tid)
        self._watched.setdefault(t._tid, t)
        if t._value.dtype.kind in "fc":
            self._inert.discard(t._tid)   # a watched stop_gradient output is live, as in TF
        else:
            self._inert.add(t._tid)

    def watched_variables(self):
        """The Variables this tape watches, in the order it first saw them."""
        return tuple(v for v in self._watched.values() if isinstance(v, Variable))

    @contextmanager
    def stop_recording(self):
        """Temporarily pause recording: ops inside the block are not recorded.

        Outside the tape's `with` block it raises as TensorFlow's does: RuntimeError for a tape
        never entered (or a non-persistent one whose gradient was taken), ValueError for one
        whose block has ended."""
        if self not in state.tapes:
            where = "use it inside the tape's `with` block"
            if not self._entered or (self._used and not self._persistent):
                raise RuntimeError(f"GradientTape.stop_recording: the tape is not recording ({where})")
            raise ValueError(f"GradientTape.stop_recording: the tape is not recording: its "
                             f"`with` block has ended ({where})")
        pos = state.tapes.index(self)
        state.tapes.remove(self)
        try:
            yield
        finally:
            state.tapes.insert(min(pos, len(state.tapes)), self)

    def reset(self):
        """Forget every record and watched tensor, inside the tape's `with` block; the tape
        goes on recording, as if a new tape had been entered.

        Outside the block (or inside its stop_recording()) it raises ValueError, as
        TensorFlow's does: the records of a persistent tape are never lost silently.

        >>> x = tk.Variable(3.0)
        >>> with tk.GradientTape() as tape:
        ...     y = x * x
        ...     tape.reset()
        ...     z = x * x * x
        >>> tape.gradient(z, x)
        tk.Tensor(27.0, shape=(), dtype=float32)
        """
        if self not in state.tapes:
            raise ValueError(
                "GradientTape.reset: the tape is not recording, so there is nothing to reset "
                "into; call reset() inside the tape's `with` block (not inside stop_recording), "
                "or make a new tk.GradientTape()")
        self._records = []
        self._record_list = None
        self._tracked = set()
        self._inert = set()
        self._watched = {}
        self._used = False

    # --- recording (called by Op.run for every op while this tape is active) ---
    def _record(self, op, args, values, tids, result, attrs):
        tracked = self._tracked
        hit = not tracked.isdisjoint(tids)
        if self._watch_accessed:
            # Reading a trainable variable inside the tape watches it (even when another
            # input already made this op recorded).
            for a in args:
                if type(a) is Variable and a._trainable and a._tid not in tracked:
                    self._watch(a)
                    hit = True
        if not hit:
            return
        out = result._value
        inputs, ans = op.keep(values, out)   # what the rules read; the rest as Meta (registry.py)
        tracked.add(result._tid)
        inert = self._inert
        if out.dtype.kind not in "fc" or op is stop_gradient_op or (
                inert and all(t is None or t not in tracked or t in inert for t in tids)):
            inert.add(result._tid)
        # A Record's fields, kept as a plain tuple: a Record object per op costs 6% of W1, and
        # more in garbage collection (docs/PERFORMANCE.md). Readers get Records: tape.records,
        # and every observer (record.py).
        self._records.append((op, tids, inputs, ans, attrs, result._tid))
        if self._observers.recorded:
            record = Record._make(self._records[-1])
            methods = self._observers.recorded
            try:
                for recorded in methods:
                    recorded(self, record, values, out)
            except Exception as e:   # noqa: BLE001 - warned about, detached (observers.py)
                observing.observer_failed(self, "recorded", methods, recorded, e,
                                          (record, values, out))

    @property
    def records(self):
        """What the tape holds now, oldest first: one Record per recorded op (a copy of the list).

        >>> x = tk.Variable(2.0)
        >>> with tk.GradientTape() as tape:
        ...     y = tk.sin(x) * x
        >>> [rec.op.name for rec in tape.records]
        ['sin', 'multiply']
        """
        return tuple(map(Record._make, self._records))

    # --- observers (observers.py): display, check_numerics, the widget stepper -------------
    def add_observer(self, observer):
        """Show this tape's events to `observer` (a tk.TapeObserver); it cannot change them.

        >>> class Last(tk.TapeObserver):
        ...     def recorded(self, tape, record, values, out):
        ...         self.out = out
        >>> last = Last()
        >>> with tk.GradientTape() as tape:
        ...     tape.add_observer(last)
        ...     y = tk.Variable(3.0) * 2.0
        >>> print(last.out)
        6.0
        """
        self._observers = self._observers.plus(observer)
        observing.forgive(observer)

    def remove_observer(self, observer):
        """Stop showing this tape's events to `observer` (no error if it was not attached).

        >>> tape = tk.GradientTape()
        >>> tape.remove_observer(tk.TapeObserver())
        """
        self._observers = self._observers.minus(observer)

    # --- differentiation: reverse mode's front doors, in backprop.py ------------------------
    @filter_traceback
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of target)/d(source) for each source, in the structure of `sources`.

        Called inside the `with` block of a persistent tape, the gradient's own ops are
        recorded on the tape (as in TensorFlow), so the result can be differentiated
        again by the same tape; that costs time and memory, so call it after the block
        when you do not need it.
        """
        self._check_usable("gradient")
        return backprop.gradient(self, target, sources, output_gradients, unconnected_gradients)

    @filter_traceback
    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """Full Jacobian, shape target.shape + source.shape, for each source.

        Vectorised: one backward pass pushes a batch of one-hot cotangents (one per
        target element) through every rule at once, instead of a loop over rows.
        """
        self._check_usable("jacobian")
        return backprop.jacobian(self, target, sources, unconnected_gradients)

    @filter_traceback
    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: result[i] = d target[i] / d source[i].

        Assumes example i of target depends only on example i of source, as TensorFlow
        does. Shape: (batch,) + target.shape[1:] + source.shape[1:].
        """
        self._check_usable("batch_jacobian")
        return backprop.batch_jacobian(self, target, source, unconnected_gradients)

    # --- what reverse mode (backprop.py) asks of the tape ----------------------------------
    def _check_usable(self, what):
        """A non-persistent tape allows one gradient/jacobian call: the next one says why not
        (and what the first call raised, if it raised)."""
        if not self._used or self._persistent:
            return
        failed = self._failed
        if failed is not None:
            first = str(failed).splitlines()[0] if str(failed) else ""
            raise RuntimeError(
                f"GradientTape.{what}: this non-persistent tape's first gradient call raised "
                f"{type(failed).__name__}: {first}. That call already released the tape's records, so "
                f"nothing is left to differentiate. Fix what it raised and record again, or use "
                f"tk.GradientTape(persistent=True) to keep the records across gradient calls")
        raise RuntimeError(
            f"GradientTape.{what}: a non-persistent GradientTape can only be used to compute one set "
            f"of gradients (or jacobians). Create it with tk.GradientTape(persistent=True) to call "
            f"gradient() more than once.")

    def _walk(self, seeds, sources, src_ok, lead=()):
        """The backward walk over this tape's records from `seeds` ({tid: cotangent}) to the
        sources whose `src_ok` is True; {tid: cotangent}. The tape's part: which ids are
        sources, releasing the records (non-persistent), what reaches a source, the observers."""
        # Only what the tape tracks, and is not inert, gets a gradient (and a target is its own
        # source): a constant it never watched gets None even when a recorded op read it, and so
        # does stop_gradient's output, as in TensorFlow.
        source_tids = [s._tid for s, ok in zip(sources, src_ok)
                       if ok and (s._tid in seeds or self._differentiable(s._tid))]
        # Outer tapes record this backward pass. So does this tape when it is persistent and
        # recording (as in TensorFlow): a gradient of a gradient then works inside one
        # persistent tape. A non-persistent tape stops recording here, as TensorFlow's does.
        # (backward walks the records that exist now; those it appends are not walked.)
        if self in state.tapes and not self._persistent:
            state.tapes.remove(self)
        recorded = recording()
        if recorded:
            seeds = {tid: v if isinstance(v, Tensor) else wrap_array(v) for tid, v in seeds.items()}
        records, record_list = self._records, self._record_list
        if not self._persistent:   # its one gradient: the records go when this call ends
            self._records = []
            self._record_list = None
            self._used = True
        # When the sources cover everything watched, every tracked id leads to a source.
        covered = set(self._watched) <= set(source_tids)
        if recorded:
            # This walk is recorded: the rules see tensors, which refuse mixed dtypes, so no
            # rule may be asked for an integer input's cotangent (float64 g / an int32 y raised
            # in a tk.function's backward). Raw NumPy rules compute one; it ends as None anyway.
            reach = backprop.reachable(records, source_tids, floating_only=True)
            if covered:
                reach &= self._tracked   # as the eager walk: only what the tape tracks
        else:
            reach = self._tracked if covered else None
        # Observers of the walk (display, check_numerics): called after each record, if any.
        watching = self._observers.backward_step or state.check_numerics is not None
        observe = observing.backward_observer(self, self._backward_steps) if watching else None
        try:
            # An exploding gradient gives inf/nan as TensorFlow does, silently: NumPy's
            # overflow/invalid warnings would point at tapekit's rules, not the user's line.
            # (Once per gradient call: errstate costs ~1 us, so per op it would add ~30% to
            # W1's 3.6 us/op; here it is 0.001 us/op for a 1,000-op tape.)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
                grads = backprop.backward(records, seeds, source_tids, lead=lead, reach=reach,
                                          observe=observe)
        except Exception as e:
            if not self._persistent:
                self._failed = e
            raise
        methods = self._observers.gradient_done
        if methods:
            results = {s._tid: grads.get(s._tid) if ok else None for s, ok in zip(sources, src_ok)}
            if record_list is None:   # no view of the walked list was asked for yet
                # persistent: the tape's own list, through its read-only view; released: the
                # tape holds them no more, and a tuple of them cannot change.
                record_list = self.record_list if self._persistent else tuple(records)
            try:
                for gradient_done in methods:
                    gradient_done(self, record_list, results)
            except Exception as e:   # noqa: BLE001 - warned about, detached (observers.py)
                observing.observer_failed(self, "gradient_done", methods, gradient_done, e,
                                          (record_list, results))
        return grads

    def _backward_steps(self):
        """Every observer's backward_step, and check_numerics's when it is on."""
        steps, checker = self._observers.backward_step, state.check_numerics
        return steps if checker is None else steps + (checker.backward_step,)

    def memory(self):
        """Records and bytes this tape holds, per op, and what `gradient` frees (tapekit/memory.py)."""
        return tape_memory(self)

    def __repr__(self):
        kind = "persistent " if self._persistent else ""
        n = len(self._records)
        return f"<GradientTape ({kind}{n} record{'s' * (n != 1)}, {len(self._watched)} watched)>"

