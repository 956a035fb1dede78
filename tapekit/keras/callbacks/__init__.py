"""Callbacks: code that `fit`, `evaluate` and `predict` call at each boundary of the loop.

    history = model.fit(x, y, epochs=50, validation_split=0.2,
                        callbacks=[tk.callbacks.EarlyStopping(patience=3)])
    history.history["val_loss"]         # one number per epoch that ran

`fit` calls `on_train_begin`, then per epoch `on_epoch_begin(epoch)`, per batch
`on_train_batch_begin(batch)` / `on_train_batch_end(batch, logs)`, then
`on_epoch_end(epoch, logs)` with that epoch's numbers (and the `val_` ones), and
`on_train_end`. A callback reaches the model as `self.model`; setting
`self.model.stop_training = True` ends `fit` after the current batch or epoch.
The progress printing is one more callback (`ProgbarLogger`), added when verbose != 0.
"""
from ... import namespaces
from .. import identifiers
from .callback import Callback, History, LambdaCallback
from .callback_list import CallbackList
from .early_stopping import EarlyStopping, LearningRateScheduler
from .progbar import MonitorCallback, ProgbarLogger, format_logs
from .terminate_on_nan import TerminateOnNaN

__all__ = identifiers.exported(globals())   # the names imported above

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
