"""tk.function's compiler: trace one call, write it as a Python program, replay the program.

    function.py    tk.function: the Function object, its traces per input signature, retracing
    signature.py   input signatures and TensorSpec: which calls can share a trace
    tracing.py     the Tracer: records one call's ops, variable reads and writes, and a guard on
                   each Python decision the call made from a tensor's value
    codegen.py     the program, as readable Python source; every identifier made by a
                   Namespace, user text only in inert comments
    replay.py      Program: runs the compiled source, checks the guards, retraces when one fails
    concrete.py    get_concrete_function: one trace, for one signature
"""
from .function import Function, function
from .signature import TensorSpec

__all__ = ["Function", "TensorSpec", "function"]
