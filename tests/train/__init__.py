"""The tests of tapekit/train/ (a package, so that test_files.py may share a basename with
tests/keras/saving/test_files.py under pytest's default import mode)."""
