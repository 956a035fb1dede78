"""TerminateOnNaN: stop fit at the first batch whose loss is NaN or infinite (Keras 3's callback)."""
import math

from .callback import Callback

__all__ = ["TerminateOnNaN"]


class TerminateOnNaN(Callback):
    """Stop training at the end of the first batch whose `loss` is NaN or infinite.

    By default it prints "Batch 1: Invalid loss, terminating training" and sets
    `model.stop_training`: fit ends after that batch as it ends any epoch (the epoch's
    numbers, its validation and every callback's `on_train_end` still run, as in Keras 3.15).
    With `raise_error=True` it raises RuntimeError instead, so fit stops at once and no
    `on_train_end` runs (Keras's way to keep a checkpoint or a backup as it was).
    The loss it reads is the batch's `logs["loss"]`: the mean so far in this epoch, so a
    NaN stays there for the rest of the epoch.

    >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="ones")])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> x, y = np.ones((4, 1)), np.array([[1.0], [np.nan], [1.0], [1.0]])
    >>> history = model.fit(x, y, batch_size=1, epochs=3, shuffle=False, verbose=0,
    ...                     callbacks=[tk.callbacks.TerminateOnNaN()])
    Batch 1: Invalid loss, terminating training
    >>> history.history["loss"], int(model.optimizer.iterations)   # one epoch, two steps
    ([nan], 2)
    """

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None or math.isfinite(loss):
            return
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: "
                               f"{loss}. Terminating training immediately.")
        print(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True
