"""The Callback base and CallbackList (callbacks/callback.py, callback_list.py): every hook is a
method written in the class that has it (issue 44: they were set by loops after the class, so
grep found no `def on_epoch_end`), does nothing until overridden, and CallbackList calls it
on every callback in order with the logs as Keras 3 hands them on."""
import inspect

import numpy as np
import pytest

import tapekit as tk
from tapekit.keras.callbacks.callback import HOOKS

BATCH_HOOKS = [h for h in HOOKS if "batch" in h or "epoch" in h]


@pytest.mark.parametrize("hook", HOOKS + ("on_batch_begin", "on_batch_end"))
def test_each_hook_is_written_in_the_class_with_keras_3s_arguments(hook):
    # found where a reader looks: in the source of the class
    assert f"    def {hook}(self, " in inspect.getsource(tk.callbacks.Callback)
    if hook in HOOKS:
        assert f"    {hook} = _dispatch(" in inspect.getsource(tk.callbacks.CallbackList)
    params = list(inspect.signature(vars(tk.callbacks.Callback)[hook]).parameters)
    # Keras 3.15: on_epoch_end(self, epoch, logs=None), on_train_begin(self, logs=None), ...
    index = ["epoch"] if "epoch" in hook else ["batch"] if "batch" in hook else []
    assert params == ["self", *index, "logs"]


def test_the_hooks_do_nothing_until_overridden_and_the_old_batch_names_are_called():
    seen = []

    class Old(tk.callbacks.Callback):              # a callback written for Keras 2's names
        def on_batch_begin(self, batch, logs=None):
            seen.append(("begin", batch))

        def on_batch_end(self, batch, logs=None):
            seen.append(("end", batch, logs))

    callback = Old()
    for hook in HOOKS:
        args = (3,) if hook in BATCH_HOOKS else ()
        assert getattr(tk.callbacks.Callback(), hook)(*args, {"loss": 1.0}) is None
        getattr(callback, hook)(*args, {"loss": 1.0})
    assert seen == [("begin", 3), ("end", 3, {"loss": 1.0})]


def test_a_callback_list_calls_each_hook_of_every_callback_in_order():
    calls = []

    class Recorder(tk.callbacks.Callback):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

    for hook in HOOKS:
        def record(self, *args, hook=hook):
            calls.append((self.tag, hook, args))
        setattr(Recorder, hook, record)
    callbacks = tk.callbacks.CallbackList([Recorder("a"), Recorder("b")])
    for hook in HOOKS:
        args = (2,) if hook in BATCH_HOOKS else ()
        getattr(callbacks, hook)(*args, {"z": np.float32(0.5), "a": 1})
        # sorted by name, numbers as Python floats (Keras 3's pythonify_logs)
        expected = (*args, {"a": 1.0, "z": 0.5})
        assert calls[-2:] == [("a", hook, expected), ("b", hook, expected)]
        assert [type(v) for v in calls[-1][2][-1].values()] == [float, float]
    assert len(calls) == 2 * len(HOOKS)
