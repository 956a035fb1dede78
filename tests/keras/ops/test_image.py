"""keras.ops.image (tapekit/keras/ops/image.py): resize and extract_patches."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import numerical_jacobian, reverse_jacobian

ops = tk.keras.ops

# --- cases
IMG = "np.arange(16, dtype='float32').reshape(1, 4, 4, 1)"
CASES = {
    "resize down": f"ops.image.resize({IMG}, (2, 3))",
    "resize up": "ops.image.resize(np.arange(4, dtype='float32').reshape(1, 2, 2, 1), (3, 4))",
    "resize uint8 rounds": "ops.image.resize(np.arange(16, dtype='uint8').reshape(1, 4, 4, 1), (2, 3))",
    "resize nearest uint8": "ops.image.resize(np.arange(16, dtype='uint8').reshape(1, 4, 4, 1), (2, 3), interpolation='nearest')",
    "resize one image": "ops.image.resize(np.arange(16, dtype='float32').reshape(4, 4, 1), (2, 2))",
    "resize channels_first": "ops.image.resize(np.arange(32, dtype='float32').reshape(1, 2, 4, 4), (2, 2), data_format='channels_first')",
    "resize float64": "ops.image.resize(np.arange(9.0).reshape(1, 3, 3, 1) / 7, (2, 2))",
    "patches": "ops.image.extract_patches(np.arange(32, dtype='float32').reshape(1, 4, 4, 2), 2)",
    "patches same": f"ops.image.extract_patches({IMG}, (3, 3), strides=(2, 2), padding='same')",
    "patches strides 1": f"ops.image.extract_patches({IMG}, 3, strides=1)",
    "patches dilated": "ops.image.extract_patches(np.arange(25, dtype='float32').reshape(1, 5, 5, 1), 2, strides=1, dilation_rate=2)",
    "patches one image": "ops.image.extract_patches(np.arange(16, dtype='float32').reshape(4, 4, 1), 2)",
    "patches int": "ops.image.extract_patches(np.arange(16, dtype='int32').reshape(1, 4, 4, 1), 2)",
    "patches channels_first": "ops.image.extract_patches(np.arange(32, dtype='float32').reshape(1, 2, 4, 4), 2, data_format='channels_first')",
    "patches rectangular same": "ops.image.extract_patches(np.arange(30, dtype='float32').reshape(1, 5, 6, 1), (2, 3), strides=(2, 2), padding='same')",
}
# --- end of cases

# --- Keras's answers (Keras 3.15.1, tools/keras_interop/ops_values.py)
KERAS = {'patches': ['tensor', 'float32', [1, 2, 2, 8],
             [[[[0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0],
                [4.0, 5.0, 6.0, 7.0, 12.0, 13.0, 14.0, 15.0]],
               [[16.0, 17.0, 18.0, 19.0, 24.0, 25.0, 26.0, 27.0],
                [20.0, 21.0, 22.0, 23.0, 28.0, 29.0, 30.0, 31.0]]]]],
 'patches channels_first': ['tensor', 'float32', [1, 8, 2, 2],
                            [[[[0.0, 2.0], [8.0, 10.0]], [[16.0, 18.0], [24.0, 26.0]],
                              [[1.0, 3.0], [9.0, 11.0]], [[17.0, 19.0], [25.0, 27.0]],
                              [[4.0, 6.0], [12.0, 14.0]], [[20.0, 22.0], [28.0, 30.0]],
                              [[5.0, 7.0], [13.0, 15.0]], [[21.0, 23.0], [29.0, 31.0]]]]],
 'patches dilated': ['tensor', 'float32', [1, 3, 3, 4],
                     [[[[0.0, 2.0, 10.0, 12.0], [1.0, 3.0, 11.0, 13.0], [2.0, 4.0, 12.0, 14.0]],
                       [[5.0, 7.0, 15.0, 17.0], [6.0, 8.0, 16.0, 18.0], [7.0, 9.0, 17.0, 19.0]],
                       [[10.0, 12.0, 20.0, 22.0], [11.0, 13.0, 21.0, 23.0],
                        [12.0, 14.0, 22.0, 24.0]]]]],
 'patches int': ['tensor', 'int32', [1, 2, 2, 4],
                 [[[[0, 1, 4, 5], [2, 3, 6, 7]], [[8, 9, 12, 13], [10, 11, 14, 15]]]]],
 'patches one image': ['tensor', 'float32', [2, 2, 4],
                       [[[0.0, 1.0, 4.0, 5.0], [2.0, 3.0, 6.0, 7.0]],
                        [[8.0, 9.0, 12.0, 13.0], [10.0, 11.0, 14.0, 15.0]]]],
 'patches rectangular same': ['tensor', 'float32', [1, 3, 3, 6],
                              [[[[0.0, 1.0, 2.0, 6.0, 7.0, 8.0], [2.0, 3.0, 4.0, 8.0, 9.0, 10.0],
                                 [4.0, 5.0, 0.0, 10.0, 11.0, 0.0]],
                                [[12.0, 13.0, 14.0, 18.0, 19.0, 20.0],
                                 [14.0, 15.0, 16.0, 20.0, 21.0, 22.0],
                                 [16.0, 17.0, 0.0, 22.0, 23.0, 0.0]],
                                [[24.0, 25.0, 26.0, 0.0, 0.0, 0.0],
                                 [26.0, 27.0, 28.0, 0.0, 0.0, 0.0],
                                 [28.0, 29.0, 0.0, 0.0, 0.0, 0.0]]]]],
 'patches same': ['tensor', 'float32', [1, 2, 2, 9],
                  [[[[0.0, 1.0, 2.0, 4.0, 5.0, 6.0, 8.0, 9.0, 10.0],
                     [2.0, 3.0, 0.0, 6.0, 7.0, 0.0, 10.0, 11.0, 0.0]],
                    [[8.0, 9.0, 10.0, 12.0, 13.0, 14.0, 0.0, 0.0, 0.0],
                     [10.0, 11.0, 0.0, 14.0, 15.0, 0.0, 0.0, 0.0, 0.0]]]]],
 'patches strides 1': ['tensor', 'float32', [1, 2, 2, 9],
                       [[[[0.0, 1.0, 2.0, 4.0, 5.0, 6.0, 8.0, 9.0, 10.0],
                          [1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 9.0, 10.0, 11.0]],
                         [[4.0, 5.0, 6.0, 8.0, 9.0, 10.0, 12.0, 13.0, 14.0],
                          [5.0, 6.0, 7.0, 9.0, 10.0, 11.0, 13.0, 14.0, 15.0]]]]],
 'resize channels_first': ['tensor', 'float32', [1, 2, 2, 2],
                           [[[[2.5, 4.5], [10.5, 12.5]], [[18.5, 20.5], [26.5, 28.5]]]]],
 'resize down': ['tensor', 'float32', [1, 2, 3, 1],
                 [[[[2.1666665077209473], [3.5], [4.833333492279053]],
                   [[10.166666984558105], [11.5], [12.833333969116211]]]]],
 'resize float64': ['tensor', 'float64', [1, 2, 2, 1],
                    [[[[0.1428571492433548], [0.3571428656578064]],
                      [[0.7857142686843872], [1.0]]]]],
 'resize nearest uint8': ['tensor', 'uint8', [1, 2, 3, 1], [[[[4], [6], [7]], [[12], [14], [15]]]]],
 'resize one image': ['tensor', 'float32', [2, 2, 1], [[[2.5], [4.5]], [[10.5], [12.5]]]],
 'resize uint8 rounds': ['tensor', 'uint8', [1, 2, 3, 1], [[[[2], [4], [5]], [[10], [12], [13]]]]],
 'resize up': ['tensor', 'float32', [1, 3, 4, 1],
               [[[[0.0], [0.25], [0.75], [1.0]], [[1.0], [1.25], [1.75], [2.0]],
                 [[2.0], [2.25], [2.75], [3.0]]]]]}
# --- end of Keras's answers


@pytest.mark.parametrize("label", sorted(CASES))
def test_the_answer_is_keras_3s(label, keras_answer):
    keras_answer(CASES[label], KERAS[label])


def test_every_case_has_keras_3s_answer():
    assert sorted(KERAS) == sorted(CASES), "run tools/keras_interop/ops_values.py in the TF venv"


X = np.arange(2 * 4 * 5 * 1, dtype="float64").reshape(2, 4, 5, 1) / 10


def test_resize_passes_the_gradient_to_the_pixels_read():
    # bilinear works in float32 (as TensorFlow's resize does, even for a float64 image): a
    # linear map, so differences with a wide step are exact but for float32's rounding
    f = lambda t: ops.image.resize(t, (3, 2))       # noqa: E731
    for tape, numeric in zip(reverse_jacobian(f, [X]), numerical_jacobian(f, [X], eps=1e-2)):
        np.testing.assert_allclose(tape, numeric, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("f", [
    lambda t: ops.image.resize(t, (6, 7), interpolation="nearest"),
    lambda t: ops.image.extract_patches(t, 2, strides=1) ** 2,
    lambda t: ops.image.extract_patches(t, (3, 2), strides=2, padding="same") ** 2,
], ids=["resize nearest", "patches", "patches same"])
def test_the_gradient_through_a_tape_is_the_finite_differences(f):
    for tape, numeric in zip(reverse_jacobian(f, [X]), numerical_jacobian(f, [X])):
        np.testing.assert_allclose(tape, numeric, rtol=1e-6, atol=1e-8)


def test_what_tapekit_lacks_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match=r"interpolation must be one of \('bilinear', 'nearest'\)"):
        ops.image.resize(np.ones((1, 2, 2, 1)), (3, 3), interpolation="bicubic")
    with pytest.raises(NotImplementedError, match="crop or pad the images first"):
        ops.image.resize(np.ones((1, 2, 2, 1)), (3, 3), crop_to_aspect_ratio=True)
    with pytest.raises(NotImplementedError, match="antialias"):       # Keras 3 has both
        ops.image.resize(np.ones((1, 4, 4, 1)), (2, 2), antialias=True)
    with pytest.raises(ValueError, match=r"a 3x3 patch .* does not fit in a 2x2 image"):
        ops.image.extract_patches(np.ones((1, 2, 2, 1)), 3)
    with pytest.raises(ValueError, match=r"images must have 3 axes .* or 4"):
        ops.image.resize(np.ones((2, 2)), (3, 3))
