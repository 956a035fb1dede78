"""TrainingLog: losses (and optional gradient norms) of a training loop (the TrainingMonitor's model).
"""


import numpy as np

from ...display.format import number
from .common import _arr


# --- training log ----------------------------------------------------------------------------

class TrainingLog:
    """Losses per step (and epoch), with optional gradient norms per variable.

    >>> log = tk.widgets.TrainingLog()
    >>> for loss in [0.75, 0.5, 0.25]:
    ...     log.log(loss=loss, epoch=0)
    >>> log.line(total=10)
    'step 3/10  epoch 0  loss 0.25'
    >>> log.epoch_losses()
    {0: 0.5}
    """

    def __init__(self):
        self.steps = []          # step numbers (0, 1, ...)
        self.losses = []
        self.epochs = []         # epoch of each step (None when not given)
        self.grad_norms = {}     # variable name -> list of norms (one per logged step with grads)
        self.metrics = {}        # other keyword values -> list

    def log(self, loss=None, grads=None, *, step=None, epoch=None, variables=None, **metrics):
        """Record one step. `grads`: a list of (gradient, variable) pairs, a dict
        {name: gradient}, or a list of gradients with `variables` giving the names."""
        step = len(self.steps) if step is None else int(step)
        self.steps.append(step)
        self.losses.append(None if loss is None else float(np.asarray(_arr(loss))))
        self.epochs.append(epoch)
        if grads is not None:
            for name, g in _named_grads(grads, variables):
                norm = float(np.sqrt(np.sum(np.square(np.asarray(_arr(g), dtype=np.float64)))))
                self.grad_norms.setdefault(name, []).append(norm)
        for k, v in metrics.items():
            self.metrics.setdefault(k, []).append(float(np.asarray(_arr(v))))

    def __len__(self):
        return len(self.steps)

    @property
    def last_loss(self):
        for v in reversed(self.losses):
            if v is not None:
                return v
        return None

    def epoch_losses(self):
        """{epoch: mean loss} over the steps logged with an epoch."""
        out = {}
        for e, l in zip(self.epochs, self.losses):
            if e is not None and l is not None:
                out.setdefault(e, []).append(l)
        return {e: float(np.mean(v)) for e, v in out.items()}

    def line(self, total=None):
        """One plain-text progress line for the latest step (deterministic: no timings)."""
        if not self.steps:
            return "no steps logged yet"
        n = len(self.steps)
        head = f"step {n}/{total}" if total else f"step {n}"
        parts = [head]
        if self.epochs[-1] is not None:
            parts.append(f"epoch {self.epochs[-1]}")
        if self.last_loss is not None:
            parts.append(f"loss {number(self.last_loss)}")
        for name, norms in self.grad_norms.items():
            parts.append(f"|grad {name}| {number(norms[-1])}")
        for k, v in self.metrics.items():
            parts.append(f"{k} {number(v[-1])}")
        return "  ".join(parts)


def _named_grads(grads, variables):
    if isinstance(grads, dict):
        return [(str(k), g) for k, g in grads.items() if g is not None]
    items = list(grads)
    out = []
    for k, item in enumerate(items):
        if isinstance(item, tuple) and len(item) == 2:
            g, v = item
            name = getattr(v, "name", f"var{k}")
        else:
            g = item
            v = variables[k] if variables is not None else None
            name = getattr(v, "name", None) or f"var{k}"
        if g is not None:
            out.append((str(name), g))
    return out
