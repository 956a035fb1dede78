"""Fixtures shared by the tests of tapekit/display/."""
import pytest

import tapekit as tk


@pytest.fixture
def record():
    """Display recording on (as in a notebook), for the test that asks for it."""
    with tk.display.option_context(record=True):
        yield
