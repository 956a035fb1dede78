"""Reading a tape for display: its records as display shows them, and questions about them.

Display never changes a tape. What the tape does not keep (every output value, the
cotangents of the last gradient call, the records a non-persistent gradient released)
comes from display's own log of it (tape_log.py). A ShownRecord is a Record with its
position on the tape and that value; the walks below (reach_from, ancestors) answer
"which ids depend on these?" and "which ids do these depend on?".
"""
from collections import namedtuple

import numpy as np

from .. import nest
from ..tensor import Tensor
from .tape_log import log_of


# A record as display shows it: its position on the tape, the Record's fields (record.py),
# and its output value when display recording kept it (else None). To walk records with
# backprop.backward, pass the Records themselves (source_records).
ShownRecord = namedtuple("ShownRecord", "index op in_tids inputs ans attrs out_tid value")


def tape_records(tape):
    """The records to show, as ShownRecords: the tape's own, or what display kept of the ones
    a non-persistent gradient() released: all of them (display recording), or their structure
    without arrays (kept when a requested gradient was None, for tape.explain)."""
    log, records = log_of(tape), source_records(tape)
    shown = log.shown if log.shown_from is records else []
    if len(shown) < len(records):   # records are only appended: wrap the new ones
        values = log.values
        shown = shown + [ShownRecord(i, *rec, values.get(rec[-1]))   # rec[-1]: its out_tid
                         for i, rec in enumerate(records[len(shown):], start=len(shown))]
        log.shown, log.shown_from = shown, records
    return shown


def source_records(tape):
    """The list of Records tape_records shows (the tape's, or the one display kept)."""
    log = log_of(tape)
    if not tape._records:
        for kept in (log.released, log.structure):
            if kept and kept[-1][-1] in tape._tracked:  # its last out_tid: not from before reset()
                return kept
    return tape._records


def last_grads(tape):
    """{tape id: cotangent} of the tape's last gradient call (empty unless display recorded it)."""
    return log_of(tape).grads


def records_freed(tape):
    """True when gradient() of a non-persistent tape released records and display kept none of
    them (every gradient it was asked for was computed, and display recording was off)."""
    log = log_of(tape)
    return (tape._used and not tape._persistent and log.freed > 0 and not tape._records
            and log.released is None and log.structure is None)


def kept_structure_only(tape):
    """True when what is shown of `tape` is the structure display kept after gradient()."""
    log = log_of(tape)
    return not tape._records and log.structure is not None and log.released is None


def index_tape(tape, records, extra=()):
    """({tid: node id}, [leaf tids in order]) for every tensor the records touch."""
    ids = {rec.out_tid: f"n{rec.index}" for rec in records}
    leaves = []

    def add(tid):
        if tid is not None and tid not in ids:
            ids[tid] = f"s{len(leaves)}"
            leaves.append(tid)

    for tid in tape._watched:
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


def values_seen(tape, records):
    """Values and Metas of tape ids, as the records saved them for their rules, and the
    constants' values display recording kept (tape_log.py)."""
    values, metas = dict(log_of(tape).constants), {}
    for rec in records:
        for v, tid in zip(rec.inputs, rec.in_tids):
            if tid is None:
                continue
            if isinstance(v, (np.ndarray, np.generic)):
                values.setdefault(tid, v)
            elif hasattr(v, "shape"):
                metas.setdefault(tid, v)
    return values, metas
