"""BackpropModel: the backward pass of a recorded tape as a list of steps, in the order
backprop computes them, with the chain rule's numbers at every step (the BackpropStepper's model).

The steps come from tapekit.backprop.backward itself, the walk tape.gradient runs, through its
`observe` hook; the model adds only the local derivatives it shows beside them. The walk keeps
what each record sent and left behind; a Step (with its local derivatives) is made when it is
read, so building the model costs one backward pass at any tape size.
"""

from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from ... import backprop
from ...context import enter_raw, leave_raw, state
from ...display import graph as _graph
from ...display.format import args_text
from ...tape import GradientTape
from ...tensor import Tensor
from .common import NOT_RECORDED, as_array, summary_text


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
        f = summary_text
        if self.record is None:
            return (f"step {self.index}: seed d {self.node}/d {self.node} = {f(self.grad_in)} "
                    f"(the target's gradient with respect to itself)")
        lines = [f"step {self.index}: {self.node} = {self.op}"
                 f"({args_text(self.args)}) = {f(self.value)}",
                 f"  gradient arriving from above: d target/d {self.node} = {f(self.grad_in)}"]
        for c in self.contributions:
            if self.elementwise:
                lines.append(f"  to {c.node} ({c.label}): {f(self.grad_in)} x "
                             f"local d{self.node}/d{c.node} = {f(c.local)} -> sends {f(c.sent)}"
                             f"; {c.node} has {f(c.total)} so far")
            else:
                lines.append(f"  to {c.node} ({c.label}): vjp({self.op}, g) sends {f(c.sent)}"
                             f" (vjp of ones: {f(c.local)}); {c.node} has {f(c.total)} so far")
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
        self.snapshot = snap = _graph.snapshot(tape)   # the one read of the tape
        records = snap.records
        if snap.freed:
            raise ValueError("gradient() of this non-persistent tape already released its "
                             "records. Record again with tk.GradientTape(persistent=True) or "
                             "after tk.display.set_options(record=True).")
        if any(rec.value is None for rec in records):
            raise ValueError(NOT_RECORDED)
        out_tids = {rec.out_tid for rec in records}
        if target._tid not in out_tids and target._tid not in snap.watched:
            raise ValueError("The target was not recorded on this tape: compute it inside the "
                             "tape's `with` block, from a watched tensor or a trainable Variable "
                             "(and pass the tensor the block produced, not a copy).")
        if sources is None:
            srcs = list(snap.watched.values())
        else:
            srcs = _graph.tensors(sources, "sources")
        self.sources = srcs
        self.records = records
        self._index = _graph.NodeIndex(snap, extra=srcs)   # labels without a Node per record
        self.ids = self._index.ids
        self._walk = self._compute()
        self.steps = Steps(self)
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
        ids = self.ids
        grads = {self._walk[0][0]: self._walk[0][2]}
        for _, _, sent in self._walk[1:i + 1]:
            for _, tid, _, total in sent:
                grads[ids[tid]] = total
        return grads

    def done_at(self, i):
        """Node ids whose step is complete after step `i`."""
        return tuple(self.node_at(k) for k in range(1, i + 1))

    def node_at(self, i):
        """The node id of step `i` (without making its Step)."""
        return self._walk[i][0] if i == 0 else f"n{self._walk[i][0]}"

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
        """The walk, taken from backprop.backward itself as it runs (its `observe` hook): per
        record, what arrived and what each input received and then held. Only that is kept
        here; a `Step` (with the local derivatives) is made when it is looked at (`steps`),
        so a 100,000-record tape costs one backward pass, not 100,000 Steps."""
        records = self.records
        source_tids = [s._tid for s in self.sources]
        self._reach = reach = backprop.reachable(self.snapshot.source_records, source_tids)
        target = self.target._tid
        seed = backprop.seed_like(self.target)
        walk = [(self.ids[target], None, seed)]          # step 0: the seed on the target
        index = {rec.out_tid: rec.index for rec in records}   # the walk's Record -> its index

        def observe(rec, g, sent, grads):
            # a 0-d total is NumPy's scalar: kept as a 0-d array, as the values are
            walk.append((index[rec[-1]], g,
                         [(i, tid, gi, np.asarray(grads[tid])) for i, tid, gi in sent]))

        with _raw():
            backprop.backward(self.snapshot.source_records, {target: seed}, source_tids,
                              reach=reach, observe=observe)
        return walk

    def _step(self, k):
        """Step `k` of the walk, with the numbers the stepper shows."""
        if k == 0:
            node, _, seed = self._walk[0]
            return Step(0, node, "seed", value=as_array(self.target), grad_in=seed, model=self)
        i, g, sent = self._walk[k]
        rec, ids, index = self.records[i], self.ids, self._index
        with _raw():
            local = self._local(rec, self._reach)
        elementwise = all(tuple(rec.inputs[j].shape) == tuple(np.shape(rec.value))
                          for j, _, _, _ in sent)
        return Step(
            k, f"n{i}", rec.op.name, i, np.asarray(rec.value), np.asarray(g),
            [Contribution(j, ids[tid], index.label(ids[tid]), np.asarray(local[j]),
                          np.asarray(gi), as_array(total))   # what tid holds after it
             for j, tid, gi, total in sent],
            elementwise, _graph.op_args(rec, ids), model=self)

    @classmethod
    def _local(cls, rec, reach):
        """{input position: local derivative}: the op's VJP rules applied to ones, with
        broadcasting undone and cast as backward does for the real cotangent."""
        value = np.asarray(rec.value)
        ones = np.ones(value.shape, dtype=value.dtype)
        local = {}
        in_grads = rec.op.call_vjp(ones, rec.ans, rec.inputs, rec.attrs, rec.in_tids, reach)
        for i, li in enumerate(in_grads):   # the op's own rule caller, as backward calls it
            if li is None:
                continue
            x = rec.inputs[i]
            if np.shape(li) != tuple(x.shape):
                li = backprop._sum_to(li, x.shape, 0)
            if np.asarray(li).dtype != x.dtype and x.dtype.kind == "f":
                li = backprop._cast(li, x.dtype)
            local[i] = li
        return local


class Steps(Sequence):
    """`BackpropModel.steps`: the list of Steps, each made the first time it is read."""

    def __init__(self, model):
        self._model = model
        self._made = {}

    def __len__(self):
        return len(self._model._walk)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        n = len(self)
        if not -n <= k < n:
            raise IndexError(f"step {k} out of range 0..{n - 1}")
        k %= n
        step = self._made.get(k)
        if step is None:
            if len(self._made) > 1024:    # a long walk stepped through: keep memory bounded
                self._made.clear()
            step = self._made[k] = self._model._step(k)
        return step


@contextmanager
def _raw():
    """Raw mode, as tape.gradient runs when nothing else records: the stepper's backward
    pass (and its local derivatives) must not land on a tape or accumulator active now."""
    saved = state.tapes, state.accumulators
    state.tapes, state.accumulators = [], []
    raw = enter_raw(True)
    try:
        yield
    finally:
        leave_raw(True, raw)
        state.tapes, state.accumulators = saved
