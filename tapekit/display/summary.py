"""Summarise a large GraphModel: collapse name scopes and repeated op sequences into boxes.

A tape of thousands of ops is mostly repetition (a loop body, a layer applied
again and again). `collapse` turns, in this order,
1. each outermost name scope into one box,
2. each run of a repeated sequence (ops or scope boxes) into one box "a -> b x2500"
   (seen 3 times or more, or twice when long),
3. if still too large, the middle of what is left into one box,
and keeps every leaf that matters (watched tensors, sources, targets), unless there are
more of them than half of max_nodes (an add_n over 5,000 Variables): then the leaves that
feed one shown node become one box, "5,000 inputs: v0:0 ... v4999:0" (id g<k>, after its
first leaf s<k>); a leaf where the gradient path breaks stays on its own. It works on the
model only, in time linear in the number of nodes, and says in `model.notes` what it
collapsed.
"""
from dataclasses import replace

from .format import clip

MAX_PERIOD = 32    # longest repeated op sequence looked for
MIN_RUN = 16       # a sequence seen only twice is collapsed when it is at least this long
MAX_NOTES = 8      # collapsed boxes listed by name in the notes
NOTE_NAME = 80     # longest box name in a note (a name scope can be any string)
LEAF_NAME = 30     # longest leaf name in the label of a box of leaves


def collapse(model, scope_ranges, max_nodes, total=None):
    """A smaller GraphModel with at most about `max_nodes` nodes. `total`: how many nodes
    the whole picture has (default: the model's; a huge tape's model holds only its ends)."""
    ops = [n for n in model.nodes if n.records]
    leaves = [n for n in model.nodes if not n.records]
    important = {n.id for n in leaves if n.kind != "constant" or n.is_source or n.broken}
    fold = len(important) > max_nodes // 2        # thousands of inputs: box them too
    reserve = max_nodes // 4 if fold else len(important)
    groups = _groups(_units(ops, scope_ranges), max(max_nodes - reserve, 3))

    new_ops, rep, notes = [], {}, []             # rep: old node id -> the id that shows it
    for label, members in groups:
        if label is None:
            new_ops.append(members[0])
            rep[members[0].id] = members[0].id
            continue
        box = _box(label, members)
        new_ops.append(box)
        rep.update((m.id, box.id) for m in members)
        notes.append(f"{box.id}: {clip(label, NOTE_NAME)} ({len(members)} records, "
                     f"n{box.records[0]}-n{box.records[-1]})")
    # Constants stay only where they feed an op still shown on its own.
    kept_ids = {n.id for n in new_ops if n.kind != "block"}
    consumers = {}
    for e in model.edges:
        consumers.setdefault(e.src, set()).add(e.dst)
    new_leaves = [n for n in leaves if n.id in important or consumers.get(n.id, set()) & kept_ids]
    rep.update((n.id, n.id) for n in new_leaves)
    if fold:
        new_leaves, leaf_notes = _fold_leaves(new_leaves, model.edges, rep, max(max_nodes // 4, 1))
        notes = leaf_notes + notes
    edges = _merge_edges(model.edges, rep)
    inputs = {}
    for e in edges:
        inputs.setdefault(e.dst, []).append(e.src)
    for box in new_ops:
        if box.kind == "block":
            box.args = tuple(inputs.get(box.id, ()))
    total = len(model.nodes) if total is None else total
    head_note = (f"Summarised: {total} nodes are more than max_nodes={max_nodes}; "
                 f"{total - len(new_leaves) - len(new_ops)} of them are folded into boxes "
                 f"(show everything with max_nodes=None).")
    if len(notes) > MAX_NOTES:
        notes = notes[:MAX_NOTES] + [f"... and {len(notes) - MAX_NOTES} more boxes"]
    return replace(model, nodes=new_leaves + new_ops, edges=edges,
                   notes=model.notes + [head_note] + notes, summarised=True)


def _groups(units, budget):
    """(label, [op nodes]) in record order; label None: one op shown as it is."""
    groups = []
    for start, period, repeats in _segmented_runs(units):
        members = [n for _, unit in units[start:start + period * repeats] for n in unit]
        names = " -> ".join(sym for sym, _ in units[start:start + period])
        if repeats > 1:
            groups.append((f"{names} x{repeats}", members))
        elif len(members) > 1:
            groups.append((names, members))       # one name scope
        else:
            groups.append((None, members))
    if len(groups) > budget:                      # still too many: keep both ends
        head, tail = (budget - 1) // 2, budget - 1 - (budget - 1) // 2
        middle = [n for _, members in groups[head:len(groups) - tail] for n in members]
        groups = groups[:head] + [(f"... {len(middle)} ops ...", middle)] + groups[len(groups) - tail:]
    return groups


def _units(ops, scope_ranges):
    """(symbol, [op nodes]): one unit per outermost name scope, else one per op."""
    units, k = [], 0
    for path, start, end in scope_ranges:
        while k < len(ops) and ops[k].records[0] < start:
            units.append((ops[k].label, [ops[k]]))
            k += 1
        inside = []
        while k < len(ops) and ops[k].records[0] < end:
            inside.append(ops[k])
            k += 1
        if inside:
            units.append((path, inside))
    units.extend((n.label, [n]) for n in ops[k:])
    return units


def _segmented_runs(units):
    """_runs over the units, with each box already made (a huge tape's left-out records,
    graph._gap_boxes) as a run of its own: no repeated sequence reaches across one."""
    out, start = [], 0
    for k, (_, unit) in enumerate(units + [(None, [None])]):
        if unit[0] is None or unit[0].kind == "block":
            out += [(start + i, p, r) for i, p, r in _runs([sym for sym, _ in units[start:k]])]
            if k < len(units):
                out.append((k, 1, 1))
            start = k + 1
    return out


def periodic_label(names, max_period=MAX_PERIOD):
    """'multiply -> add -> tanh x33303' when `names` repeat one sequence of at most
    max_period names (a few more may follow: '+ 1 op'); else None. Linear: one list
    comparison per period tried."""
    for p in range(1, min(max_period, len(names) // 2) + 1):
        repeats, rest = divmod(len(names), p)
        if names[p:len(names) - rest] == names[:len(names) - rest - p]:
            more = f" + {rest} op{'s' * (rest != 1)}" if rest else ""
            return f"{' -> '.join(names[:p])} x{repeats}{more}"
    return None


def _runs(symbols):
    """Cover `symbols` with (start, period, repeats): the longest repetition at each point."""
    codes = {}
    seq = [codes.setdefault(s, len(codes)) for s in symbols]
    n, i, out = len(seq), 0, []
    while i < n:
        best_p, best_k = 1, 1
        for p in range(1, min(MAX_PERIOD, (n - i) // 2) + 1):
            pattern, k = seq[i:i + p], 1
            while seq[i + k * p:i + (k + 1) * p] == pattern:
                k += 1
            if (k >= 3 or p * k >= MIN_RUN) and p * k > best_p * best_k:
                best_p, best_k = p, k
        out.append((i, best_p, best_k))
        i += best_p * best_k
    return out


def _box(label, members):
    last = members[-1]
    records = tuple(r for m in members for r in m.records)
    broken = next((m.broken for m in members if m.broken), "")
    return replace(last, id=f"b{records[0]}", kind="block", label=label, args=(),
                   records=records, is_target=any(m.is_target for m in members),
                   is_source=any(m.is_source for m in members),
                   on_path=any(m.on_path for m in members),
                   dimmed=all(m.dimmed for m in members), broken=broken,
                   note=f"{len(records)} ops; output of n{last.records[-1]}")


def _fold_leaves(leaves, edges, rep, budget):
    """Leaves boxed by the shown node they feed first (one box per wide op; the leaves no op
    reads in one box of their own), at most `budget` boxes and single leaves in all (the
    last box takes the rest). A leaf where the gradient path breaks, or a target, stays as
    it is. Updates `rep`; returns the new leaves and one note per box."""
    first = {}
    for e in edges:                       # in record order: the first op that reads it
        first.setdefault(e.src, rep.get(e.dst))
    groups = {}
    for n in leaves:
        key = None if n.broken or n.is_target else ("feeds", first.get(n.id))
        groups.setdefault(key if key is not None else ("own", n.id), []).append(n)
    groups = list(groups.values())
    if len(groups) > budget:              # still too many: the rest into the last box
        groups = groups[:budget - 1] + [[n for g in groups[budget - 1:] for n in g]]
    new_leaves, notes = [], []
    for members in groups:
        if len(members) == 1:
            new_leaves.append(members[0])
            continue
        box = _leaf_box(members)
        new_leaves.append(box)
        rep.update((m.id, box.id) for m in members)
        notes.append(f"{box.id}: {clip(box.label, NOTE_NAME)} ({box.note})")
    return new_leaves, notes


def _leaf_box(members):
    """One box for many leaves: '5,000 inputs: v0:0 ... v4999:0', shape and dtype if shared."""
    head, last = members[0], members[-1]
    shapes, dtypes = {m.shape for m in members}, {m.dtype for m in members}
    return replace(head, id=f"g{head.id[1:]}", kind="block",
                   label=f"{len(members):,} inputs: {clip(head.label, LEAF_NAME)} ... "
                         f"{clip(last.label, LEAF_NAME)}",
                   shape=shapes.pop() if len(shapes) == 1 else None,
                   dtype=dtypes.pop() if len(dtypes) == 1 else "", value=None, grad=None,
                   is_source=any(m.is_source for m in members),
                   on_path=any(m.on_path for m in members), dimmed=all(m.dimmed for m in members),
                   note=f"{len(members):,} leaves, {head.id} ... {last.id}", tid=None,
                   members=tuple(m.id for m in members))


def _merge_edges(edges, rep):
    """Edges between representatives; parallel edges merge, edges inside a box vanish."""
    merged = {}
    for e in edges:
        src, dst = rep.get(e.src), rep.get(e.dst)
        if src is None or dst is None or src == dst:
            continue
        old = merged.get((src, dst))
        if old is None:
            merged[(src, dst)] = replace(e, src=src, dst=dst)
        else:
            old.is_stop_gradient = old.is_stop_gradient and e.is_stop_gradient
            old.differentiable = old.differentiable or e.differentiable
            old.on_path = old.on_path or e.on_path
            old.dimmed = old.dimmed and e.dimmed
    return list(merged.values())
