"""tk.function: trace one call, write it as a Python program, replay the program.

Read in this order:

    function.py       tk.function: the Function object, its traces per input signature and
                      per path, retracing
    signature.py      input signatures and TensorSpec: which calls can share a trace
    trace.py          the Tracer: records one call's ops, variable reads and writes, and a
                      guard on each Python decision the call made from a tensor's value
    steps.py          each kind of step a trace is made of (Op, Read, Assign, Update, Check,
                      Guard, Print) in one place: its record, its line of the program (emit)
                      and its run on tensors (run); GuardFailed, what a replay raises
    passes.py         the analyses, once: live values, constant folding, late guards, donors
    program.py        Program: the passes applied, the source written (`generate`), the
                      replays: on NumPy arrays (all or nothing after a late guard) and op by
                      op on tensors, for when a tape records the call
    codegen.py        the program's text: identifiers (Namespace), literals, inert comments,
                      compile
    concrete.py       get_concrete_function: one trace, for one signature, and its graph view
    pycall.py         tk.py_function: Python a program calls back at every replay (a Call step)
    autograph.py      tk.autograph.to_code: the source a tk.function runs

The package is named `compiler`, not `function`: `tk.function` is the public function
`function` (from function.py), and `tapekit/function/` would be shadowed by it as an
attribute of tapekit, so `import tapekit.function.trace as t` and mock.patch paths such as
"tapekit.function.trace.Tracer" would break.
"""
from .function import Function, function
from .pycall import init_scope, py_function
from .signature import TensorSpec

__all__ = ["Function", "TensorSpec", "function", "init_scope", "py_function"]
