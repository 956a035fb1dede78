"""Shared by tests/teach: the tiny lesson of docs/write_your_own_lesson.md, and variants of it."""
from pathlib import Path

import pytest

TINY = Path(__file__).resolve().parent / "lesson" / "99_tiny_lesson.md"


@pytest.fixture
def tiny_variant(tmp_path):
    """make(old, new, count=1): a copy of the tiny lesson in tmp_path with `old` replaced by `new`."""
    def make(old, new, count=1):
        text = TINY.read_text(encoding="utf-8")
        assert text.count(old) >= count, f"the tiny lesson no longer holds {old!r}"
        path = tmp_path / TINY.name
        path.write_text(text.replace(old, new, count), encoding="utf-8")
        return path
    return make


@pytest.fixture
def nbgrader_release():
    """release(course, name): the student's version of course/source/<name>/<name>.ipynb, made
    in this process by the preprocessors of nbgrader's `generate_assignment`, in its order and
    configured by the course's nbgrader_config.py (executed, as nbgrader does), except
    SaveCells, which writes the gradebook. nbgrader's refusals raise as they do there.
    Skipped where the [teach] extra is not installed (the unit-only runs on other Pythons);
    the full suite installs it."""
    pytest.importorskip("nbgrader", reason="the [teach] extra (nbgrader) is not installed")
    import nbformat
    from nbgrader.converters import GenerateAssignment
    from nbgrader.preprocessors import SaveCells
    from traitlets.config.loader import PyFileConfigLoader

    def release(course, name):
        config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
        nb = nbformat.read(Path(course) / "source" / name / f"{name}.ipynb", as_version=4)
        resources = {"nbgrader": {"notebook": name, "assignment": name},
                     "metadata": {"path": str(Path(course) / "source" / name)}}
        for kind in GenerateAssignment.class_traits()["preprocessors"].default():
            if kind is not SaveCells:
                nb, resources = kind(config=config).preprocess(nb, resources)
        return nb
    return release
