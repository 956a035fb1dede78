"""Layers that move values without arithmetic on them: UpSampling2D."""
from ...ops import broadcast_to, reshape
from .arguments import pair
from .base import Layer


class UpSampling2D(Layer):
    """Repeat each row `size[0]` times and each column `size[1]` times: (batch, h, w, c) ->
    (batch, h*size[0], w*size[1], c), nearest-neighbour (`keras.layers.UpSampling2D`).

    It is a reshape, a broadcast and a reshape: the gradient sums each block back to its pixel.

    >>> x = tk.reshape(tk.constant([1.0, 2.0, 3.0, 4.0]), [1, 2, 2, 1])
    >>> tk.reshape(tk.layers.UpSampling2D(2)(x), [4, 4])
    tk.Tensor(
    [[1. 1. 2. 2.]
     [1. 1. 2. 2.]
     [3. 3. 4. 4.]
     [3. 3. 4. 4.]], shape=(4, 4), dtype=float32)
    """

    ndim = 4

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        self.size = pair(size, "size", "UpSampling2D")
        if data_format not in (None, "channels_last"):
            raise ValueError(f"UpSampling2D: only data_format='channels_last' (NHWC) is "
                             f"supported, got {data_format!r}")
        if interpolation != "nearest":
            raise NotImplementedError(f"UpSampling2D: interpolation={interpolation!r} is not "
                                      f"supported yet; use 'nearest'")
        self.data_format, self.interpolation = "channels_last", interpolation
        super().__init__(**kwargs)

    def call(self, inputs):
        b, h, w, c = inputs.shape
        sh, sw = self.size
        y = broadcast_to(reshape(inputs, (b, h, 1, w, 1, c)), (b, h, sh, w, sw, c))
        return reshape(y, (b, h * sh, w * sw, c))

    def compute_output_shape(self, input_shape):
        b, h, w, c = input_shape
        sh, sw = self.size
        return (b, None if h is None else h * sh, None if w is None else w * sw, c)
