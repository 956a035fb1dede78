"""TrainingLog: losses (and optional gradient norms) of a training loop (the TrainingMonitor's model).
"""


import numpy as np

from ...display.format import number
from .common import as_array


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
        self.grad_norms = {}     # variable's path -> list of norms (one per logged step with grads)
        self._keys = {}          # id(variable) -> (its series' key, the variable)
        self.metrics = {}        # other keyword values -> list

    def log(self, loss=None, grads=None, *, step=None, epoch=None, variables=None, **metrics):
        """Record one step. `grads`: a list of (gradient, variable) pairs, a dict
        {name: gradient}, or a list of gradients with `variables` giving the names."""
        step = len(self.steps) if step is None else int(step)
        self.steps.append(step)
        self.losses.append(None if loss is None else float(np.asarray(as_array(loss))))
        self.epochs.append(epoch)
        if grads is not None:
            for name, g in _named_grads(grads, variables, self._keys):
                norm = float(np.sqrt(np.sum(np.square(np.asarray(as_array(g), dtype=np.float64)))))
                self.grad_norms.setdefault(name, []).append(norm)
        for k, v in metrics.items():
            self.metrics.setdefault(k, []).append(float(np.asarray(as_array(v))))

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


def _named_grads(grads, variables, keys):
    if isinstance(grads, dict):
        return [(str(k), g) for k, g in grads.items() if g is not None]
    items = list(grads)
    out = []
    for k, item in enumerate(items):
        if isinstance(item, tuple) and len(item) == 2:
            g, v = item
        else:
            g = item
            v = variables[k] if variables is not None else None
        if g is not None:
            out.append((_series_key(v, k, keys), g))
    return out


def _series_key(v, k, keys):
    """A variable's gradient series: keyed by its unique path (`dense/kernel`,
    `dense_1/kernel`: every Dense layer's weight is named `kernel`), else its name (`w:0`);
    a second variable of the same name gets `w:0 (2)`, never the first one's curve."""
    if v is None:
        return f"var{k}"
    got = keys.get(id(v))
    if got is not None:
        return got[0]
    base = str(getattr(v, "_path", None) or getattr(v, "name", None) or f"var{k}")
    taken = {key for key, _ in keys.values()}
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base} ({n})"
    keys[id(v)] = (name, v)    # holding the variable keeps its id its own
    return name
