"""Fixtures shared by the tests of tapekit/widgets/."""
import pytest

import tapekit as tk


@pytest.fixture
def record():
    """Display recording on (as in a notebook), for the test that asks for it."""
    with tk.display.option_context(record=True):
        yield


@pytest.fixture
def close_widgets():
    """Recording on, and every widget the test made closed after it."""
    ipywidgets = pytest.importorskip("ipywidgets")
    with tk.display.option_context(record=True):
        yield
    ipywidgets.Widget.close_all()
