"""Layers that move values without arithmetic on them: UpSampling2D, RepeatVector and
ZeroPadding2D."""
from ...ops import broadcast_to, expand_dims, pad, reshape
from .arguments import is_int, pair, positive_int
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


class RepeatVector(Layer):
    """(batch, features) -> (batch, n, features): each vector repeated n times
    (`keras.layers.RepeatVector`, e.g. to feed an encoding to every step of a decoder).

    >>> tk.layers.RepeatVector(2)(tk.constant([[1.0, 2.0]]))
    tk.Tensor(
    [[[1. 2.]
      [1. 2.]]], shape=(1, 2, 2), dtype=float32)
    """

    ndim = 2

    def __init__(self, n, **kwargs):
        if not is_int(n) or n <= 0:
            raise ValueError(f"Argument `n` should be a positive integer. Received: n={n!r}")
        self.n = int(n)
        super().__init__(**kwargs)

    def call(self, inputs):
        b, f = inputs.shape
        return broadcast_to(expand_dims(inputs, 1), (b, self.n, f))

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}


class ZeroPadding2D(Layer):
    """Zeros around each image of NHWC inputs: padding=p (p rows and columns on every
    side), (ph, pw), or ((top, bottom), (left, right)) (`keras.layers.ZeroPadding2D`).

    >>> tk.reshape(tk.layers.ZeroPadding2D(((1, 0), (0, 1)))(tk.ones([1, 1, 1, 1])), [2, 2])
    tk.Tensor(
    [[0. 0.]
     [1. 0.]], shape=(2, 2), dtype=float32)
    """

    ndim = 4

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        self.padding = _padding_pairs(padding)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"ZeroPadding2D: only data_format='channels_last' (NHWC) is "
                             f"supported, got {data_format!r}")
        self.data_format = "channels_last"
        super().__init__(**kwargs)

    def call(self, inputs):
        return pad(inputs, [(0, 0), *self.padding, (0, 0)])

    def compute_output_shape(self, input_shape):
        b, h, w, c = input_shape
        (top, bottom), (left, right) = self.padding
        return (b, None if h is None else h + top + bottom,
                None if w is None else w + left + right, c)

    def get_config(self):
        return {**super().get_config(), "padding": [list(p) for p in self.padding],
                "data_format": self.data_format}


def _padding_pairs(padding):
    """((top, bottom), (left, right)) from p, (ph, pw) or ((top, bottom), (left, right))."""
    if is_int(padding):
        padding = ((padding, padding), (padding, padding))
    if not isinstance(padding, (list, tuple)) or len(padding) != 2:
        raise ValueError(f"`padding` should have two elements. Received: padding={padding}.")
    pairs = []
    for p in padding:
        p = (p, p) if is_int(p) else tuple(p) if isinstance(p, (list, tuple)) else None
        if p is None or len(p) != 2 or not all(is_int(v) and v >= 0 for v in p):
            raise ValueError(f"ZeroPadding2D: `padding` must be an int, a pair of ints or a "
                             f"pair of pairs of non-negative ints. Received: padding={padding}")
        pairs.append(tuple(int(v) for v in p))
    return tuple(pairs)
