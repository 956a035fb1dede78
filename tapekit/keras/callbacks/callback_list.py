"""CallbackList: calls a hook of every callback in order (fit's container)."""
from .callback import Callback, History
from .progbar import ProgbarLogger

__all__ = ["CallbackList"]


def pythonify_logs(logs):
    """logs as Keras 3 hands them to callbacks: a new dict sorted by name, numbers as floats
    (values that are not numbers, such as predict's outputs, as they are)."""
    result = {}
    for key, value in sorted((logs or {}).items()):
        try:
            result[key] = float(value)
        except (TypeError, ValueError):
            result[key] = value
    return result


_INDEXED = ("epoch", "batch")    # hooks whose first argument is an epoch or batch index


def _dispatch(name):
    indexed = any(word in name for word in _INDEXED)

    def hook(self, *args):
        if indexed:
            index, logs = args[0], pythonify_logs(args[1] if len(args) > 1 else None)
            for c in self.callbacks:
                getattr(c, name)(index, logs)
        else:
            logs = pythonify_logs(args[0] if args else None)
            for c in self.callbacks:
                getattr(c, name)(logs)
    hook.__name__, hook.__qualname__ = name, f"CallbackList.{name}"
    return hook


class CallbackList:
    """Calls every callback's hook in order: `callbacks.on_epoch_end(epoch, logs)`.

    fit makes one with a History (always) and a ProgbarLogger (when verbose != 0).

    >>> calls = tk.callbacks.CallbackList([tk.callbacks.LambdaCallback(
    ...     on_epoch_end=lambda epoch, logs: print(epoch, logs))])
    >>> calls.on_epoch_end(0, {"loss": 0.5})
    0 {'loss': 0.5}
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        self.callbacks = list(callbacks or [])
        for c in self.callbacks:
            if not isinstance(c, Callback):
                raise TypeError(f"callbacks: expected tk.callbacks.Callback instances, got "
                                f"{type(c).__name__}; wrap a function in "
                                f"tk.callbacks.LambdaCallback(on_epoch_end=...)")
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        self.model, self.params = model, params
        for c in self.callbacks:
            c.set_params(params)
            if model is not None:
                c.set_model(model)

    def __iter__(self):
        return iter(self.callbacks)

    # Each hook of Callback (HOOKS) calls that hook of every callback in order, with the logs
    # as Keras 3 hands them on (pythonify_logs).
    on_train_begin = _dispatch("on_train_begin")
    on_train_end = _dispatch("on_train_end")
    on_epoch_begin = _dispatch("on_epoch_begin")
    on_epoch_end = _dispatch("on_epoch_end")
    on_train_batch_begin = _dispatch("on_train_batch_begin")
    on_train_batch_end = _dispatch("on_train_batch_end")
    on_test_begin = _dispatch("on_test_begin")
    on_test_end = _dispatch("on_test_end")
    on_test_batch_begin = _dispatch("on_test_batch_begin")
    on_test_batch_end = _dispatch("on_test_batch_end")
    on_predict_begin = _dispatch("on_predict_begin")
    on_predict_end = _dispatch("on_predict_end")
    on_predict_batch_begin = _dispatch("on_predict_batch_begin")
    on_predict_batch_end = _dispatch("on_predict_batch_end")
