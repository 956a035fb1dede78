"""Plain-Python models behind tapekit's widgets, one module each (no ipywidgets here; STYLE.md 2.6).

- `BackpropModel`: the backward pass of a recorded tape as a list of steps, in the
  order backprop computes them, with the chain rule's numbers at every step.
- `InspectorModel`: every node of a tape (op, inputs, shape, dtype, value, gradient)
  and a finite-difference check of one node's gradient.
- `ExplorerModel`: a function of one or two scalars sampled with its derivatives
  (first by the tape, second by nested tapes) and the tangent at the current point.
- `TrainingLog`: losses (and optional gradient norms) of a training loop.

The models only read the tape. The stepper's steps come from `tapekit.backprop.backward`
itself, the walk `tape.gradient` runs, through its `observe` hook: what each input
receives and holds is backward's own numbers. The stepper adds only the local
derivatives it shows beside them (each rule applied to ones).
"""
from .backprop import BackpropModel, Contribution, Step
from .explorer import ExplorerModel
from .inspector import InspectorModel, NodeInfo
from .training import TrainingLog

__all__ = ["BackpropModel", "Contribution", "ExplorerModel", "InspectorModel", "NodeInfo", "Step",
           "TrainingLog"]
