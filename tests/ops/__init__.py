"""The tests of tapekit/ops/ (a package, so that test_pooling.py, test_activations.py, ... may
share a basename with the tests of tapekit/keras/ under pytest's default import mode)."""
