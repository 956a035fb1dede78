"""Tests of tapekit/widgets/ (a package: tests/widgets/models/ mirrors tapekit/widgets/models/
with file names that tests/widgets/ and tests/ use too)."""
