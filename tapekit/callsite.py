"""Where the user's code called into tapekit: the innermost frame outside the package.

Warnings and error reports point there, at the user's line, not at the tapekit line that
noticed the problem.

    >>> from tapekit.callsite import user_frame
    >>> import sys
    >>> user_frame(sys._getframe()).f_code.co_filename == sys._getframe().f_code.co_filename
    True
"""
import sys
import warnings


def user_frame(frame, library=("tapekit",)):
    """The innermost frame at or above `frame` whose module is outside `library` (package
    names), or None."""
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] in library:
        frame = frame.f_back
    return frame


def warn_at_user(message, category):
    """warnings.warn, attributed to the user's line. Shown every time it is called (no
    once-per-line registry): callers that warn once keep their own record of it."""
    frame = user_frame(sys._getframe(1))
    if frame is None:
        warnings.warn(message, category, stacklevel=2)
        return
    module = frame.f_globals.get("__name__")     # None for exec'd code (a doctest): then
    extra = {"module": module} if module else {}  # warn_explicit derives it from the file
    warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno,
                           registry=None, **extra)
