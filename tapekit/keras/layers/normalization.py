"""BatchNormalization, LayerNormalization and GroupNormalization (`keras.layers.*`): the first
normalizes each feature over the batch, the second each example over its own features, the
third each example over each group of its channels."""
import numbers
import warnings

from ...ops import (broadcast_to, cast, expand_dims, reduce_mean, reduce_sum, reshape, rsqrt,
                    sqrt, square, stop_gradient, where)
from .. import constraints, initializers, masking, regularizers
from ..backend import EPSILON      # keras.backend.epsilon(), in Keras 3's masked moments
from ..saving.serialization_lib import serialize_keras_object
from .arguments import is_int
from .base import Layer


class BatchNormalization(Layer):
    """Normalize each feature along `axis`: `gamma * (x - mean) / sqrt(var + epsilon) + beta`.

    With `training=True` (and a trainable layer) it uses this batch's mean and variance and
    moves the non-trainable `moving_mean`/`moving_variance` towards them:
    `moving = moving * momentum + batch * (1 - momentum)`. Otherwise (training False or
    None) it uses the moving statistics, as Keras 3 does. A mask (batch, steps) of a
    sequence (from Embedding(mask_zero=True) or Masking) leaves the padded steps out of the
    batch's statistics, and passes on.

    >>> bn = tk.layers.BatchNormalization(momentum=0.5)
    >>> x = tk.constant([[0.0], [2.0]])                 # batch mean 1, variance 1
    >>> bn(x, training=True)
    tk.Tensor(
    [[-0.9995004]
     [ 0.9995004]], shape=(2, 1), dtype=float32)
    >>> bn.moving_mean.numpy(), bn.moving_variance.numpy()   # 0*0.5 + 1*0.5, 1*0.5 + 1*0.5
    (array([0.5], dtype=float32), array([1.], dtype=float32))
    >>> [v.path for v in bn.non_trainable_weights]
    ['batch_normalization/moving_mean', 'batch_normalization/moving_variance']
    """

    _cast_integer_inputs = True
    _supports_masking = True

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        if not isinstance(axis, int):
            raise TypeError(f"BatchNormalization: axis must be an int, got {axis!r}")
        self.axis, self.momentum, self.epsilon = axis, float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        self._inits = (gamma_initializer, beta_initializer, moving_mean_initializer,
                       moving_variance_initializer)
        self._regs = (regularizers.get(gamma_regularizer), regularizers.get(beta_regularizer),
                      constraints.get(gamma_constraint), constraints.get(beta_constraint))
        super().__init__(**kwargs)

    def build(self, input_shape):
        ndim = len(input_shape)
        if not -ndim <= self.axis < ndim:
            raise ValueError(f"BatchNormalization {self.name!r}: axis={self.axis} is out of range "
                             f"for inputs of shape {tuple(input_shape)}")
        axis = self.axis % ndim
        dim = input_shape[axis]
        self._input_axes = {axis: dim}
        self._broadcast = [1] * ndim
        self._broadcast[axis] = dim
        self._reduction_axes = [i for i in range(ndim) if i != axis]
        g_init, b_init, mm_init, mv_init = self._inits
        g_reg, b_reg, g_con, b_con = self._regs
        self.gamma = self.add_weight(shape=(dim,), initializer=g_init, regularizer=g_reg,
                                     constraint=g_con, name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=(dim,), initializer=b_init, regularizer=b_reg,
                                    constraint=b_con, name="beta") if self.center else None
        self.moving_mean = self.add_weight(shape=(dim,), initializer=mm_init, trainable=False,
                                           name="moving_mean")
        self.moving_variance = self.add_weight(shape=(dim,), initializer=mv_init, trainable=False,
                                               name="moving_variance")

    def call(self, inputs, training=None, mask=None):
        keep = masking.step_mask(self, mask, inputs)
        if training and self.trainable:
            mean, variance = self._moments(inputs, keep)
            m = self.momentum
            flat_mean = reshape(stop_gradient(mean), (-1,))
            flat_var = reshape(stop_gradient(variance), (-1,))
            self.moving_mean.assign(self.moving_mean * m + flat_mean * (1.0 - m))
            self.moving_variance.assign(self.moving_variance * m + flat_var * (1.0 - m))
        else:
            mean = reshape(self.moving_mean, self._broadcast)
            variance = reshape(self.moving_variance, self._broadcast)
        y = (inputs - mean) / sqrt(variance + self.epsilon)
        if self.scale:
            y = y * reshape(self.gamma, self._broadcast)
        if self.center:
            y = y + reshape(self.beta, self._broadcast)
        return y

    def _moments(self, inputs, keep):
        """The batch's mean and variance over the reduction axes; with a mask, over the
        entries whose step holds data (each sum over their count + 1e-7, as Keras 3)."""
        axes = self._reduction_axes
        if keep is None:
            mean = reduce_mean(inputs, axis=axes, keepdims=True)
            return mean, reduce_mean(square(inputs - mean), axis=axes, keepdims=True)
        keep = broadcast_to(expand_dims(keep, -1), inputs.shape)
        count = reduce_sum(cast(keep, inputs.dtype), axis=axes, keepdims=True) + EPSILON
        mean = reduce_sum(where(keep, inputs, 0.0), axis=axes, keepdims=True) / count
        variance = reduce_sum(square(where(keep, inputs - mean, 0.0)), axis=axes,
                              keepdims=True) / count
        return mean, variance

    def compute_output_shape(self, input_shape):
        return input_shape

    _keras_only = {"synchronized": False, "renorm": False, "renorm_clipping": None,
                   "renorm_momentum": 0.99}

    def get_config(self):
        g_init, b_init, mm_init, mv_init = self._inits
        g_reg, b_reg, g_con, b_con = self._regs
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                "beta_initializer": initializers.serialize(b_init),
                "gamma_initializer": initializers.serialize(g_init),
                "moving_mean_initializer": initializers.serialize(mm_init),
                "moving_variance_initializer": initializers.serialize(mv_init),
                "beta_regularizer": serialize_keras_object(b_reg),
                "gamma_regularizer": serialize_keras_object(g_reg),
                "beta_constraint": serialize_keras_object(b_con),
                "gamma_constraint": serialize_keras_object(g_con),
                "synchronized": False, "renorm": False, "renorm_clipping": None,
                "renorm_momentum": 0.99}


class LayerNormalization(Layer):
    """Normalize each example over `axis`: `gamma * (x - mean) / sqrt(var + epsilon) + beta`,
    the mean and variance taken over those axes of that example alone.

    `axis` is an int or a list of ints; gamma and beta have the sizes of those axes (sorted,
    as Keras 3 makes them). Nothing depends on the batch, so `training=True` and `False` give
    the same. `rms_scaling=True` (deprecated in Keras 3, kept for its configs) drops beta and
    the centring: `gamma * x / sqrt(var + epsilon)`, var still taken about the mean.

    >>> ln = tk.layers.LayerNormalization(epsilon=0.0)
    >>> ln(tk.constant([[1.0, 3.0], [0.0, 10.0]]))          # each row: mean 0, variance 1
    tk.Tensor(
    [[-1.  1.]
     [-1.  1.]], shape=(2, 2), dtype=float32)
    >>> [v.path for v in ln.weights], ln.axis               # Keras's names; axis now a list
    (['layer_normalization/gamma', 'layer_normalization/beta'], [-1])
    """

    _cast_integer_inputs = True
    _supports_masking = True            # a mask passes through (Keras 3)

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs):
        if isinstance(axis, (list, tuple)) and axis and all(is_int(a) for a in axis):
            axis = [int(a) for a in axis]
        elif is_int(axis):
            axis = int(axis)
        else:
            raise TypeError(f"LayerNormalization: axis must be an int or a non-empty list of "
                            f"ints, got {axis!r}")
        if not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool) \
                or not 0 <= epsilon < float("inf"):
            raise ValueError(f"LayerNormalization: epsilon must be a number >= 0 (it is added to "
                             f"the variance before the square root), got {epsilon!r}")
        if rms_scaling:
            warnings.warn("LayerNormalization(rms_scaling=True) is deprecated in Keras 3: it "
                          "divides by sqrt(variance + epsilon), not by the root mean square.",
                          UserWarning, stacklevel=2)
        self.axis, self.epsilon = axis, float(epsilon)
        self.center, self.scale, self.rms_scaling = center, scale, bool(rms_scaling)
        self._inits = (gamma_initializer, beta_initializer)
        self._regs = (regularizers.get(gamma_regularizer), regularizers.get(beta_regularizer),
                      constraints.get(gamma_constraint), constraints.get(beta_constraint))
        super().__init__(**kwargs)

    def build(self, input_shape):
        ndim, shape = len(input_shape), tuple(input_shape)
        axes = sorted([self.axis] if isinstance(self.axis, int) else self.axis)
        if not all(-ndim <= a < ndim for a in axes):
            raise ValueError(f"LayerNormalization {self.name!r}: axis={self.axis} is out of range "
                             f"for inputs of shape {shape}")
        positions = [a % ndim for a in axes]
        if positions != sorted(set(positions)):     # [1, -1]: twice, or gamma's axes reordered
            raise ValueError(f"LayerNormalization {self.name!r}: axis={self.axis} names an axis "
                             f"twice or mixes negative and non-negative axes out of order for "
                             f"inputs of shape {shape}; write axis={sorted(set(positions))}")
        if any(shape[p] is None for p in positions):
            raise ValueError(f"LayerNormalization {self.name!r}: axis={self.axis} has no fixed "
                             f"size in inputs of shape {shape} (gamma and beta need one)")
        self.axis = axes                            # as Keras 3: a sorted list once built
        self._axes = positions
        self._broadcast = [shape[i] if i in positions else 1 for i in range(ndim)]
        weight_shape = tuple(shape[p] for p in positions)
        g_init, b_init = self._inits
        g_reg, b_reg, g_con, b_con = self._regs
        self.gamma = self.add_weight(shape=weight_shape, initializer=g_init, regularizer=g_reg,
                                     constraint=g_con, name="gamma") \
            if self.scale or self.rms_scaling else None
        self.beta = self.add_weight(shape=weight_shape, initializer=b_init, regularizer=b_reg,
                                    constraint=b_con, name="beta") \
            if self.center and not self.rms_scaling else None

    def call(self, inputs):
        mean = reduce_mean(inputs, axis=self._axes, keepdims=True)
        variance = reduce_mean(square(inputs - mean), axis=self._axes, keepdims=True)
        y = (inputs if self.rms_scaling else inputs - mean) * rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            y = y * reshape(self.gamma, self._broadcast)
        if self.beta is not None:
            y = y + reshape(self.beta, self._broadcast)
        return y

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        g_init, b_init = self._inits
        g_reg, b_reg, g_con, b_con = self._regs
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale, "rms_scaling": self.rms_scaling,
                "beta_initializer": initializers.serialize(b_init),
                "gamma_initializer": initializers.serialize(g_init),
                "beta_regularizer": serialize_keras_object(b_reg),
                "gamma_regularizer": serialize_keras_object(g_reg),
                "beta_constraint": serialize_keras_object(b_con),
                "gamma_constraint": serialize_keras_object(g_con)}


class GroupNormalization(Layer):
    """Split the channels (`axis`) into `groups` and normalize each example over each group
    (its positions and the group's channels): `gamma * (x - mean) / sqrt(var + epsilon) +
    beta`, gamma and beta one per channel (Keras 3's). groups=-1: one group per channel
    (instance normalization); groups=1: like LayerNormalization over all the axes.

    >>> x = tk.constant([[1.0, 3.0, 10.0, 30.0]])
    >>> tk.layers.GroupNormalization(groups=2, epsilon=0.0)(x)     # (1, 3) and (10, 30)
    tk.Tensor([[-1.  1. -1.  1.]], shape=(1, 4), dtype=float32)
    """

    _cast_integer_inputs = True
    _supports_masking = True

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs):
        if not is_int(groups) or (groups < 1 and groups != -1):
            raise ValueError(f"GroupNormalization: groups must be a positive integer or -1 "
                             f"(one group per channel), got {groups!r}")
        if not is_int(axis):
            raise TypeError(f"GroupNormalization: axis must be an int, got {axis!r}")
        self.groups, self.axis, self.epsilon = int(groups), int(axis), float(epsilon)
        self.center, self.scale = center, scale
        self._inits = (gamma_initializer, beta_initializer)
        self._regs = (regularizers.get(gamma_regularizer), regularizers.get(beta_regularizer),
                      constraints.get(gamma_constraint), constraints.get(beta_constraint))
        super().__init__(**kwargs)

    def build(self, input_shape):
        ndim = len(input_shape)
        if not -ndim <= self.axis < ndim:
            raise ValueError(f"GroupNormalization {self.name!r}: axis={self.axis} is out of "
                             f"range for inputs of shape {tuple(input_shape)}")
        self._channel_axis = self.axis % ndim
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined "
                             f"dimension but the layer received an input with shape "
                             f"{tuple(input_shape)}.")
        if self.groups == -1:
            self.groups = channels
        if channels < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number "
                             f"of channels ({channels}).")
        if channels % self.groups:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the "
                             f"number of channels ({channels}).")
        self._broadcast = [channels if i == self._channel_axis else 1 for i in range(ndim)]
        g_init, b_init = self._inits
        g_reg, b_reg, g_con, b_con = self._regs
        self.gamma = self.add_weight(shape=(channels,), initializer=g_init, regularizer=g_reg,
                                     constraint=g_con, name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=(channels,), initializer=b_init, regularizer=b_reg,
                                    constraint=b_con, name="beta") if self.center else None

    def call(self, inputs):
        shape = inputs.shape
        c = self._channel_axis
        # (batch, ..., groups, channels / groups, ...): statistics over all but batch and group
        grouped = reshape(inputs, (*shape[:c], self.groups, shape[c] // self.groups,
                                   *shape[c + 1:]))
        axes = [i for i in range(1, len(grouped.shape)) if i != c]
        mean = reduce_mean(grouped, axis=axes, keepdims=True)
        variance = reduce_mean(square(grouped - mean), axis=axes, keepdims=True)
        y = reshape((grouped - mean) * rsqrt(variance + self.epsilon), shape)
        if self.gamma is not None:
            y = y * reshape(self.gamma, self._broadcast)
        if self.beta is not None:
            y = y + reshape(self.beta, self._broadcast)
        return y

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        g_init, b_init = self._inits
        g_reg, b_reg, g_con, b_con = self._regs
        return {**super().get_config(), "groups": self.groups, "axis": self.axis,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                "beta_initializer": initializers.serialize(b_init),
                "gamma_initializer": initializers.serialize(g_init),
                "beta_regularizer": serialize_keras_object(b_reg),
                "gamma_regularizer": serialize_keras_object(g_reg),
                "beta_constraint": serialize_keras_object(b_con),
                "gamma_constraint": serialize_keras_object(g_con)}
