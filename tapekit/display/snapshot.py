"""tape -> TapeSnapshot: everything display shows of a tape, read once.

Display is a one-way flow: tape -> snapshot -> model -> output.

    snapshot(tape)              this module: the only place display reads a tape (and
                                display's own log of it, tape_log.py, and its name scopes)
    graph.build(snapshot)       GraphModel: plain nodes and edges (why.py reads the same snapshot)
    dot / html                  DOT and SVG, HTML and text tables, from the model only

A picture used to ask the tape one question at a time (its records, then its gradients,
then whether gradient() freed it, ...), each a new look-up of its log; a snapshot answers
all of them from one read, and nothing after it can reach back to the tape.
Nothing here changes the tape: a snapshot holds the tape's lists and the log's values,
and copies the small sets (watched, tracked) so that a tape still recording cannot change
a snapshot already taken.
"""
from dataclasses import dataclass, field

from ..context import state
from ..writes import WRITES
from .reading import ShownRecord
from .scopes import ranges as scope_ranges
from .tape_log import log_of


@dataclass(frozen=True)
class TapeSnapshot:
    """What display knows about one tape at one moment; see `snapshot`.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.GradientTape() as tape:
    ...     y = x * x
    >>> snap = tk.display.snapshot(tape)
    >>> [r.op.name for r in snap.records], snap.recording, snap.persistent
    (['multiply'], False, False)
    """

    records: list                 # ShownRecords: the records display shows, in order
    source_records: list          # the Records themselves (for backprop.backward's walks)
    constants: dict               # tape id -> value of an untracked tensor a recorded op read
    grads: dict                   # tape id -> cotangent of the last gradient() (if recorded)
    freed: bool                   # gradient() released the records and display kept none
    structure_only: bool          # what is shown is the structure kept for explain
    watched: dict                 # tape id -> the watched Tensor or Variable, in watch order
    tracked: frozenset            # tape ids the tape tracks (watched or computed from them)
    inert: frozenset              # tracked ids no gradient is taken w.r.t. (tape.py)
    persistent: bool
    watch_accessed: bool          # watch_accessed_variables
    recording: bool               # the tape's `with` block is still open
    scopes: list = field(default_factory=list)   # [(scope path, start, end)], outermost
    # Variable writes while the tape recorded: (method, variable tid, name, value tid or None)
    writes: tuple = ()


def snapshot(tape):
    """Read `tape` once: its records (or what display kept of them), values, gradients,
    freed state and name scopes. Everything display draws comes from this.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> snap = tk.display.snapshot(tape)
    >>> [rec.op.name for rec in snap.records], snap.freed
    (['sin', 'multiply'], False)
    """
    if isinstance(tape, TapeSnapshot):
        return tape
    log = log_of(tape)
    sources = tape.record_list
    if not sources:
        for kept in (log.released, log.structure):
            if kept and tape.is_tracked(kept[-1][-1]):  # its last out_tid: not from before reset()
                sources = kept
                break
    shown = log.shown if log.shown_from is sources else []
    if len(shown) < len(sources):   # records are only appended: wrap the new ones
        values = log.values
        shown = shown + [ShownRecord(i, *rec, values.get(rec[-1]))   # rec[-1]: its out_tid
                         for i, rec in enumerate(sources[len(shown):], start=len(shown))]
        log.shown, log.shown_from = shown, sources   # display's cache, on display's side
    freed = (tape.used and not tape.persistent and log.freed > 0 and not tape.record_list
             and log.released is None and log.structure is None)
    structure_only = not tape.record_list and log.structure is not None and log.released is None
    return TapeSnapshot(
        records=shown, source_records=sources, constants=dict(log.constants),
        grads=dict(log.grads), freed=freed, structure_only=structure_only,
        watched=dict(tape.watched), tracked=tape.tracked, inert=tape.inert,
        persistent=tape.persistent, watch_accessed=tape.watch_accessed_variables,
        recording=any(t is tape for t in state.tapes), scopes=scope_ranges(tape, sources),
        writes=tuple(WRITES.get(tape, ())))
