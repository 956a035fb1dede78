"""Why a gradient is None, as data: the reasoning behind tape.explain, with no display.

`why(tape, target, source)` returns (reason, message, node, path); explain.py wraps it
in an `Explanation` that can show itself, and mimebundle.py's pictures use `breaks` to
mark where each source's path breaks. Keeping the reasoning here, below both, is what
lets the picture use it and the answer show a picture without an import cycle.
Like the picture, this reads a tape's snapshot (snapshot.py), never the tape itself:
pass a TapeSnapshot to ask several questions of one reading.
"""
import numpy as np

from ..tensor import Tensor, Variable
from .reading import ancestors, index_tape, out_dtype, reach_from, tensors
from .snapshot import snapshot

REASONS = ("connected", "not_a_tensor", "integer_dtype", "not_trainable",
           "watch_accessed_variables_false", "unwatched_constant", "records_freed",
           "left_tape", "assigned", "stop_gradient", "not_differentiable", "no_path")
SHORT = {"integer_dtype": "integer dtype", "not_trainable": "trainable=False, not watched",
         "watch_accessed_variables_false": "not watched (watch_accessed_variables=False)",
         "unwatched_constant": "constant, not watched", "left_tape": "the value left the tape here",
         "assigned": "assigned to a Variable: not differentiated",
         "stop_gradient": "stop_gradient", "not_differentiable": "op without a gradient",
         "no_path": "reads a plain array: did a value leave the tape?"}
MAX_EXPLAINED = 20  # sources whose break point the picture looks for


def breaks(tape, target, sources):
    """{node id: why} for each given source whose gradient path from the target breaks."""
    if target is None or sources is None:
        return {}
    targets = tensors(target, "target")
    if len(targets) != 1:
        return {}  # several targets: a source may reach one of them and not the other
    marks, snap = {}, snapshot(tape)
    for s in tensors(sources, "sources")[:MAX_EXPLAINED]:
        reason, _, node, _ = why(snap, targets[0], s)
        if node is not None and reason != "connected":
            marks.setdefault(node, SHORT.get(reason, reason))
    return marks


def why(tape, target, source):
    """(reason, message, node, path): see explain.explain and Explanation.
    `tape`: a GradientTape (read once here) or its TapeSnapshot."""
    for role, t in (("target", target), ("source", source)):
        if not isinstance(t, Tensor):
            hint = " (a gradient that came back None?)" if t is None else ""
            return ("not_a_tensor", f"The {role} is {type(t).__name__}{hint}, not a tk.Tensor or "
                    f"tk.Variable; tape.gradient needs tensors.", None, ())
    snap = snapshot(tape)   # from here on, only the snapshot: never the tape
    records = snap.records
    ids, _ = index_tape(snap, records, extra=[source])
    name = _namer(snap, records, ids, {target._tid: target, source._tid: source})
    S, T = name(source._tid), name(target._tid)
    for role, t in (("source", source), ("target", target)):
        if t.dtype.kind not in "fc":
            return ("integer_dtype", f"The {role} {name(t._tid)} has dtype {t.dtype.name}. Gradients "
                    f"exist only for floating dtypes, so tape.gradient returns None (with a warning). "
                    f"Create it as a float, e.g. tk.Variable(3.0) or dtype=tk.float32.",
                    ids.get(t._tid), ())
    produced = {rec.out_tid: rec for rec in records}      # output id -> record
    used = source._tid in produced or any(source._tid in rec.in_tids for rec in records)
    if source._tid not in snap.tracked and not used:
        return _assigned(snap, source, target, S, T, records, ids) or _unwatched(snap, source, S, ids)
    if source._tid not in snap.tracked and source._tid != target._tid:
        return _unwatched(snap, source, S, ids, read_by_recorded_op=True)
    if snap.freed:
        return ("records_freed", "gradient() of this non-persistent tape already released its "
                "records, so there is nothing left to inspect. Record again with "
                "tk.GradientTape(persistent=True), or turn on tk.display.set_options(record=True) "
                "before recording.", None, ())
    if target._tid == source._tid:
        return ("connected", f"The target is the source {S}: its gradient is all ones.",
                None, (ids.get(source._tid),))
    if source._tid in snap.inert:
        return _inert(snap, source, S, produced, name, ids)
    if target._tid not in produced and target._tid not in snap.tracked:
        return _not_recorded(snap, source, target, S, records, name)

    reach = reach_from(records, [source._tid])
    if target._tid in reach:
        floats = reach_from(records, [source._tid], floating=True)
        if target._tid in floats:
            path = _path(records, produced, floats, source._tid, target._tid, ids)
            steps = _steps([ids[t] + (f" ({produced[t].op.name})" if t in produced else "")
                            for t in _ends(path)], len(path))
            return ("connected", f"Connected: the gradient of {T} flows back to {S} along "
                    f"{steps}.{_stopped(records, reach, target, name)}", None,
                    tuple(ids[t] for t in path))
        anc = ancestors(records, [target._tid])
        rec = next(r for r in records if r.out_tid in reach and r.out_tid not in floats
                   and r.out_tid in anc)
        return ("integer_dtype", f"The path from {S} to {T} passes through {name(rec.out_tid)}, whose "
                f"output has dtype {out_dtype(rec).name}: no gradient flows through integer values. "
                f"Keep that computation in floating point.", ids[rec.out_tid], ())

    loose = reach_from(records, [source._tid], differentiable=False)
    if target._tid in loose:
        anc = ancestors(records, [target._tid], differentiable=False)
        for rec in records:   # the first op on a path whose input has no gradient rule
            d = rec.op.differentiable
            if rec.out_tid in anc and any(t in reach and not (d is True or (d and d[i]))
                                          for i, t in enumerate(rec.in_tids)):
                n = name(rec.out_tid)
                if rec.op.name == "stop_gradient":
                    return ("stop_gradient", f"The path from {S} to {T} passes through {n}, "
                            f"which passes the value forward but no gradient backward. Remove the "
                            f"stop_gradient if the gradient should flow.", ids[rec.out_tid], ())
                return ("not_differentiable", f"The path from {S} to {T} passes through {n}, an "
                        f"operation without a gradient (comparisons, logical ops and other "
                        f"integer- or bool-valued results have none).", ids[rec.out_tid], ())
    return (_assigned(snap, source, target, S, T, records, ids)
            or _no_path(snap, source, target, S, T, records, ids, name))


def _stopped(records, reach, target, name):
    """' The path through n1 (stop_gradient) adds nothing ...': the source's other paths to
    the target that a stop_gradient cuts (tape.explain(z, x) for z = stop_gradient(y) + x)."""
    anc = ancestors(records, [target._tid], differentiable=False)
    stops = [name(r.out_tid) for r in records if r.op.name == "stop_gradient"
             and r.out_tid in anc and not reach.isdisjoint(r.in_tids)]
    if not stops:
        return ""
    through = stops[0] if len(stops) == 1 else ", ".join(stops[:-1]) + " and " + stops[-1]
    return f" The path through {through} adds nothing: stop_gradient passes no gradient back."


def _assigned(snap, source, target, S, T, records, ids):
    """The source's value (or one computed from it) was written into a Variable that the
    target reads: TensorFlow's guide lists this cause of None (x1.assign_add(x0); y = x1**2)."""
    if not snap.writes:
        return None
    reach = reach_from(records, [source._tid]) | {source._tid}
    reads = ancestors(records, [target._tid]) | {target._tid}
    for method, var_tid, var_name, value_tid in snap.writes:
        if value_tid in reach and var_tid in reads:
            v = var_name
            if value_tid == source._tid:
                via, src = "", (source._path or source._name if isinstance(source, Variable)
                                else source._name) or "x"
            else:
                via, src = ", through a value computed from it,", "value"
            expr = {"assign": src, "assign_add": f"{v} + {src}", "assign_sub": f"{v} - {src}"}[method]
            return ("assigned", f"{S}{via} was written into the Variable {v!r} by {v}.{method}(...) "
                    f"while the tape recorded, and {T} reads {v}. An assignment is a state change, "
                    f"not an operation: the tape does not differentiate through it (neither does "
                    f"TensorFlow's), so {T} does not depend on {S} and the gradient is None. To "
                    f"differentiate through the update, compute it as an operation and use that "
                    f"tensor: `{expr}` instead of `{v}.{method}({src})` followed by reading {v}. "
                    f"Assign afterwards if {v} must hold the new value.", ids.get(var_tid), ())
    return None


def _namer(snap, records, ids, known):
    """'n3 (multiply)', 's0 (Variable 'x:0')', 's2 (constant)' for a tape id."""
    ops = {rec.out_tid: rec.op.name for rec in records}
    known = {**snap.watched, **known}

    def name(tid):
        node = ids.get(tid, "the tensor")
        if tid in ops:
            return f"{node} ({ops[tid]})"
        obj = known.get(tid)
        if isinstance(obj, Variable):
            return f"{node} (Variable {obj._path or obj.name!r})"
        if obj is not None and obj._name:
            return f"{node} ({'watched tensor' if tid in snap.watched else 'constant'} {obj._name!r})"
        return f"{node} ({'watched tensor' if tid in snap.watched else 'constant'})"
    return name


def _unwatched(snap, source, S, ids, read_by_recorded_op=False):
    node = ids.get(source._tid)  # a leaf of its own: tk.show(tape, target, source) marks it
    if read_by_recorded_op:   # the tape recorded ops on it because another input is watched
        watch = "Call tape.watch(...) on it inside the `with` block"
        if not isinstance(source, Variable):
            reason, what, fix = ("unwatched_constant", "is a constant tensor the tape does not watch",
                                 f"{watch} before using it, or make it a tk.Variable")
        elif not source.trainable:
            reason, what, fix = ("not_trainable", "was created with trainable=False",
                                 f"{watch}, or create it with trainable=True")
        else:
            reason, what, fix = ("watch_accessed_variables_false", "is not watched: the tape was "
                                 "created with watch_accessed_variables=False", watch)
        return (reason, f"{S} {what}. The ops that read it were recorded because another of "
                f"their inputs is watched, but a tape differentiates only with respect to what "
                f"it watches, so tape.gradient returns None for it (as TensorFlow does). {fix}.",
                node, ())
    if isinstance(source, Variable):
        if not source.trainable:
            return ("not_trainable", f"{S} was created with trainable=False, so the tape does not "
                    f"watch it automatically. Call tape.watch(...) on it inside the `with` block, "
                    f"or create it with trainable=True.", node, ())
        if not snap.watch_accessed:
            return ("watch_accessed_variables_false", f"This tape was created with "
                    f"watch_accessed_variables=False, so it watches only what tape.watch(...) "
                    f"names, and {S} was not watched. Call tape.watch(...) on it inside the "
                    f"`with` block.", node, ())
        # The tape cannot tell a Variable the target never uses from one whose value left
        # the tape (x.numpy()): neither was read by a recorded op. The message covers both.
        return ("left_tape", f"{S} is a trainable Variable, but no op read it while this tape was "
                f"recording, so nothing on the tape depends on it. If the target does not use "
                f"it, None is the right answer (unconnected_gradients=\"zero\" gives zeros "
                f"instead). If it should, use it inside the `with` block, as a tensor: x.numpy(), "
                f"float(x) or a NumPy call on np.asarray(x) give plain numbers that no tape "
                f"follows.", None, ())
    return ("unwatched_constant", f"{S} is a constant tensor that the tape does not watch: a tape "
            f"records only operations on watched tensors and trainable Variables. Call "
            f"tape.watch(...) on it inside the `with` block before using it, or make it a "
            f"tk.Variable.", node, ())


def _inert(snap, source, S, produced, name, ids):
    """The source is tracked but inert (tape.py): stop_gradient's output, or computed from
    integer values or stop_gradient's outputs alone. Name the first such value behind it."""
    node, todo, seen = source._tid, [source._tid], set()
    while todo:   # back through inert values, to one that is inert by itself
        tid = todo.pop()
        rec = produced.get(tid)
        if rec is None or rec.op.name == "stop_gradient" or out_dtype(rec).kind not in "fc":
            node = tid
            break
        seen.add(tid)
        todo += [t for t in rec.in_tids if t in snap.inert and t not in seen]
    fix = (f"If you want the gradient with respect to {S}, call tape.watch(...) on it inside the "
           f"`with` block (as in TensorFlow).")
    rec = produced.get(node)
    if rec is not None and rec.op.name == "stop_gradient":
        what = "is" if node == source._tid else f"was computed only from {name(node)}, which is"
        return ("stop_gradient", f"{S} {what} the output of stop_gradient. The tape treats that "
                f"output as a constant it does not track (as TensorFlow's tape does), so "
                f"tape.gradient returns None for it. {fix}", ids.get(node), ())
    leaf = snap.watched.get(node)   # a watched integer tensor or Variable
    dtype = out_dtype(rec).name if rec is not None else leaf.dtype.name if leaf is not None else "integer"
    return ("integer_dtype", f"{S} was computed only from {name(node)}, of dtype {dtype}. A tape "
            f"tracks only floating values (as TensorFlow's does), so nothing computed from integers "
            f"alone is tracked, and tape.gradient returns None for {S}. {fix}", ids.get(node), ())


def _not_recorded(snap, source, target, S, records, name):
    reach = reach_from(records, [source._tid], differentiable=False)
    last = max((r for r in records if r.out_tid in reach), key=lambda r: r.index, default=None)
    after = not records or target._tid > max(r.out_tid for r in records)
    when = ("it was probably computed after the `with` block ended, or "
            if after and not snap.recording else "")
    tail = (f" The last recorded op that depends on {S} is {name(last.out_tid)}: compute the target "
            f"from it with tapekit ops inside the `with` block." if last else "")
    return ("left_tape", f"The target (shape {target.shape}, {target.dtype.name}) was not recorded by "
            f"this tape, so no gradient can flow from it: {when}it was computed from a value that "
            f"left the tape (x.numpy(), float(x), a NumPy call on a plain array), or before "
            f"{S} was watched.{tail}", f"n{last.index}" if last else None, ())


PATH_ENDS = 4  # a longer path is told by its first and last few steps and a count


def _ends(path):
    """The steps of `path` that the message names: all, or the first and last few."""
    n = PATH_ENDS
    return path if len(path) <= 2 * n + 1 else list(path[:n]) + list(path[-n:])


def _steps(names, total):
    """'s0 -> n0 (multiply) -> ...' with '... (k more) ...' for the steps left out."""
    n = PATH_ENDS
    if total <= 2 * n + 1:
        return " -> ".join(names)
    return (" -> ".join(names[:n]) + f" -> ... ({total - 2 * n} more steps) ... -> "
            + " -> ".join(names[n:]))


def _path(records, produced, reach, source_tid, target_tid, ids):
    path, tid = [target_tid], target_tid
    while tid != source_tid:
        rec = produced[tid]
        d = rec.op.differentiable
        for i, t in enumerate(rec.in_tids):
            if t in reach and (d is True or d[i]):
                tid = t
                break
        path.append(tid)
    return path[::-1]


def _no_path(snap, source, target, S, T, records, ids, name):
    anc = ancestors(records, [target._tid], differentiable=False)
    # A constant holding exactly the numbers of a value computed from the source, created
    # after it: that value left the tape (.numpy()) and came back. Compared by their bytes.
    reach = reach_from(records, [source._tid], differentiable=False)
    computed = {}
    for r in records:
        v = r.value if r.value is not None else r.ans
        if r.out_tid in reach and isinstance(v, (np.ndarray, np.generic)) and v.size <= 100_000:
            computed.setdefault((v.shape, v.dtype.str, v.tobytes()), r.out_tid)
    for rec in records:
        if rec.out_tid not in anc:
            continue
        for v, tid in zip(rec.inputs, rec.in_tids):
            if tid is None or tid in snap.tracked or not isinstance(v, (np.ndarray, np.generic)):
                continue  # literals, tracked tensors, and values the record did not save
            twin = computed.get((v.shape, v.dtype.str, v.tobytes()))
            if twin is not None and twin < tid:
                return ("left_tape", f"The path from {S} is cut at {name(tid)}: it holds the same "
                        f"numbers as {name(twin)}, which depends on {S}, but it is a new constant "
                        f"the tape does not track. That is what happens when a value leaves the "
                        f"tape (x.numpy(), a NumPy call on a plain array, tk.constant(y.numpy())) "
                        f"and comes back. Use the tensor itself; tapekit and NumPy functions on "
                        f"tensors are recorded.", ids[tid], ())
    leaves = [name(t) for t in sorted((t for t in anc if ids.get(t, "n").startswith("s")),
                                      key=lambda t: int(ids[t][1:]))]
    deps = ", ".join(leaves) if leaves else "nothing watched"
    # Plain arrays the target's ops read: where a value that left the tape may have come back.
    arrays = [rec for rec in records if rec.out_tid in anc and any(
        tid is None and getattr(v, "ndim", 0) for v, tid in zip(rec.inputs, rec.in_tids))]
    hint = (f" {name(arrays[0].out_tid)} reads a plain NumPy array: if it came from .numpy() or a "
            f"NumPy call on a plain array, the value left the tape there." if arrays else "")
    return ("no_path", f"{T} does not depend on {S}: no recorded operation connects them. "
            f"{T} depends on {deps}.{hint}", f"n{arrays[0].index}" if arrays else None, ())
