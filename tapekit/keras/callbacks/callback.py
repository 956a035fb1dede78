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

    # The hooks (HOOKS): each does nothing until a subclass overrides it. `logs` holds the
    # numbers so far ({"loss": 0.25, ...}); `epoch` and `batch` count from 0.
    def on_train_begin(self, logs=None):
        """fit starts."""

    def on_train_end(self, logs=None):
        """fit ends (after its last epoch, or when stop_training was set)."""

    def on_epoch_begin(self, epoch, logs=None):
        """An epoch of fit starts."""

    def on_epoch_end(self, epoch, logs=None):
        """An epoch of fit ends: `logs` has the epoch's numbers, the `val_` ones too."""

    def on_train_batch_begin(self, batch, logs=None):
        """A training step starts; calls on_batch_begin, Keras's older name."""
        self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        """A training step ends; calls on_batch_end, Keras's older name."""
        self.on_batch_end(batch, logs)

    def on_batch_begin(self, batch, logs=None):
        """Keras's older name of on_train_batch_begin, still called."""

    def on_batch_end(self, batch, logs=None):
        """Keras's older name of on_train_batch_end, still called."""

    def on_test_begin(self, logs=None):
        """evaluate starts (fit's validation too)."""

    def on_test_end(self, logs=None):
        """evaluate ends."""

    def on_test_batch_begin(self, batch, logs=None):
        """A batch of evaluate starts."""

    def on_test_batch_end(self, batch, logs=None):
        """A batch of evaluate ends."""

    def on_predict_begin(self, logs=None):
        """predict starts."""

    def on_predict_end(self, logs=None):
        """predict ends."""

    def on_predict_batch_begin(self, batch, logs=None):
        """A batch of predict starts."""

    def on_predict_batch_end(self, batch, logs=None):
        """A batch of predict ends: `logs["outputs"]` holds its outputs."""


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
