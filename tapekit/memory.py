"""What a tape holds in memory: its records, and the arrays they keep alive.

    with tk.GradientTape() as tape:
        ...
    tape.memory()        # per op: records, arrays, bytes; text, or a table in Jupyter

A record keeps only what its op's derivative rules read (`save=` in the op table):
tanh keeps its output, matmul its two inputs, add nothing at all. One array is
often kept by several records -- tanh's output is also the next matmul's input --
so bytes are counted once per array buffer (a view counts as the array it views),
under the first record that keeps it.

What `gradient` frees: a non-persistent tape drops its records during `gradient`,
and the arrays that only the tape refers to go with them. Arrays that something
else holds too (a Variable's value, a tensor you kept in a Python variable,
another tape) stay. A persistent tape keeps everything until `del tape`, or
`tape.reset()` inside its `with` block (where TensorFlow allows it).
"""
import sys
from html import escape

import numpy as np

from .record import Record


_ARRAYS = (np.ndarray, np.generic)


class OpMemory:
    """One op's line: how many records, and the arrays (and bytes) first kept by them."""

    def __init__(self, name):
        self.name = name
        self.records = 0
        self.arrays = 0     # distinct array buffers first kept by this op's records
        self.bytes = 0      # their size
        self.reused = 0     # arrays its records keep that an earlier record already counted

    def __repr__(self):
        return (f"OpMemory({self.name!r}, records={self.records}, arrays={self.arrays}, "
                f"bytes={self.bytes}, reused={self.reused})")


class TapeMemory:
    """The report `tape.memory()` returns; prints as text, displays as a table in Jupyter.

    records, arrays, bytes: what the tape's records hold (each array buffer once).
    tape_only_bytes: the part nothing else refers to, freed when the records go.
    frees_on_gradient: what `gradient` frees (tape_only_bytes for a non-persistent tape, else 0).
    ops: one OpMemory per op name, in order of first appearance; by_op: the same by name.
    """

    def __init__(self, tape, ops, arrays, nbytes, tape_only_bytes, display_bytes, held_for_display):
        self.persistent = tape.persistent
        self.display_keeps = bool(held_for_display)
        self.ops = ops
        self.by_op = {row.name: row for row in ops}
        self.records = sum(row.records for row in ops)
        used = bool(getattr(tape, "_used", False)) and not tape.persistent
        self.released = used and self.records == 0  # gradient() ran and let the records go
        self.arrays = arrays
        self.bytes = nbytes
        self.tape_only_bytes = tape_only_bytes
        self.display_bytes = display_bytes  # values and cotangents display keeps (observers)
        keeps_records = self.persistent or self.display_keeps
        self.frees_on_gradient = 0 if keeps_records else tape_only_bytes

    def _lines(self):
        head = (f"GradientTape memory: {self.records} record{'s' * (self.records != 1)} keep "
                f"{self.arrays} array{'s' * (self.arrays != 1)}, {format_bytes(self.bytes)}")
        rows = [(r.name, r.records, r.arrays, format_bytes(r.bytes), r.reused) for r in self.ops]
        notes = []
        if self.records:
            notes.append("Each array counts once, under the first op that keeps it; 'reused' counts "
                         "arrays an op keeps that an earlier record already holds.")
            notes.append(f"Held only by this tape: {format_bytes(self.tape_only_bytes)} (the rest "
                         f"also belongs to Variables, tensors you hold, or other tapes).")
        if self.released:
            notes.append("gradient() has run: this non-persistent tape has released its records.")
        elif self.display_keeps:
            notes.append("Display recording is on (the tape keeps its records for its picture): "
                         "gradient() frees nothing; `del tape` frees "
                         f"{format_bytes(self.tape_only_bytes)}.")
        elif self.persistent:
            notes.append(f"Persistent tape: gradient() frees nothing; `del tape` (or tape.reset() "
                         f"inside its `with` block) frees {format_bytes(self.tape_only_bytes)}.")
        elif self.records:
            notes.append(f"gradient() drops the records and frees {format_bytes(self.frees_on_gradient)} "
                         f"(a non-persistent tape can compute gradients once).")
        if self.display_bytes:
            notes.append(f"Values and gradients kept for display: "
                         f"{format_bytes(self.display_bytes)}.")
        return head, rows, notes

    def __str__(self):
        head, rows, notes = self._lines()
        out = [head]
        if rows:
            width = max(len("op"), *(len(r[0]) for r in rows))
            out.append(f"  {'op':<{width}}  records  arrays       bytes  reused")
            for name, n, arrays, size, reused in rows:
                out.append(f"  {name:<{width}}  {n:>7}  {arrays:>6}  {size:>10}  {reused:>6}")
        return "\n".join(out + notes)

    __repr__ = __str__

    def _repr_html_(self):
        head, rows, notes = self._lines()
        cells = "".join(
            f"<tr><td>{escape(name)}</td><td>{n}</td><td>{arrays}</td><td>{size}</td>"
            f"<td>{reused}</td></tr>" for name, n, arrays, size, reused in rows)
        table = ("<table><tr><th>op</th><th>records</th><th>arrays</th><th>bytes</th>"
                 f"<th>reused</th></tr>{cells}</table>") if rows else ""
        return (f"<div class='tapekit-memory'><b>{escape(head)}</b>{table}"
                + "".join(f"<p>{escape(n)}</p>" for n in notes) + "</div>")


def tape_memory(tape):
    """The TapeMemory report of `tape` (what GradientTape.memory returns)."""
    observers = tape._observers.all   # display keeps things for the tape too
    held = [o.held(tape) for o in observers]
    ops, objects, tape_refs, owner = _collect(_held_records(tape, held))
    # Which buffers does something besides the tape refer to? sys.getrefcount counts every
    # reference; take away the tape's own (records, and views of the buffer that records
    # keep) and our bookkeeping, and what is left comes from outside.
    outside = [n - _OWN_REFS - refs for n, refs in zip(_refcounts(objects), tape_refs)]
    for k, o in enumerate(owner):
        if o != k:
            outside[o] -= 1  # the view objects[k] refers to its buffer through .base
    held_elsewhere = set()
    for k, o in enumerate(owner):
        if outside[k] > 0:
            held_elsewhere.add(o)
    buffers = set(owner)
    nbytes = sum(objects[o].nbytes for o in buffers)
    tape_only = sum(objects[o].nbytes for o in buffers - held_elsewhere)
    display_bytes = _nbytes(a for _, arrays in held for a in arrays)
    keeps = any(o.keeps_released_records for o in observers)
    return TapeMemory(tape, ops, len(buffers), nbytes, tape_only, display_bytes, keeps)


def _held_records(tape, held):
    """The tape's records, and those its observers keep after gradient released them."""
    records = list(tape.record_list)
    ids = {id(r) for r in records}
    for kept, _ in held:
        records += [r for r in kept if id(r) not in ids]
        ids.update(id(r) for r in kept)
    return records


def _collect(records):
    """Per-op rows, plus every array the records refer to (with counts and buffer owners)."""
    rows = {}
    objects, tape_refs, owner = [], [], []
    position = {}  # id(array) -> its index in objects
    counted = set()

    def index_of(a):
        k = position.get(id(a))
        if k is None:
            k = position[id(a)] = len(objects)
            objects.append(a)
            tape_refs.append(0)
            owner.append(k)
        return k

    for rec in map(Record._make, records):
        row = rows.get(rec.op.name)
        if row is None:
            row = rows[rec.op.name] = OpMemory(rec.op.name)
        row.records += 1
        seen = set()
        for a in _saved_arrays(rec):
            k = index_of(a)
            tape_refs[k] += 1
            o = owner[k] = index_of(_buffer_owner(a))
            if o not in counted:
                counted.add(o)
                row.arrays += 1
                row.bytes += objects[o].nbytes
            elif o not in seen:
                row.reused += 1
            seen.add(o)
    return list(rows.values()), objects, tape_refs, owner


def _saved_arrays(rec):
    """The arrays one record keeps: saved inputs, the saved output, array attributes."""
    found = [v for v in rec.inputs if isinstance(v, _ARRAYS)]
    if isinstance(rec.ans, _ARRAYS):
        found.append(rec.ans)
    found += [v for v in rec.attrs.values() if isinstance(v, np.ndarray)]
    return found


def _buffer_owner(a):
    """The array that owns `a`'s memory (NumPy points a view's .base at it)."""
    while isinstance(a, np.ndarray) and isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _refcounts(objects):
    return [sys.getrefcount(a) for a in objects]


# References _refcounts itself sees to an array held only by the `objects` list.
_OWN_REFS = _refcounts([np.empty(1)])[0]


def _nbytes(arrays):
    """Bytes of distinct array buffers among `arrays`."""
    owners = {id(o): o for o in (_buffer_owner(a) for a in arrays) if isinstance(o, _ARRAYS)}
    return sum(o.nbytes for o in owners.values())


def format_bytes(n):
    """1536 -> '1.5 KiB'."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024
        if n < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}"
