"""Tests of tapekit/keras/layers/. A package: test_base, test_config, test_conv and test_shapes
share their basenames with tests of other packages."""
