"""Tests of tapekit/display/ (a package, so that test_summary.py can share its name with
tests/keras/models/test_summary.py)."""
