"""Tracebacks without tapekit's own frames, as TensorFlow and Keras show them.

An error raised inside tapekit (a custom gradient of the wrong shape, a NaN found by
check_numerics, a tape used twice) is about the user's code, but its traceback runs through
tapekit's internals: 70 lines in a notebook, the message at the very bottom. The entry points
where such errors surface (`GradientTape.gradient` and its jacobians, and a `tk.function` call,
which `fit`'s compiled steps are) are wrapped with `filter_traceback`: an exception that leaves one
of them keeps the frames of the user's files (their cell, their custom gradient's function, a
generated program's line) and drops those of tapekit's package, save the one frame of the
wrapper that re-raises it. pytest hides that frame, and so does IPython (Jupyter) unless it
is the last one (`__tracebackhide__`); where it shows, its lines say what was left out and
how to see it. The exception itself (type, message, cause) is untouched.

    tk.debugging.disable_traceback_filtering()   # whole tracebacks, to debug tapekit itself
    tk.debugging.enable_traceback_filtering()    # the default, as in TensorFlow
    tk.debugging.is_traceback_filtering_enabled()

>>> tk.debugging.is_traceback_filtering_enabled()
True
"""
import functools
import os
import types

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_enabled = True


def enable_traceback_filtering():
    """Drop tapekit's own frames from the tracebacks of errors its entry points raise (default).

    >>> tk.debugging.enable_traceback_filtering()
    >>> tk.debugging.is_traceback_filtering_enabled()
    True
    """
    global _enabled
    _enabled = True


def disable_traceback_filtering():
    """Show whole tracebacks, tapekit's frames included (to debug tapekit itself).

    >>> tk.debugging.disable_traceback_filtering()
    >>> tk.debugging.is_traceback_filtering_enabled()
    False
    >>> tk.debugging.enable_traceback_filtering()         # back to the default
    """
    global _enabled
    _enabled = False


def is_traceback_filtering_enabled():
    """True when tracebacks are filtered (`tf.debugging.is_traceback_filtering_enabled`).

    >>> tk.debugging.is_traceback_filtering_enabled()
    True
    """
    return _enabled


def without_internal_frames(tb):
    """The traceback `tb` without the frames whose code lies in tapekit's package."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE):
            kept.append(tb)
        tb = tb.tb_next
    filtered = None
    for t in reversed(kept):
        filtered = types.TracebackType(filtered, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return filtered


def filter_traceback(fn):
    """`fn`, whose exceptions leave with tapekit's frames dropped from their traceback."""
    @functools.wraps(fn)
    def error_handler(*args, **kwargs):
        __tracebackhide__ = True   # pytest, and IPython unless it is the last frame, leave it out
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if not _enabled:
                raise
            yours = without_internal_frames(e.__traceback__)
            # This traceback leaves out tapekit's own frames: the mistake is not in them.
            # To see them, run the cell again after
            # tk.debugging.disable_traceback_filtering()
            raise e.with_traceback(yours)  # noqa: B904
    return error_handler
