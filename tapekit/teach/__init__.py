"""Tools for instructors: the course's exercises as nbgrader assignments, nbval's rules.

    python -m tapekit.teach build [LESSONS_DIR_OR_FILES ...] [--course build/course]
    python -m tapekit.teach sanitize-path      # the packaged nbval sanitize rules

Nothing here is imported by `import tapekit`. Building a course needs the `[teach]` extra
(`pip install "tapekit[teach]"`: nbgrader, jupytext); see docs/instructors.md and
docs/write_your_own_lesson.md.
"""
from importlib.resources import files as _files


def sanitize_path():
    """The path of tapekit's nbval sanitize rules (for `--nbval-sanitize-with`)."""
    return str(_files(__name__) / "nbval_sanitize.cfg")
