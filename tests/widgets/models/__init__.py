"""Tests of tapekit/widgets/models/ (a package: test_backprop.py, test_explorer.py and
test_inspector.py share their names with the tests of tapekit/backprop.py and of the views)."""
