"""A replay on tensors, op by op, for when something records the call.

`replay.Program.run_fast` calls the generated program on NumPy arrays: nothing sees its
ops. When a tape or a forward accumulator is active (the tk.function is called inside
`with tk.GradientTape()`, or inside another tk.function that is tracing), the call must be
recorded as eager code would be: each step runs as ops on tensors (program.KINDS' `run`),
so an outer tape can differentiate through the call and an outer tracer records its ops.
"""
import numpy as np

from ..tensor import wrap_array
from .program import KINDS, TensorEnv
from .trace import hold_in_traces


def run_on_tensors(program, arg_tensors):
    """Replay `program` (a replay.Program) on tensors; its result, packed as traced.

    A guard reads its tensor as the Python code did (bool(t), float(t)), so a tk.function
    tracing around this one records that decision too. Callers run transactional programs
    eagerly instead (function.py): undoing writes an outer tape saw is not safe.
    """
    for lock in program.locks:
        lock.acquire()
        hold_in_traces(lock)    # a tk.function tracing this call holds it in its replays
    try:
        return _run(program, arg_tensors)
    finally:
        for lock in reversed(program.locks):
            lock.release()


def _run(program, arg_tensors):
    if program.tensor_consts is None:
        program.tensor_consts = {
            slot: (tensor if tensor is not None else wrap_array(value))
            if isinstance(value, (np.ndarray, np.generic)) else value   # scalars stay weak
            for slot, (value, tensor) in program.consts.items()}
    env = TensorEnv(program.tensor_consts)
    env.update(enumerate(arg_tensors))
    steps, outputs = program.traced   # before merge_common: each op as the tape saw it eagerly
    for step in steps:
        KINDS[type(step)].run(step, env)
    return program.pack([env[s] if is_slot else s for is_slot, s in outputs])
