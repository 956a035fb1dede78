"""tk.train: save and restore training state (`tf.train.Checkpoint` and its manager).

    ckpt = tk.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    path = ckpt.save("checkpoints/ckpt")          # "checkpoints/ckpt-1", then -2, ...
    ckpt.restore(tk.train.latest_checkpoint("checkpoints"))

The files are tapekit's own (checkpoint.py says what they hold); tapekit refuses a
TensorFlow checkpoint rather than guess at it. TensorFlow's other tf.train names
(tf.train.Example, ...) are not in tapekit: asking for one says so.
"""
from ..namespaces import missing, public_dir
from .checkpoint import Checkpoint, CheckpointLoadStatus  # noqa: F401
from .files import CheckpointReader, latest_checkpoint, load_checkpoint  # noqa: F401
from .manager import CheckpointManager

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "load_checkpoint"]

__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
__getattr__ = missing(__name__)   # a TensorFlow name tapekit refuses says what to use instead
