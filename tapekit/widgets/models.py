"""Plain-Python models behind tapekit's widgets (no ipywidgets here; STYLE.md 2.6).

- `BackpropModel`: the backward pass of a recorded tape as a list of steps, in the
  order backprop computes them, with the chain rule's numbers at every step.
- `InspectorModel`: every node of a tape (op, inputs, shape, dtype, value, gradient)
  and a finite-difference check of one node's gradient.
- `ExplorerModel`: a function of one or two scalars sampled with its derivatives
  (first by the tape, second by nested tapes) and the tangent at the current point.
- `TrainingLog`: losses (and optional gradient norms) of a training loop.

The models only read the tape. The stepper's steps come from `tapekit.backprop.backward`
itself, the walk `tape.gradient` runs, through its `observe` hook: what each input
receives and holds is backward's own numbers. The stepper adds only the local
derivatives it shows beside them (each rule applied to ones).
"""
from dataclasses import dataclass, field

import numpy as np

from .. import backprop
from ..context import enter_raw, leave_raw, state
from ..display import graph as _graph
from ..display.format import number, summary
from ..ops.registry import Meta
from ..record import Record
from ..tape import GradientTape
from ..convert import constant
from ..tensor import Tensor
from ..testing import GradientCheck, check_gradient

NOT_RECORDED = ("This tape did not keep its values, so the backward pass cannot be shown "
                "with numbers. Turn display recording on BEFORE recording: "
                "tk.display.set_options(record=True) (on by default in Jupyter), then run the "
                "`with tk.GradientTape() as tape:` block again.")


def _arr(v):
    if v is None:
        return None
    return v._value if isinstance(v, Tensor) else np.asarray(v)


def _fmt(v, precision=4):
    return "None" if v is None else summary(v, precision)


# --- the backward pass, step by step ------------------------------------------------------

@dataclass
class Contribution:
    """What one input of the current op receives at this step."""

    arg: int            # which argument of the op
    node: str           # the input's node id ("s0", "n2")
    label: str          # its name or op
    local: object       # the local derivative: the op's VJP rule applied to ones
    sent: object        # the VJP rule applied to the arriving gradient: what the input receives
    total: object       # the input's accumulated gradient after this step


@dataclass
class Step:
    """One step of the backward pass (step 0 is the seed on the target)."""

    index: int                      # position in the list of steps
    node: str                       # node id of the op (or of the target for the seed)
    op: str                         # op name ("seed" for step 0)
    record: int = None              # record index (None for the seed)
    value: object = None            # the op's output value
    grad_in: object = None          # the gradient arriving from above (d target / d output)
    contributions: list = field(default_factory=list)
    elementwise: bool = True        # every input has the output's shape: sent = g * local
    args: tuple = ()                # the op's arguments as node ids / literals
    model: object = field(default=None, repr=False, compare=False)   # the BackpropModel

    # A step keeps only what it changed (its contributions); what holds after it is
    # rebuilt from the steps before it, so memory grows with the tape, not its square.
    @property
    def grads(self):
        """{node id: accumulated gradient} after this step."""
        return self.model.grads_at(self.index)

    @property
    def done(self):
        """Node ids whose step is complete after this one (this one included)."""
        return self.model.done_at(self.index)

    def __str__(self):
        if self.record is None:
            return (f"step {self.index}: seed d {self.node}/d {self.node} = {_fmt(self.grad_in)} "
                    f"(the target's gradient with respect to itself)")
        lines = [f"step {self.index}: {self.node} = {self.op}"
                 f"({', '.join(self.args)}) = {_fmt(self.value)}",
                 f"  gradient arriving from above: d target/d {self.node} = {_fmt(self.grad_in)}"]
        for c in self.contributions:
            if self.elementwise:
                lines.append(f"  to {c.node} ({c.label}): {_fmt(self.grad_in)} x "
                             f"local d{self.node}/d{c.node} = {_fmt(c.local)} -> sends {_fmt(c.sent)}"
                             f"; {c.node} has {_fmt(c.total)} so far")
            else:
                lines.append(f"  to {c.node} ({c.label}): vjp({self.op}, g) sends {_fmt(c.sent)}"
                             f" (vjp of ones: {_fmt(c.local)}); {c.node} has {_fmt(c.total)} so far")
        if not self.contributions:
            lines.append("  (no input on a path to a source)")
        return "\n".join(lines)


class BackpropModel:
    """The backward pass of `tape` from `target` to `sources`, one op at a time.

    Step 0 seeds the target with ones; step k applies the chain rule at one recorded
    op, in the order backprop computes it (record indices, reversed). Navigate with
    `step()`, `back()`, `reset()`, `go_to(i)`; `current` is the step shown.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> model = tk.widgets.BackpropModel(tape, y, [x])
    >>> len(model)
    3
    >>> print(model.step())
    step 1: n1 = multiply(n0, s0) = 1.8186
      gradient arriving from above: d target/d n1 = 1.0
      to n0 (sin): 1.0 x local dn1/dn0 = 2.0 -> sends 2.0; n0 has 2.0 so far
      to s0 (x:0): 1.0 x local dn1/ds0 = 0.9093 -> sends 0.9093; s0 has 0.9093 so far
    >>> _ = model.go_to(len(model) - 1)
    >>> model.gradients()     # d/dx (x sin x) = sin x + x cos x at x = 2
    [array(0.07700378, dtype=float32)]
    """

    def __init__(self, tape, target, sources=None):
        if not isinstance(tape, GradientTape):
            raise TypeError(f"BackpropModel: expected a tk.GradientTape, got {type(tape).__name__}")
        if not isinstance(target, Tensor):
            raise TypeError("BackpropModel: the target must be one tk.Tensor (the loss), got "
                            f"{type(target).__name__}")
        self.tape = tape
        self.target = target
        records = _graph.tape_records(tape)
        if _graph.records_freed(tape):
            raise ValueError("gradient() of this non-persistent tape already released its "
                             "records. Record again with tk.GradientTape(persistent=True) or "
                             "after tk.display.set_options(record=True).")
        if any(rec.value is None for rec in records):
            raise ValueError(NOT_RECORDED)
        out_tids = {rec.out_tid for rec in records}
        if target._tid not in out_tids and target._tid not in tape._watched:
            raise ValueError("The target was not recorded on this tape: compute it inside the "
                             "tape's `with` block, from a watched tensor or a trainable Variable "
                             "(and pass the tensor the block produced, not a copy).")
        if sources is None:
            srcs = list(tape._watched.values())
        else:
            srcs = _graph.tensors(sources, "sources")
        self.sources = srcs
        self.records = records
        self.ids, _ = _graph.index_tape(tape, records, extra=srcs)
        nodes = _graph.build(tape).nodes
        self._labels = {n.id: n.label for n in nodes}
        self._args = {n.id: tuple(n.args) for n in nodes}
        self.steps = self._compute()
        self.position = 0

    # --- navigation -----------------------------------------------------------------
    def __len__(self):
        return len(self.steps)

    @property
    def current(self):
        """The step shown now (a `Step`; `str(model.current)` is the chain rule in numbers)."""
        return self.steps[self.position]

    @property
    def grads_so_far(self):
        """{node id: accumulated gradient} after the current step."""
        return self.grads_at(self.position)

    def grads_at(self, i):
        """{node id: accumulated gradient} after step `i`: the seed, then what each step's
        inputs hold after it, the latest winning (linear in i; nothing is stored per step)."""
        grads = {self.steps[0].node: self.steps[0].grad_in}
        for step in self.steps[1:i + 1]:
            for c in step.contributions:
                grads[c.node] = c.total
        return grads

    def done_at(self, i):
        """Node ids whose step is complete after step `i`."""
        return tuple(step.node for step in self.steps[1:i + 1])

    def step(self):
        """Advance one step (stays on the last one); returns the new current step."""
        return self.go_to(min(self.position + 1, len(self.steps) - 1))

    def back(self):
        """Go back one step (stays on step 0)."""
        return self.go_to(max(self.position - 1, 0))

    def reset(self):
        """Back to step 0, the seed."""
        return self.go_to(0)

    def go_to(self, i):
        """Show step `i` (0 .. len-1; negative counts from the end)."""
        n = len(self.steps)
        i = int(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"BackpropModel.go_to: step {i} out of range 0..{n - 1}")
        self.position = i
        return self.current

    @property
    def at_end(self):
        return self.position == len(self.steps) - 1

    def gradients(self):
        """The sources' gradients at the last step, in the order of `sources` (None if unconnected)."""
        last = self.grads_at(len(self.steps) - 1)
        return [last.get(self.ids[s._tid]) for s in self.sources]

    # --- the computation ------------------------------------------------------------
    def _compute(self):
        """Every step, taken from backprop.backward itself as it runs (its `observe` hook)."""
        records, ids = self.records, self.ids
        source_tids = [s._tid for s in self.sources]
        reach = backprop.reachable(_graph.source_records(self.tape), source_tids)
        target = self.target._tid
        seed = backprop.seed_like(self.target)
        tnode = ids[target]
        steps = [Step(0, tnode, "seed", value=_arr(self.target), grad_in=seed, model=self)]

        shown = {rec.out_tid: rec for rec in records}   # the walk's Record -> what display shows

        def observe(rec, g, sent, grads):
            rec = shown[Record._make(rec).out_tid]   # the walk gives the tape's own record
            node = f"n{rec.index}"
            local = self._local(rec, reach)
            elementwise = all(tuple(rec.inputs[i].shape) == tuple(np.shape(rec.value))
                              for i, _, _ in sent)
            steps.append(Step(
                len(steps), node, rec.op.name, rec.index, np.asarray(rec.value), np.asarray(g),
                [Contribution(i, ids[tid], self._labels.get(ids[tid], ""), np.asarray(local[i]),
                              np.asarray(gi), _arr(grads[tid]))   # what tid holds after this step
                 for i, tid, gi in sent],
                elementwise, self._args.get(node, ()), model=self))

        # Raw mode, as tape.gradient runs when nothing else records: the stepper's backward
        # pass must not land on a tape or accumulator that is active now.
        saved = state.tapes, state.accumulators
        state.tapes, state.accumulators = [], []
        try:
            backprop.backward(_graph.source_records(self.tape), {target: seed}, source_tids,
                              reach=reach, observe=observe)
        finally:
            state.tapes, state.accumulators = saved
        return steps

    @classmethod
    def _local(cls, rec, reach):
        """{input position: local derivative}: the op's VJP rules applied to ones, with
        broadcasting undone and cast as backward does for the real cotangent."""
        value = np.asarray(rec.value)
        ones = np.ones(value.shape, dtype=value.dtype)
        local = {}
        for i, li in enumerate(rec.op.call_vjp(ones, rec.ans, rec.inputs, rec.attrs, rec.in_tids, reach)):
            if li is None:
                continue
            x = rec.inputs[i]
            if np.shape(li) != tuple(x.shape):
                li = backprop._sum_to(li, x.shape, 0)
            if np.asarray(li).dtype != x.dtype and x.dtype.kind == "f":
                li = backprop._cast(li, x.dtype)
            local[i] = li
        return local


# --- inspecting nodes ----------------------------------------------------------------------

@dataclass
class NodeInfo:
    id: str
    kind: str
    op: str
    inputs: tuple
    shape: tuple
    dtype: str
    value: object
    grad: object

    def __str__(self):
        lines = [f"{self.id}: {self.op} ({self.kind})"]
        if self.inputs:
            lines.append(f"  inputs: {', '.join(self.inputs)}")
        shape = "?" if self.shape is None else str(tuple(self.shape))
        lines.append(f"  shape {shape}, dtype {self.dtype or '?'}")
        lines.append(f"  value: {_fmt(self.value) if self.value is not None else 'not kept'}")
        lines.append(f"  gradient: {_fmt(self.grad) if self.grad is not None else 'none'}")
        return "\n".join(lines)


class InspectorModel:
    """Every node of `tape` with its numbers, and a finite-difference check on request.

    Gradients are d(sum of target)/d(node), computed by `BackpropModel` (the tape's own
    rules); the target defaults to the output of the last record.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> m = tk.widgets.InspectorModel(tape, y, [x])
    >>> m.node_ids
    ['s0', 'n0', 'n1']
    >>> print(m.node("n0"))
    n0: sin (op)
      inputs: s0
      shape (), dtype float32
      value: 0.9093
      gradient: 2.0
    >>> print(m.check("n0"))
    n0: OK. tape gradient 2.0; central differences 2.0; ...
    """

    def __init__(self, tape, target=None, sources=None):
        self.tape = tape
        self.graph = _graph.build(tape)
        records = _graph.tape_records(tape)
        self.records = records
        if target is None and records:
            last = records[-1]
            target = _find_tensor(tape, last)
        self.target = target
        self.message = ""
        grads = {}
        if target is not None:
            try:
                bp = BackpropModel(tape, target, sources)
                grads = bp.steps[-1].grads
            except ValueError as e:
                self.message = str(e)
        elif not records:
            self.message = "Nothing was recorded on this tape."
        self.grads = grads
        self.target_node = None
        if target is not None:
            ids, _ = _graph.index_tape(tape, records)
            self.target_node = ids.get(target._tid)

    @property
    def node_ids(self):
        return [n.id for n in self.graph.nodes]

    def node(self, node_id):
        """A `NodeInfo` (op, inputs, shape, dtype, value, gradient) for `node_id`."""
        n = self.graph.node(node_id)
        op = n.label
        return NodeInfo(n.id, n.kind, op, tuple(n.args), n.shape, n.dtype,
                        n.value, self.grads.get(n.id))

    def check(self, node_id, eps=1e-6, rtol=1e-3, atol=1e-4):
        """Compare the node's tape gradient with central finite differences.

        What is checked: perturb each element of this node's value by +-eps (in float64),
        replay every later recorded op with the ops' own forward functions on the kept
        values, and take (sum(target(+eps)) - sum(target(-eps))) / 2eps. That numerical
        derivative must match d sum(target)/d node from the backward pass (within
        float32-sized tolerances: rtol=1e-3, atol=1e-4).
        """
        n = self.graph.node(node_id)
        grad = self.grads.get(node_id)
        if grad is None:
            why = self.message or "no gradient reaches this node from the target"
            return GradientCheck(node_id, skipped=why)
        if n.value is None:
            return GradientCheck(node_id, skipped="its value was not kept", tape=np.asarray(grad))
        try:
            return check_gradient(node_id, np.asarray(grad), self._replay_function(n), n.value,
                                  eps=eps, rtol=rtol, atol=atol)
        except _CannotReplay as e:
            return GradientCheck(node_id, skipped=str(e), tape=np.asarray(grad))

    def _replay_function(self, node):
        """f(node value) -> sum(target), replaying the records after the node with NumPy."""
        records, tape = self.records, self.tape
        values = {}
        vals_seen, _ = _graph.values_seen(tape, records)
        values.update(vals_seen)
        for tid, t in tape._watched.items():
            values[tid] = t._value
        for rec in records:
            values[rec.out_tid] = rec.value
        start = records[int(node.id[1:])].index + 1 if node.id.startswith("n") else 0
        later = records[start:]
        target_tid = self.target._tid
        for rec in later:
            for v, tid in zip(rec.inputs, rec.in_tids):
                if tid is None and isinstance(v, Meta):
                    raise _CannotReplay(f"a constant input of n{rec.index} ({rec.op.name}) was "
                                        f"not kept by the tape")
                if tid is not None and tid not in values:
                    raise _CannotReplay(f"the value of an input of n{rec.index} was not kept")
        node_tid = node.tid

        def f(x):
            env = dict(values)
            env[node_tid] = x._value if isinstance(x, Tensor) else x
            saved = enter_raw(True)
            try:
                for rec in later:
                    args = [env[tid] if tid is not None else v
                            for v, tid in zip(rec.inputs, rec.in_tids)]
                    args = [np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray)
                            and a.dtype.kind == "f" else a for a in args]
                    env[rec.out_tid] = rec.op.forward(*args, **rec.attrs)
            except Exception as e:  # noqa: BLE001 - an op that cannot be replayed on arrays
                raise _CannotReplay(f"replaying {rec.op.name} failed ({type(e).__name__}: {e})")
            finally:
                leave_raw(True, saved)
            return constant(np.sum(np.asarray(env[target_tid], dtype=np.float64)))
        return f


class _CannotReplay(Exception):
    pass


def _find_tensor(tape, rec):
    """A Tensor standing for a record's output (the tape keeps only ids and values)."""
    from ..tensor import _wrap
    return _wrap(rec.value if rec.value is not None else np.zeros(rec.ans.shape), rec.out_tid)


# --- exploring a function ------------------------------------------------------------------

class ExplorerModel:
    """A function of one (or two) scalars, with derivatives by the tape.

    One input: `xs`, `f`, `df` (tape), `d2f` (nested tapes) sampled over `x_range`,
    and `tangent()` at the current point `x`. Two inputs (`y_range` given): `grid`
    of f over x_range x y_range and the partial derivatives at the current point.

    >>> m = tk.widgets.ExplorerModel(lambda x: x ** 3, (-3, 3))
    >>> m.set_point(2.0)
    {'x': 2.0, 'f': 8.0, 'df': 12.0, 'd2f': 12.0}
    >>> print(m)
    f(2.0) = 8.0; f' = 12.0 (tape), f'' = 12.0 (nested tapes)
    """

    def __init__(self, f, x_range=(-3.0, 3.0), y_range=None, *, x=None, y=None, samples=None):
        if not callable(f):
            raise TypeError(f"ExplorerModel: f must be a function, got {type(f).__name__}")
        self.f = f
        self.x_range = _range(x_range, "x_range")
        self.y_range = None if y_range is None else _range(y_range, "y_range")
        self.two = self.y_range is not None
        lo, hi = self.x_range
        self.x = float((lo + hi) / 2 if x is None else x)
        if self.two:
            self.y = float(sum(self.y_range) / 2 if y is None else y)
        n = samples or (25 if self.two else 101)
        self.xs = np.linspace(lo, hi, n)
        if self.two:
            self.ys = np.linspace(self.y_range[0], self.y_range[1], n)
            self.grid = np.array([[self.derivatives(xv, yv, order=0)[0] for xv in self.xs]
                                  for yv in self.ys])       # grid[i, j] = f(xs[j], ys[i])
        else:
            rows = [self.derivatives(xv) for xv in self.xs]
            self.fs, self.dfs, self.d2fs = (np.array(c) for c in zip(*rows))

    def derivatives(self, x, y=None, order=2):
        """(f, f', f'') at x; with two inputs (f, df/dx, df/dy) at (x, y) (order 0: f only)."""
        if self.two:
            y = self.y if y is None else y
            tx, ty = constant(np.float64(x)), constant(np.float64(y))
            with GradientTape() as tape:
                tape.watch([tx, ty])
                out = self._call(tx, ty)
            if order == 0:
                return (float(out._value),)
            gx, gy = tape.gradient(out, [tx, ty])
            return float(out._value), _float(gx), _float(gy)
        t = constant(np.float64(x))
        with GradientTape() as outer:
            outer.watch(t)
            with GradientTape() as inner:
                inner.watch(t)
                out = self._call(t)
            d1 = inner.gradient(out, t)
        d2 = outer.gradient(d1, t) if d1 is not None else None
        return float(out._value), _float(d1), _float(d2)

    def _call(self, *args):
        out = self.f(*args)
        if not isinstance(out, Tensor):
            out = constant(np.asarray(out, dtype=np.float64))
        if out.shape != ():
            raise ValueError(f"the function must return one number (a scalar), but it returned "
                             f"shape {tuple(out.shape)}. Reduce it first, e.g. tk.reduce_sum(...)")
        if out.dtype.kind not in "fc":
            raise ValueError(f"the function must return a floating-point number, got {out.dtype}")
        return out

    def set_point(self, x, y=None):
        lo, hi = self.x_range
        self.x = float(np.clip(x, lo, hi))
        if self.two and y is not None:
            self.y = float(np.clip(y, *self.y_range))
        return self.point()

    def point(self):
        """{'x', 'f', 'df', 'd2f'} at the current point ({'x', 'y', 'f', 'dfdx', 'dfdy'} for two)."""
        if self.two:
            fv, gx, gy = self.derivatives(self.x, self.y)
            return {"x": self.x, "y": self.y, "f": fv, "dfdx": gx, "dfdy": gy}
        fv, d1, d2 = self.derivatives(self.x)
        return {"x": self.x, "f": fv, "df": d1, "d2f": d2}

    def tangent(self):
        """Two points (x, y) of the tangent line at the current point, at the range's ends."""
        p = self.point()
        lo, hi = self.x_range
        return [(lo, p["f"] + p["df"] * (lo - p["x"])), (hi, p["f"] + p["df"] * (hi - p["x"]))]

    def __str__(self):
        p = self.point()
        if self.two:
            return (f"f({number(p['x'])}, {number(p['y'])}) = {number(p['f'])}; "
                    f"df/dx = {number(p['dfdx'])}, df/dy = {number(p['dfdy'])}")
        return (f"f({number(p['x'])}) = {number(p['f'])}; f' = {number(p['df'])} (tape), "
                f"f'' = {number(p['d2f'])} (nested tapes)")


def _range(r, name):
    try:
        lo, hi = (float(v) for v in r)
    except (TypeError, ValueError):
        raise TypeError(f"ExplorerModel: {name} must be two numbers (low, high), got {r!r}") from None
    if not lo < hi:
        raise ValueError(f"ExplorerModel: {name} must have low < high, got {r!r}")
    return lo, hi


def _float(t):
    """A derivative as a float; None (unconnected: the function does not depend on it) is 0."""
    return 0.0 if t is None else float(np.asarray(_arr(t)))


# --- training log ----------------------------------------------------------------------------

class TrainingLog:
    """Losses per step (and epoch), with optional gradient norms per variable.

    >>> log = tk.widgets.TrainingLog()
    >>> for loss in [0.75, 0.5, 0.25]:
    ...     log.log(loss=loss, epoch=0)
    >>> log.line(total=10)
    'step 3/10  epoch 0  loss 0.25'
    >>> log.epoch_losses()
    {0: 0.5}
    """

    def __init__(self):
        self.steps = []          # step numbers (0, 1, ...)
        self.losses = []
        self.epochs = []         # epoch of each step (None when not given)
        self.grad_norms = {}     # variable name -> list of norms (one per logged step with grads)
        self.metrics = {}        # other keyword values -> list

    def log(self, loss=None, grads=None, *, step=None, epoch=None, variables=None, **metrics):
        """Record one step. `grads`: a list of (gradient, variable) pairs, a dict
        {name: gradient}, or a list of gradients with `variables` giving the names."""
        step = len(self.steps) if step is None else int(step)
        self.steps.append(step)
        self.losses.append(None if loss is None else float(np.asarray(_arr(loss))))
        self.epochs.append(epoch)
        if grads is not None:
            for name, g in _named_grads(grads, variables):
                norm = float(np.sqrt(np.sum(np.square(np.asarray(_arr(g), dtype=np.float64)))))
                self.grad_norms.setdefault(name, []).append(norm)
        for k, v in metrics.items():
            self.metrics.setdefault(k, []).append(float(np.asarray(_arr(v))))

    def __len__(self):
        return len(self.steps)

    @property
    def last_loss(self):
        for v in reversed(self.losses):
            if v is not None:
                return v
        return None

    def epoch_losses(self):
        """{epoch: mean loss} over the steps logged with an epoch."""
        out = {}
        for e, l in zip(self.epochs, self.losses):
            if e is not None and l is not None:
                out.setdefault(e, []).append(l)
        return {e: float(np.mean(v)) for e, v in out.items()}

    def line(self, total=None):
        """One plain-text progress line for the latest step (deterministic: no timings)."""
        if not self.steps:
            return "no steps logged yet"
        n = len(self.steps)
        head = f"step {n}/{total}" if total else f"step {n}"
        parts = [head]
        if self.epochs[-1] is not None:
            parts.append(f"epoch {self.epochs[-1]}")
        if self.last_loss is not None:
            parts.append(f"loss {number(self.last_loss)}")
        for name, norms in self.grad_norms.items():
            parts.append(f"|grad {name}| {number(norms[-1])}")
        for k, v in self.metrics.items():
            parts.append(f"{k} {number(v[-1])}")
        return "  ".join(parts)


def _named_grads(grads, variables):
    if isinstance(grads, dict):
        return [(str(k), g) for k, g in grads.items() if g is not None]
    items = list(grads)
    out = []
    for k, item in enumerate(items):
        if isinstance(item, tuple) and len(item) == 2:
            g, v = item
            name = getattr(v, "name", f"var{k}")
        else:
            g = item
            v = variables[k] if variables is not None else None
            name = getattr(v, "name", None) or f"var{k}"
        if g is not None:
            out.append((str(name), g))
    return out
