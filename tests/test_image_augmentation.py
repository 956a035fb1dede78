"""tf.image's random functions (tapekit/image_augmentation.py): what is drawn is TensorFlow's
(a flip with probability 1/2 per image, an offset uniform over the places that fit, a delta in
[-max_delta, max_delta)); seeded draws repeat; the pixels kept carry the gradient."""
import numpy as np
import pytest

import tapekit as tk

BATCH = np.arange(400 * 2 * 3, dtype=np.float32).reshape(400, 2, 3, 1)


def test_each_image_of_a_batch_is_flipped_with_probability_one_half():
    tk.random.set_seed(3)
    out = tk.image.random_flip_left_right(BATCH).numpy()
    flipped = np.all(out == BATCH[:, :, ::-1], axis=(1, 2, 3))
    kept = np.all(out == BATCH, axis=(1, 2, 3))
    assert np.all(flipped ^ kept)                       # each image one or the other, whole
    assert 160 < flipped.sum() < 240                    # 400 fair coins: 200 +- 4 sd
    ups = tk.image.random_flip_up_down(BATCH).numpy()
    assert np.all(np.all(ups == BATCH[:, ::-1], axis=(1, 2, 3)) ^ np.all(ups == BATCH, axis=(1, 2, 3)))


def test_seeded_draws_repeat_and_one_image_flips_whole_or_not_at_all():
    draws = []
    for _ in range(2):
        tk.random.set_seed(7)
        draws.append([tk.image.random_flip_left_right(BATCH[0], seed=1).numpy() for _ in range(20)])
    np.testing.assert_array_equal(np.array(draws[0]), np.array(draws[1]))
    assert {bool(np.all(d == BATCH[0][:, ::-1])) for d in draws[0]} == {True, False}


def test_random_crop_keeps_a_box_that_fits_at_every_offset_and_its_gradient():
    tk.random.set_seed(0)
    grid = np.arange(5 * 6, dtype=np.float32).reshape(5, 6, 1)
    corners = set()
    for _ in range(300):
        crop = tk.image.random_crop(grid, [2, 3, 1]).numpy()
        top, left = divmod(int(crop[0, 0, 0]), 6)
        np.testing.assert_array_equal(crop, grid[top:top + 2, left:left + 3])
        corners.add((top, left))
    assert corners == {(t, l) for t in range(4) for l in range(4)}     # every place it fits
    x = tk.Variable(grid)
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.image.random_crop(x, [2, 3, 1]))
    assert float(tk.reduce_sum(tape.gradient(y, x))) == 6.0            # the 6 pixels kept
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"value.shape \(5, 6, 1\), size \(6, 3, 1\)"):
        tk.image.random_crop(grid, [6, 3, 1])


def test_random_brightness_adds_one_delta_within_max_delta():
    tk.random.set_seed(0)
    deltas = [float(tk.reduce_mean(tk.image.random_brightness(BATCH[:2], 0.5) - BATCH[:2]))
              for _ in range(200)]
    assert -0.5 <= min(deltas) < -0.3 and 0.3 < max(deltas) < 0.5
    with pytest.raises(ValueError, match="max_delta must be non-negative, got -1.0"):
        tk.image.random_brightness(BATCH, -1.0)
