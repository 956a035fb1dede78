"""The Callback base class, History and LambdaCallback (see tk.callbacks)."""
__all__ = ["Callback", "History", "LambdaCallback"]

HOOKS = ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
          "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
          "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
          "on_predict_batch_begin", "on_predict_batch_end")


class Callback:
    """Base class: override the hooks you need; each gets `logs`, a dict of numbers.

    >>> class Count(tk.callbacks.Callback):
    ...     def on_epoch_end(self, epoch, logs=None):
    ...         print(f"epoch {epoch}: loss {logs['loss']:.3f}")
    >>> model = tk.Sequential([tk.layers.Dense(1, kernel_initializer="zeros")])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> _ = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[Count()])
    epoch 0: loss 1.000
    epoch 1: loss 0.922
    """

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params


def _no_op(self, *args, **kwargs):
    pass


for _hook in HOOKS + ("on_batch_begin", "on_batch_end"):
    setattr(Callback, _hook, _no_op)


def _train_batch_begin(self, batch, logs=None):
    self.on_batch_begin(batch, logs)          # Keras's older name, still called


def _train_batch_end(self, batch, logs=None):
    self.on_batch_end(batch, logs)


Callback.on_train_batch_begin = _train_batch_begin
Callback.on_train_batch_end = _train_batch_end


class History(Callback):
    """Records each epoch's logs: `history.history["loss"]` is a list, one float per epoch.
    fit returns it (and keeps it as `model.history`).

    >>> h = tk.callbacks.History()
    >>> h.on_train_begin()
    >>> h.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.75})
    >>> h.history, h.epoch
    ({'loss': [0.5], 'val_loss': [0.75]}, [0])
    """

    def __init__(self):
        super().__init__()
        self.history, self.epoch = {}, []

    def on_train_begin(self, logs=None):
        self.epoch = []
        if self.model is not None:
            self.model.history = self

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


class LambdaCallback(Callback):
    """A callback from functions: LambdaCallback(on_epoch_end=lambda epoch, logs: ...).

    >>> cb = tk.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: print("done", epoch))
    >>> cb.on_epoch_end(3, {})
    done 3
    """

    def __init__(self, **hooks):
        super().__init__()
        for name, fn in hooks.items():
            if name not in HOOKS:
                raise TypeError(f"LambdaCallback: unknown hook {name!r}; the hooks are "
                                f"{', '.join(HOOKS)}")
            setattr(self, name, fn)
