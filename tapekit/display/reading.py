"""Questions about a tape's snapshot (snapshot.py): node ids, values seen, dependencies.

Nothing here reads a tape: every function takes a TapeSnapshot or its records. A
ShownRecord is a Record with its position on the tape and its output value (when
display recording kept it); the walks below (reach_from, ancestors) answer "which ids
depend on these?" and "which ids do these depend on?".
"""
from collections import namedtuple

import numpy as np

from .. import nest
from ..tensor import Tensor


# A record as display shows it: its position on the tape, the Record's fields (record.py),
# and its output value when display recording kept it (else None). To walk records with
# backprop.backward, pass the Records themselves (source_records).
ShownRecord = namedtuple("ShownRecord", "index op in_tids inputs ans attrs out_tid value")


def index_tape(snap, records, extra=()):
    """({tid: node id}, [leaf tids in order]) for every tensor the records touch."""
    ids = {rec.out_tid: f"n{rec.index}" for rec in records}
    leaves = []

    def add(tid):
        if tid is not None and tid not in ids:
            ids[tid] = f"s{len(leaves)}"
            leaves.append(tid)

    for tid in snap.watched:
        add(tid)
    for rec in records:
        for tid in rec.in_tids:
            if tid not in ids:
                add(tid)
    for t in extra:
        add(t._tid)
    return ids, leaves


def out_dtype(rec):
    value = rec.value if rec.value is not None else rec.ans
    return getattr(value, "dtype", None)


def reach_from(records, tids, differentiable=True, floating=False):
    """Tape ids that depend on `tids`: through differentiable inputs only (what
    backprop.reachable answers for the walk), and float outputs only (floating=True)."""
    reach = set(tids)
    for rec in records:
        op, in_tids, ans, out, value = rec.op, rec.in_tids, rec.ans, rec.out_tid, rec.value
        d = op.differentiable
        if differentiable and not d:
            continue
        if floating and getattr(getattr(value if value is not None else ans, "dtype", None),
                                "kind", "f") not in "fc":
            continue
        if d is True or not differentiable:
            if not reach.isdisjoint(in_tids):
                reach.add(out)
            continue
        for i, tid in enumerate(in_tids):
            if tid in reach and d[i]:
                reach.add(out)
                break
    return reach


def ancestors(records, tids, differentiable=True):
    """Tape ids that `tids` depend on (walking the records backwards)."""
    anc = set(tids)
    for _, op, in_tids, _, _, _, out, _ in reversed(records):   # ShownRecords
        if out in anc:
            d = op.differentiable
            for i, tid in enumerate(in_tids):
                if tid is not None and (not differentiable or d is True or (d and d[i])):
                    anc.add(tid)
    return anc


def tensors(structure, role):
    """The tensors of a target/sources argument (a tensor or a nested structure), or []."""
    if structure is None:
        return []
    items = nest.flatten(structure)
    for t in items:
        if not isinstance(t, Tensor):
            raise TypeError(f"tapekit.display: the {role} must be tk.Tensor or tk.Variable "
                            f"(or a list of them), got {type(t).__name__}")
    return items


def values_seen(snap, records):
    """Values and Metas of tape ids, as the records saved them for their rules, and the
    constants' values display recording kept (tape_log.py)."""
    values, metas = dict(snap.constants), {}
    for rec in records:
        for v, tid in zip(rec.inputs, rec.in_tids):
            if tid is None:
                continue
            if isinstance(v, (np.ndarray, np.generic)):
                values.setdefault(tid, v)
            elif hasattr(v, "shape"):
                metas.setdefault(tid, v)
    return values, metas
