"""InspectorModel: every node of a tape (op, inputs, shape, dtype, value, gradient) and a
finite-difference check of one node's gradient (the NodeInspector's model).
"""

from dataclasses import dataclass

import numpy as np

from ...context import enter_raw, leave_raw
from ...display import graph as _graph
from ...display.format import args_text
from ...ops.registry import Meta
from ...convert import constant
from ...tensor import Tensor, wrap_array
from ...testing import GradientCheck, check_gradient
from .backprop import BackpropModel
from .common import summary_text


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
            lines.append(f"  inputs: {args_text(self.inputs)}")
        shape = "?" if self.shape is None else str(tuple(self.shape))
        lines.append(f"  shape {shape}, dtype {self.dtype or '?'}")
        value = summary_text(self.value) if self.value is not None else "not kept"
        lines.append(f"  value: {value}")
        lines.append(f"  gradient: {summary_text(self.grad) if self.grad is not None else 'none'}")
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
        self.snapshot = snap = _graph.snapshot(tape)   # the one read of the tape
        self.index = _graph.NodeIndex(snap)            # any node, made when asked for
        records = snap.records
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
                grads = bp.grads_at(len(bp) - 1)
            except ValueError as e:
                self.message = str(e)
        elif not records:
            self.message = "Nothing was recorded on this tape."
        self.grads = grads
        self.target_node = None
        if target is not None:
            self.target_node = self.index.ids.get(target._tid)
        self._graph = None

    @property
    def graph(self):
        """The tape's whole GraphModel, every node (built on first use: at 100,000 records
        that takes seconds, which is why the inspector itself reads `index`)."""
        if self._graph is None:
            self._graph = _graph.build(self.snapshot)
        return self._graph

    @property
    def node_ids(self):
        return self.index.node_ids

    def node(self, node_id):
        """A `NodeInfo` (op, inputs, shape, dtype, value, gradient) for `node_id`."""
        n = self.index.node(node_id)
        op = n.label
        return NodeInfo(n.id, n.kind, op, tuple(n.args), n.shape, n.dtype,
                        n.value, self.grads.get(n.id))

    def find(self, query="", limit=200):
        """(node ids, how many match): at most `limit` nodes whose id starts with `query` or
        whose name contains it (case-insensitive; an exact id first), in tape order. With no
        query: the first `limit` nodes (the leaves first) and the target. What a chooser
        offers instead of every node of a 100,000-record tape.

        >>> x = tk.Variable(2.0, name="x")
        >>> with tk.display.option_context(record=True):   # on by default in Jupyter
        ...     with tk.GradientTape() as tape:
        ...         y = tk.sin(x) * x
        >>> tk.widgets.InspectorModel(tape, y).find("sin")
        (['n0'], 1)
        """
        q = str(query).strip().lower()
        index, found, total = self.index, [], 0
        if not q:
            found = index.node_ids[:limit]
            if self.target_node is not None and self.target_node not in found:
                found = found[:limit - 1] + [self.target_node]
            return found, len(index)
        exact = q in index
        if exact:
            found.append(q)
            total = 1
        names = [(index.ids[t], index.label(index.ids[t]).lower()) for t in index.leaves]
        names += ((f"n{i}", rec.op.name.lower()) for i, rec in enumerate(self.records))
        for node_id, name in names:
            if (node_id.startswith(q) or q in name) and not (exact and node_id == q):
                total += 1
                if len(found) < limit:
                    found.append(node_id)
        return found, total

    def check(self, node_id, eps=1e-6, rtol=1e-3, atol=1e-4):
        """Compare the node's tape gradient with central finite differences.

        What is checked: perturb each element of this node's value by +-eps (in float64),
        replay every later recorded op with the ops' own forward functions on the kept
        values, and take (sum(target(+eps)) - sum(target(-eps))) / 2eps. That numerical
        derivative must match d sum(target)/d node from the backward pass (within
        float32-sized tolerances: rtol=1e-3, atol=1e-4).
        """
        n = self.index.node(node_id)
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
        records, snap = self.records, self.snapshot
        values = {}
        vals_seen, _ = _graph.values_seen(snap, records)
        values.update(vals_seen)
        for tid, t in snap.watched.items():
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
    return wrap_array(rec.value if rec.value is not None else np.zeros(rec.ans.shape), rec.out_tid)
