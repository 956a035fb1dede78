"""Merge layers: combine a list of tensors (Add, Subtract, Multiply, Average, Maximum,
Minimum, Concatenate, Dot) and their functional forms (`tk.layers.add([a, b])`, ...).

    a, b = tk.Input(shape=(4,)), tk.Input(shape=(4,))
    model = tk.Model([a, b], tk.layers.Dense(1)(tk.layers.concatenate([a, b])))

Masked inputs (sequences from Embedding(mask_zero=True) or Masking) merge as in Keras 3: the
output's mask is the OR of the inputs' (none when one input has none; Concatenate joins
them; Dot makes none); Multiply, Maximum and Minimum also read a masked step of one input
as absent, so the other's value is kept there.
"""
from ...ops import (broadcast_to, concat, expand_dims, logical_or, matmul, maximum, minimum,
                    ones, reduce_any, reduce_sum, sqrt, transpose, where)
from .. import masking
from .base import Layer


def _full_mask(mask, x):
    """A (batch, steps) mask spread over x's last axis, or None."""
    return None if mask is None else broadcast_to(expand_dims(mask, -1), x.shape)


class _Merge(Layer):
    _cast_integer_inputs = False
    _supports_masking = True

    def compute_mask(self, inputs, mask=None):
        """The OR of the inputs' masks; None if one of them has none (Keras 3)."""
        mask = self._check_masks(inputs, mask)
        if mask is None or any(m is None for m in mask):
            return None
        out = mask[0]
        for m in mask[1:]:
            out = logical_or(out, m)
        return out

    def _check_masks(self, inputs, mask):
        if mask is None:
            return None
        if not isinstance(mask, (list, tuple)) or len(mask) != len(inputs):
            raise ValueError(f"{type(self).__name__} {self.name!r}: mask must be a list with "
                             f"one mask (or None) per input ({len(inputs)}), got {mask!r:.80}")
        return list(mask)

    def _merge_masked(self, op, inputs):
        """Keras 3's merge for Maximum and Minimum: where one input's step is masked, the
        other's value stands in for it; the output's mask is the OR of the masks, set here."""
        output, output_mask = None, None
        for x in inputs:
            mask = _full_mask(masking.keras_mask(x), x)
            if output is None:
                output, output_mask = x, mask
                continue
            if mask is not None:
                x = where(mask, x, output)
            if output_mask is not None:
                output = where(output_mask, output, x)
            output_mask = logical_or(output_mask, mask) if mask is not None and \
                output_mask is not None else None
            output = op(output, x)
        if output_mask is not None:
            output._keras_mask = reduce_any(output_mask, axis=-1)
        return output

    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"{type(self).__name__} {self.name!r}: expected a list of at least "
                             f"2 tensors, got {type(inputs).__name__}"
                             + (f" of length {len(inputs)}" if isinstance(inputs, (list, tuple)) else ""))
        return list(inputs)

    def call(self, inputs):
        inputs = self._check(inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = self._merge(out, x)
        return out

    def compute_output_shape(self, input_shape):
        shapes = self._check(input_shape)
        out = []
        for dims in zip(*shapes):
            known = [d for d in dims if d is not None and d != 1]
            out.append(known[0] if known else (1 if all(d == 1 for d in dims) else None))
        return tuple(out)


class Add(_Merge):
    """The sum of the inputs.

    >>> tk.layers.Add()([tk.constant([1.0]), tk.constant([2.0]), tk.constant([3.0])])
    tk.Tensor([6.], shape=(1,), dtype=float32)
    """

    def _merge(self, a, b):
        return a + b


class Subtract(_Merge):
    """inputs[0] - inputs[1] (exactly two inputs).

    >>> tk.layers.Subtract()([tk.constant([5.0]), tk.constant([2.0])])
    tk.Tensor([3.], shape=(1,), dtype=float32)
    """

    def _check(self, inputs):
        inputs = super()._check(inputs)
        if len(inputs) != 2:
            raise ValueError(f"Subtract {self.name!r}: expected exactly 2 inputs, got {len(inputs)}")
        return inputs

    def _merge(self, a, b):
        return a - b


class Multiply(_Merge):
    """The elementwise product of the inputs.

    >>> tk.layers.Multiply()([tk.constant([2.0]), tk.constant([3.0])])
    tk.Tensor([6.], shape=(1,), dtype=float32)
    """

    def _merge(self, a, b):
        return a * b

    def call(self, inputs):
        inputs = self._check(inputs)
        found = [masking.keras_mask(x) for x in inputs]
        if all(m is None for m in found):
            return super().call(inputs)
        # Keras 3: a masked step counts as 1 in the product; if every input is masked, the
        # output is 0 where all of them are, and carries the OR of their masks.
        every = all(m is not None for m in found)
        output, output_mask = None, None
        for x, mask in zip(inputs, found):
            if mask is not None:
                mask = _full_mask(mask, x)
                x = where(mask, x, 1.0)
                if every:
                    output_mask = mask if output_mask is None else logical_or(output_mask, mask)
            output = x if output is None else output * x
        if every:
            output = where(output_mask, output, 0.0)
            output._keras_mask = reduce_any(output_mask, axis=-1)
        return output


class Average(Add):
    """The elementwise mean of the inputs.

    >>> tk.layers.Average()([tk.constant([1.0]), tk.constant([4.0])])
    tk.Tensor([2.5], shape=(1,), dtype=float32)
    """

    def call(self, inputs):
        return super().call(inputs) / float(len(inputs))


class Maximum(_Merge):
    """The elementwise maximum of the inputs.

    >>> tk.layers.Maximum()([tk.constant([1.0, 5.0]), tk.constant([4.0, 2.0])])
    tk.Tensor([4. 5.], shape=(2,), dtype=float32)
    """

    def _merge(self, a, b):
        return maximum(a, b)

    def call(self, inputs):
        return self._merge_masked(maximum, self._check(inputs))


class Minimum(_Merge):
    """The elementwise minimum of the inputs.

    >>> tk.layers.Minimum()([tk.constant([1.0, 5.0]), tk.constant([4.0, 2.0])])
    tk.Tensor([1. 2.], shape=(2,), dtype=float32)
    """

    def _merge(self, a, b):
        return minimum(a, b)

    def call(self, inputs):
        return self._merge_masked(minimum, self._check(inputs))


class Concatenate(_Merge):
    """The inputs joined along `axis` (default -1).

    >>> tk.layers.Concatenate()([tk.ones((2, 1)), tk.zeros((2, 3))]).shape
    (2, 4)
    """

    def __init__(self, axis=-1, **kwargs):
        self.axis = axis
        super().__init__(**kwargs)

    def call(self, inputs):
        return concat(self._check(inputs), axis=self.axis)

    def compute_mask(self, inputs, mask=None):
        """The inputs' masks (all True for an input without one), joined along `axis` and
        reduced over the last axis with OR (Keras 3)."""
        mask = self._check_masks(inputs, mask)
        if mask is None or all(m is None for m in mask):
            return None
        full = [ones(x.shape, dtype="bool") if m is None else
                _full_mask(m, x) if len(m.shape) < len(x.shape) else m
                for x, m in zip(inputs, mask)]
        return reduce_any(concat(full, axis=self.axis), axis=-1)

    def compute_output_shape(self, input_shape):
        shapes = self._check(input_shape)
        axis = self.axis % len(shapes[0])
        sizes = [s[axis] for s in shapes]
        out = list(shapes[0])
        out[axis] = None if None in sizes else sum(sizes)
        return tuple(out)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Dot(_Merge):
    """Dot products of two batches of vectors along `axes` (`keras.layers.Dot`); with
    `normalize=True`, of their L2-normalized versions (cosine similarity).

    >>> tk.layers.Dot(axes=1)([tk.constant([[1.0, 2.0]]), tk.constant([[3.0, 4.0]])])
    tk.Tensor([[11.]], shape=(1, 1), dtype=float32)
    """

    def __init__(self, axes, normalize=False, **kwargs):
        self.axes = (axes, axes) if isinstance(axes, int) else tuple(axes)
        self.normalize = normalize
        super().__init__(**kwargs)

    def _check(self, inputs):
        inputs = super()._check(inputs)
        if len(inputs) != 2:
            raise ValueError(f"Dot {self.name!r}: expected exactly 2 inputs, got {len(inputs)}")
        return inputs

    def call(self, inputs):
        a, b = self._check(inputs)
        ax_a, ax_b = (ax % len(x.shape) for ax, x in zip(self.axes, (a, b)))
        if self.normalize:
            a = a / sqrt(reduce_sum(a * a, axis=ax_a, keepdims=True) + 1e-12)
            b = b / sqrt(reduce_sum(b * b, axis=ax_b, keepdims=True) + 1e-12)
        if len(a.shape) == 2 and len(b.shape) == 2:
            return reduce_sum(a * b, axis=1, keepdims=True)
        if len(a.shape) != 3 or len(b.shape) != 3:
            raise ValueError(f"Dot {self.name!r}: supports inputs of rank 2 or 3, got shapes "
                             f"{a.shape} and {b.shape}")
        a = a if ax_a == 2 else transpose(a, [0, 2, 1])      # contract a's last axis ...
        b = b if ax_b == 1 else transpose(b, [0, 2, 1])      # ... with b's middle one
        return matmul(a, b)

    def compute_mask(self, inputs, mask=None):
        return None           # Keras 3: a dot product carries no mask

    def compute_output_shape(self, input_shape):
        sa, sb = self._check(input_shape)
        if len(sa) == 2:
            return (sa[0], 1)
        ax_a, ax_b = (ax % 3 for ax in self.axes)
        return (sa[0], sa[3 - ax_a], sb[3 - ax_b])

    def get_config(self):
        axes = self.axes[0] if self.axes[0] == self.axes[1] else list(self.axes)
        return {**super().get_config(), "axes": axes, "normalize": self.normalize}


def add(inputs, **kwargs):
    """`Add(**kwargs)(inputs)`.

    >>> tk.layers.add([tk.constant([1.0]), tk.constant([2.0])])
    tk.Tensor([3.], shape=(1,), dtype=float32)
    """
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """`Subtract(**kwargs)(inputs)`.

    >>> tk.layers.subtract([tk.constant([3.0]), tk.constant([2.0])])
    tk.Tensor([1.], shape=(1,), dtype=float32)
    """
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """`Multiply(**kwargs)(inputs)`.

    >>> tk.layers.multiply([tk.constant([3.0]), tk.constant([2.0])])
    tk.Tensor([6.], shape=(1,), dtype=float32)
    """
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """`Average(**kwargs)(inputs)`.

    >>> tk.layers.average([tk.constant([3.0]), tk.constant([2.0])])
    tk.Tensor([2.5], shape=(1,), dtype=float32)
    """
    return Average(**kwargs)(inputs)


def maximum_(inputs, **kwargs):
    """`Maximum(**kwargs)(inputs)` (`tk.layers.maximum`).

    >>> tk.layers.maximum([tk.constant([3.0]), tk.constant([2.0])])
    tk.Tensor([3.], shape=(1,), dtype=float32)
    """
    return Maximum(**kwargs)(inputs)


def minimum_(inputs, **kwargs):
    """`Minimum(**kwargs)(inputs)` (`tk.layers.minimum`).

    >>> tk.layers.minimum([tk.constant([3.0]), tk.constant([2.0])])
    tk.Tensor([2.], shape=(1,), dtype=float32)
    """
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """`Concatenate(axis, **kwargs)(inputs)`.

    >>> tk.layers.concatenate([tk.ones((1, 2)), tk.zeros((1, 1))])
    tk.Tensor([[1. 1. 0.]], shape=(1, 3), dtype=float32)
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes, normalize=False, **kwargs):
    """`Dot(axes, normalize, **kwargs)(inputs)`.

    >>> tk.layers.dot([tk.constant([[1.0, 2.0]]), tk.constant([[3.0, 4.0]])], axes=1)
    tk.Tensor([[11.]], shape=(1, 1), dtype=float32)
    """
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
