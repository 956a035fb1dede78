"""snapshot -> GraphModel: the recorded computation as plain nodes and edges.

This reads a tape's snapshot (snapshot.py: the tape, read once), never the tape itself. Node ids come from record order, never from `id()`,
so the same program gives the same ids in every process:
- "n<i>" is the op of record i;
- "s<k>" is the k-th leaf: the watched tensors in watch order, then the
  unwatched tensors that recorded ops read, in order of first use;
- "b<i>" (summarised graphs only) is a box of collapsed records starting at record i,
  "g<k>" a box of leaves starting at leaf k (an op reading thousands of Variables);
  a tape of more than HUGE_TAPE records is drawn as its first and last records, the
  records where a gradient path breaks, and boxes for the records in between.
Python numbers an op reads (the 2.0 of `x * 2.0`) are shown among its arguments.

Values come from display's own log of the tape (tape_log.py, in the snapshot): each record's output
when display recording is on, else what the derivative rules saved. Gradients
come from the same log (the last `gradient` call while recording). A node whose
value was not kept shows shape and dtype.
"""
from dataclasses import dataclass, field

import numpy as np

from ..tensor import Tensor, Variable
from .format import number, shape_text, summary
from .reading import ancestors, index_tape, reach_from, tensors, values_seen
from .snapshot import snapshot
from .summary import collapse, periodic_label

KINDS = ("variable", "unwatched", "watched", "constant", "op", "stop_gradient", "block")


@dataclass
class Node:
    """One node of the picture: an op, a watched tensor, a constant or a summary block.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> node = tk.display.build(tape, y, [x]).nodes[1]
    >>> node.id, node.kind, node.label, node.args, node.on_path
    ('n0', 'op', 'sin', ('s0',), True)
    """

    id: str                       # "n3", "s0", "b12"
    kind: str                     # one of KINDS ("unwatched": a Variable the tape does not watch)
    label: str                    # op name, tensor name, or what a block holds
    shape: tuple = None           # None when unknown
    dtype: str = ""
    value: object = field(default=None, compare=False, repr=False)  # array, or None
    grad: object = field(default=None, compare=False, repr=False)   # array, or None
    args: tuple = ()              # op nodes: input node ids and Python numbers, in order
    records: tuple = ()           # indices of the records this node stands for
    is_target: bool = False
    is_source: bool = False
    on_path: bool = False         # on a gradient path from the target to a source
    dimmed: bool = False          # a target was given and this node is off every path
    broken: str = ""              # why the gradient path breaks here ("" if it does not)
    note: str = ""                # a short remark: "not watched", "x2500", ...
    tid: int = field(default=None, compare=False, repr=False)
    members: tuple = ()           # a box of leaves (g<k>): the leaf ids it stands for


@dataclass
class Edge:
    """An arrow from an input node to the op that reads it (`arg`: which input it is).

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> [(e.src, e.dst, e.arg) for e in tk.display.build(tape, y, [x]).edges]
    [('s0', 'n0', 0), ('n0', 'n1', 0), ('s0', 'n1', 1)]
    """

    src: str
    dst: str
    arg: int = 0                  # which input of `dst` this is
    is_stop_gradient: bool = False
    differentiable: bool = True   # False: no gradient flows back along it (comparisons, ...)
    on_path: bool = False
    dimmed: bool = False


@dataclass
class GraphModel:
    """What `build` reads off a tape: plain lists of nodes and edges, ready to draw.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> model = tk.display.build(tape, y, [x])
    >>> model.title, len(model.nodes), len(model.edges)
    ('GradientTape: 2 records, 1 watched', 3, 3)
    """

    title: str
    nodes: list
    edges: list
    notes: list = field(default_factory=list)
    has_grads: bool = False
    summarised: bool = False

    def shown_as(self, node_id):
        """The id of the node that shows `node_id` here: itself, or the box a summarised
        picture folded it into (None when the picture left it out)."""
        boxes = self.__dict__.get("_boxes")
        if boxes is None or boxes[0] is not self.nodes or boxes[1] != len(self.nodes):
            folded = {f"n{i}": n.id for n in self.nodes if n.kind == "block" for i in n.records}
            folded.update((m, n.id) for n in self.nodes for m in n.members)
            folded.update((n.id, n.id) for n in self.nodes)
            boxes = self._boxes = (self.nodes, len(self.nodes), folded)
        return boxes[2].get(node_id)

    def node(self, node_id):
        """The node with id `node_id` (KeyError if none). A dict look-up, built on first use
        (and again if `nodes` changed): scanning the list made a 100,000-node inspector
        quadratic."""
        index = self.__dict__.get("_index")
        if index is None or index[0] is not self.nodes or index[1] != len(self.nodes):
            index = self._index = (self.nodes, len(self.nodes), {n.id: n for n in self.nodes})
        found = index[2].get(node_id)
        if found is None or found.id != node_id:   # not there, or an id changed since
            self._index = None
            found = {n.id: n for n in self.nodes}.get(node_id)
            if found is None:
                raise KeyError(node_id)
        return found


# --- building the model --------------------------------------------------------------

def build(tape, target=None, sources=None, *, breaks=None, max_nodes=None):
    """The GraphModel of `tape` (a GradientTape, read once, or its TapeSnapshot); with
    `target`, the paths to `sources` (default: watched).

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> model = tk.display.build(tape, y, [x])
    >>> [(n.id, n.label) for n in model.nodes]
    [('s0', 'x:0'), ('n0', 'sin'), ('n1', 'multiply')]
    """
    snap = snapshot(tape)   # from here on, only the snapshot: never the tape
    records = snap.records
    targets, srcs = tensors(target, "target"), tensors(sources, "sources")
    known = dict(snap.watched)
    known.update((t._tid, t) for t in targets + srcs)
    ids, leaves = index_tape(snap, records, extra=srcs)
    shown, gaps, total = records, [], None
    if max_nodes is not None and len(records) > HUGE_TAPE:
        total = len(records) + len(leaves)   # what the whole picture would have
        shown, gaps = _ends(records, breaks or {}, max_nodes)
        read = {tid for rec in shown for tid in rec.in_tids}
        leaves = [t for t in leaves if t in read or t in known]
        ids = dict(ids)
        for a, b in gaps:              # a left-out record's output is shown as its box
            ids.update((rec.out_tid, f"b{a}") for rec in records[a:b])
    values, metas = values_seen(snap, shown)
    grads = snap.grads

    nodes = [_leaf(snap, ids[tid], tid, known.get(tid), values, metas, grads) for tid in leaves]
    edges = []
    for rec in shown:
        nodes.append(_op_node(snap, rec, ids, values, grads))
        d = rec.op.differentiable
        for i, tid in enumerate(rec.in_tids):
            if tid is not None:
                edges.append(Edge(ids[tid], f"n{rec.index}", i,
                                  is_stop_gradient=rec.op.name == "stop_gradient",
                                  differentiable=d is True or bool(d and d[i])))
    if gaps:
        _gap_boxes(records, gaps, ids, nodes, edges)

    if targets:
        src_tids = [t._tid for t in srcs] if srcs else list(snap.watched)
        _mark_path(nodes, edges, records, [t._tid for t in targets], src_tids)
    for node in nodes:
        node.broken = (breaks or {}).get(node.id, "")
        node.dimmed = node.dimmed and not node.broken
    notes = _notes(snap, records, nodes)
    if gaps:
        notes.append(f"A long tape: the picture shows its first and last records and those where "
                     f"a gradient path breaks; {len(records) - len(shown)} records in between are "
                     f"the boxes.")
    model = GraphModel(_title(snap, records), nodes, edges, notes, has_grads=bool(grads))
    if max_nodes is not None and (len(nodes) > max_nodes or gaps):
        # A huge tape's ends are summarised too: 90 records drawn one by one, each reading
        # the same Variables, took dot seconds where the boxes of their runs take none.
        model = collapse(model, snap.scopes, max_nodes, total=total)
    return model


HUGE_TAPE = 20_000  # records; a longer tape is drawn as its first and last records and boxes


def _ends(records, breaks, max_nodes):
    """The records a huge tape's picture shows: the first and last few, and the records where
    a gradient path breaks; and the (start, stop) index ranges left out between them."""
    k = max(max_nodes // 2 - 5, 3)
    n = len(records)
    keep = set(range(k)) | set(range(n - k, n))
    keep.update(int(node_id[1:]) for node_id in breaks if node_id.startswith("n"))
    keep = sorted(i for i in keep if 0 <= i < n)
    gaps = [(a + 1, b) for a, b in zip(keep, keep[1:]) if b > a + 1]
    return [records[i] for i in keep], gaps


def _gap_boxes(records, gaps, ids, nodes, edges):
    """One box per left-out range of a huge tape, with edges from the shown nodes its records
    read (`ids` already names each left-out output by its box)."""
    shown = {n.id for n in nodes}
    for a, b in gaps:
        box, last, srcs = f"b{a}", records[b - 1], {}
        out = last.value if last.value is not None else last.ans
        for rec in records[a:b]:
            for tid in rec.in_tids:
                src = ids.get(tid)
                if src is not None and src != box and src in shown:
                    srcs.setdefault(src)
        label = periodic_label([rec.op.name for rec in records[a:b]]) or f"{b - a} ops"
        nodes.append(Node(box, "block", label, _shape(out), _dtype(out),
                          records=tuple(range(a, b)), note=f"n{a} ... n{b - 1}", tid=last.out_tid))
        edges.extend(Edge(src, box) for src in srcs)
    nodes.sort(key=lambda n: (n.id[0] != "s", n.records[0] if n.records else 0))


class NodeIndex:
    """Any node of a tape's whole picture (max_nodes=None), built when it is asked for.

    `build` makes every node at once; the inspector of a 100,000-record tape shows one at a
    time, and building 100,000 Nodes took it seconds before it could show the first. The
    ids, labels and Nodes here are those `build(snapshot)` gives (same order, same fields).

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> index = tk.display.graph.NodeIndex(tk.display.snapshot(tape))
    >>> index.node_ids, index.label("s0"), index.node("n1").args
    (['s0', 'n0', 'n1'], 'x:0', ('n0', 's0'))
    """

    def __init__(self, snap, extra=()):
        self.snap = snap
        self.ids, self.leaves = index_tape(snap, snap.records, extra=extra)
        self.known = dict(snap.watched)
        self.known.update((t._tid, t) for t in extra)
        self._leaf_ids = {self.ids[tid]: tid for tid in self.leaves}
        self._node_ids = None
        self._seen = None
        self._nodes = {}

    @property
    def node_ids(self):
        """Every node id, in the order of `build`'s nodes: the leaves, then the ops."""
        if self._node_ids is None:
            self._node_ids = [self.ids[t] for t in self.leaves] + [
                f"n{i}" for i in range(len(self.snap.records))]
        return self._node_ids

    def __len__(self):
        return len(self.leaves) + len(self.snap.records)

    def __contains__(self, node_id):
        return node_id in self._leaf_ids or self._record(node_id) is not None

    def _record(self, node_id):
        if node_id[:1] == "n" and node_id[1:].isdigit():
            i = int(node_id[1:])
            if i < len(self.snap.records) and node_id == f"n{i}":
                return self.snap.records[i]
        return None

    def label(self, node_id):
        """The node's label (an op's name, a tensor's name) without building the node."""
        rec = self._record(node_id)
        if rec is not None:
            return rec.op.name
        tid = self._leaf_ids[node_id]
        return leaf_label(self.snap, tid, self.known.get(tid))

    def node(self, node_id):
        """The Node `build(snapshot)` would give for `node_id` (KeyError if there is none)."""
        found = self._nodes.get(node_id)
        if found is not None:
            return found
        rec = self._record(node_id)
        if rec is None and node_id not in self._leaf_ids:
            raise KeyError(node_id)
        if self._seen is None:   # one pass over the records, on the first node asked for
            self._seen = values_seen(self.snap, self.snap.records)
        values, metas = self._seen
        if rec is not None:
            found = _op_node(self.snap, rec, self.ids, values, self.snap.grads)
        else:
            tid = self._leaf_ids[node_id]
            found = _leaf(self.snap, node_id, tid, self.known.get(tid), values, metas,
                          self.snap.grads)
        if len(self._nodes) > 4096:
            self._nodes.clear()
        self._nodes[node_id] = found
        return found


def leaf_label(snap, tid, obj):
    """How a leaf is named: a Variable by its path or name, a tensor by its name, else its kind."""
    if isinstance(obj, Variable):
        return str(obj._path or obj.name)  # a layer weight: "dense/kernel", not "kernel"
    kind = "watched" if tid in snap.watched else "constant"
    return str(obj._name if obj is not None and obj._name else kind)


def op_args(rec, ids):
    """An op's arguments as its node shows them: the inputs' node ids, Python numbers as text."""
    return tuple(ids[tid] if tid is not None else _literal(v)
                 for v, tid in zip(rec.inputs, rec.in_tids))


def _leaf(snap, node_id, tid, obj, values, metas, grads):
    value = values.get(tid)
    if value is None and obj is not None:
        value = obj._value
    info = value if value is not None else metas.get(tid)
    watched = tid in snap.watched
    if isinstance(obj, Variable):  # "variable, watched" or "variable, not watched" (and why)
        kind = "variable" if watched else "unwatched"
        note = ("" if watched else "trainable=False" if not obj.trainable
                else "watch_accessed_variables=False" if not snap.watch_accessed
                else "no recorded op read it")
    else:
        kind = "watched" if watched else "constant"
        note = ""
    return Node(node_id, kind, leaf_label(snap, tid, obj), _shape(info), _dtype(info), value,
                _array(grads.get(tid)), note=note, tid=tid)


def _op_node(snap, rec, ids, values, grads):
    value = rec.value if rec.value is not None else rec.ans
    info = value
    if not isinstance(value, (np.ndarray, np.generic)):
        value = values.get(rec.out_tid)  # a later record saved it as its input
    args = op_args(rec, ids)
    kind = "stop_gradient" if rec.op.name == "stop_gradient" else "op"
    note = "watched" if rec.out_tid in snap.watched else ""
    return Node(f"n{rec.index}", kind, rec.op.name, _shape(info), _dtype(info), value,
                _array(grads.get(rec.out_tid)), args, (rec.index,), note=note, tid=rec.out_tid)


_LITERALS = {}  # (type, number) -> its text: a long tape repeats the same few literals


def _literal(v):
    if isinstance(v, (np.ndarray, np.generic)) and np.size(v) <= 3:
        return summary(v)
    if hasattr(v, "shape"):
        return f"array{shape_text(v.shape)}"
    if not isinstance(v, (int, float)):
        return type(v).__name__
    key = (type(v), v)  # the type too: True, 1 and 1.0 are equal keys but read differently
    text = _LITERALS.get(key)
    if text is None:
        if len(_LITERALS) > 10_000:
            _LITERALS.clear()
        text = _LITERALS[key] = number(v)
    return text


def _mark_path(nodes, edges, records, target_tids, source_tids):
    floats = [n.tid for n in nodes if n.tid in source_tids and _floating(n.dtype)]
    reach = reach_from(records, floats, floating=True)
    on = reach & ancestors(records, [t for t in target_tids if t in reach])
    for node in nodes:
        node.is_target = node.tid in target_tids
        node.is_source = node.tid in source_tids
        node.on_path = node.tid in on
        node.dimmed = not (node.on_path or node.is_target or node.is_source)
    by_id = {n.id: n for n in nodes}
    for e in edges:
        e.on_path = e.differentiable and by_id[e.src].on_path and by_id[e.dst].on_path
        e.dimmed = not e.on_path


def _title(snap, records):
    kind = " (persistent)" if snap.persistent else ""
    n = len(records)
    text = f"GradientTape{kind}: {n} record{'s' * (n != 1)}, {len(snap.watched)} watched"
    if snap.grads:
        text += "; gradients of the last gradient() call"
    return text


def _notes(snap, records, nodes):
    notes = []
    if snap.freed:
        notes.append("gradient() of this non-persistent tape released its records. To see them "
                     "afterwards, use persistent=True or tk.display.set_options(record=True).")
    elif records and snap.structure_only:
        notes.append("gradient() released the arrays of this non-persistent tape; what is left "
                     "is its structure (ops, shapes, dtypes), kept because a gradient was None.")
    elif not records:
        notes.append("Nothing was recorded: watch a tensor (tape.watch(x)) or use a trainable "
                     "tk.Variable inside the `with` block.")
    elif any(n.kind in ("op", "stop_gradient") and n.value is None for n in nodes):
        notes.append("Some values were not kept; tk.display.set_options(record=True) before "
                     "recording keeps them all.")
    return notes


def _floating(dtype_name):
    return not dtype_name or np.dtype(dtype_name).kind in "fc"


def _shape(info):
    return tuple(info.shape) if hasattr(info, "shape") else (() if info is not None else None)


_DTYPE_NAMES = {}


def _dtype(info):
    dtype = getattr(info, "dtype", None)
    if dtype is None:
        return ""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


def _array(g):
    if g is None:
        return None
    return g._value if isinstance(g, Tensor) else np.asarray(g)
