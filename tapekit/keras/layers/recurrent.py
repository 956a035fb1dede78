"""Recurrent layers: SimpleRNN, LSTM and GRU over (batch, time, features) inputs.

Each layer runs its cell once per time step in a Python loop, so a GradientTape records
the unrolled steps: the gradient reaches the first step through every later one
(backpropagation through time), and the tape's picture shows one block per step.

The weights are Keras 3's, in its layout, so `set_weights` takes Keras's arrays and a
weights file holds the same tensors:

    layer     kernel              recurrent_kernel     bias
    SimpleRNN (features, u)       (u, u)               (u,)
    LSTM      (features, 4u)      (u, 4u)              (4u,)       gates i, f, c, o
    GRU       (features, 3u)      (u, 3u)              (2, 3u)     gates z, r, h (reset_after)

    >>> tk.random.set_seed(0)
    >>> lstm = tk.layers.LSTM(4, return_sequences=True, return_state=True)
    >>> seq, h, c = lstm(tk.ones((2, 5, 3)))
    >>> seq.shape, h.shape, c.shape
    ((2, 5, 4), (2, 4), (2, 4))

A mask (batch, steps) of True for data and False for padding (`mask=`, or the `_keras_mask`
of an input from Embedding(mask_zero=True) or Masking) skips steps as Keras 3 does: a masked
step keeps the states, and its output is the previous step's output (zeros before the first
step with data; zeros at every masked step with `zero_output_for_mask=True`). With
`return_sequences=True` the output carries the mask on.
"""
import warnings

import numpy as np

from ... import nest, random
from ...display.format import plain
from ...ops import expand_dims, matmul, ones, stack, where, zeros
from .. import activations, constraints, initializers, masking, regularizers
from ..activations import get_activation
from ..saving.serialization_lib import serialize_keras_object
from .arguments import positive_int
from ..utils.naming import join_path, snake_name
from .base import Layer


class _Cell(Layer):
    """The sublayer that holds a recurrent layer's kernel, recurrent_kernel and bias (its
    owner creates them in its build and runs the steps)."""

    def call(self, inputs):
        raise TypeError(f"{plain(self.name)} holds the weights of its recurrent layer; call "
                        f"the layer")


class SimpleRNNCell(_Cell):
    """SimpleRNN's weights (Keras 3's class name, shown in reprs)."""


class LSTMCell(_Cell):
    """LSTM's weights (Keras 3's class name, shown in reprs)."""


class GRUCell(_Cell):
    """GRU's weights (Keras 3's class name, shown in reprs)."""


class _Recurrent(Layer):
    """What the three layers share: arguments, the time loop, the outputs.

    A subclass sets `_gates` (how many blocks of `units` columns its kernels hold) and
    `_state_names`, and writes `_step(x_t, states) -> (output, new_states)`.
    """

    ndim = 3
    _cast_integer_inputs = True
    _supports_masking = True
    _cell_class = SimpleRNNCell
    _gates = 1
    _state_names = ("h",)

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, seed=None, **kwargs):
        layer = type(self).__name__
        self.units = positive_int(units, "units", layer)
        self.activation = get_activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = kernel_initializer
        self.recurrent_initializer = recurrent_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        for what, rate in (("dropout", dropout), ("recurrent_dropout", recurrent_dropout)):
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
                raise ValueError(f"{layer}: {what} must be a number in [0, 1), got {rate!r}")
        if stateful:
            raise NotImplementedError(f"{layer}: stateful=True is not supported; pass the "
                                      f"last states back in with initial_state=")
        # Keras 3: in training, one mask per call for the inputs (batch, features) and one for
        # the state fed to the recurrent kernel (batch, units), the same at every step.
        self.dropout, self.recurrent_dropout, self.seed = float(dropout), float(recurrent_dropout), seed
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.stateful, self.unroll = False, bool(unroll)   # the loop is always unrolled here
        # The weights live in a sublayer `cell` (named lstm_cell, ...), as in Keras 3: a weights
        # file holds them at layers/lstm/cell/vars/0..2, where Keras 3 writes and reads them.
        self.cell = self._cell_class(name=f"{snake_name(self._cell_class.__name__)[:-5]}_cell",
                                     dtype=kwargs.get("dtype"))
        super().__init__(**kwargs)

    def get_config(self):
        """Keras 3's keys and nested configs (initializers, regularizers, activations): the
        arguments alone would not be JSON once one is an object, nor hold Keras's keys."""
        config = {**super().get_config(), "return_sequences": self.return_sequences,
                  "return_state": self.return_state, "go_backwards": self.go_backwards,
                  "stateful": self.stateful, "unroll": self.unroll,
                  "zero_output_for_mask": self.zero_output_for_mask, "units": self.units,
                  "activation": activations.serialize(self.activation)}
        if hasattr(self, "recurrent_activation"):
            config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config.update({"use_bias": self.use_bias, **{
            key: initializers.serialize(getattr(self, key))
            for key in ("kernel_initializer", "recurrent_initializer", "bias_initializer")}})
        if hasattr(self, "unit_forget_bias"):
            config["unit_forget_bias"] = self.unit_forget_bias
        config.update({key: serialize_keras_object(getattr(self, key)) for key in (
            "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
            "activity_regularizer")})
        config.update({key: serialize_keras_object(getattr(self, key)) for key in (
            "kernel_constraint", "recurrent_constraint", "bias_constraint")})
        config.update({"dropout": self.dropout,
                       "recurrent_dropout": self.recurrent_dropout})
        if hasattr(self, "reset_after"):
            config["reset_after"] = self.reset_after
        return {**config, "seed": self.seed}

    # --- weights: held by `self.cell`, as Keras 3's LSTMCell holds them -------------------------
    kernel = property(lambda self: self.cell.__dict__.get("kernel"))
    recurrent_kernel = property(lambda self: self.cell.__dict__.get("recurrent_kernel"))
    bias = property(lambda self: self.cell.__dict__.get("bias"))

    def _bias_shape(self):
        return (self._gates * self.units,)

    def _bias_initializer(self):
        return self.bias_initializer

    def build(self, input_shape):
        features = input_shape[-1]
        if features is None:
            raise ValueError(f"{type(self).__name__} {self.name!r}: the last axis of the input "
                             f"(features) must be known, got shape {tuple(input_shape)}")
        n, cell = self._gates * self.units, self.cell
        weights = [("kernel", (features, n), self.kernel_initializer, self.kernel_regularizer,
                    self.kernel_constraint),
                   ("recurrent_kernel", (self.units, n), self.recurrent_initializer,
                    self.recurrent_regularizer, self.recurrent_constraint)]
        if self.use_bias:
            weights.append(("bias", self._bias_shape(), self._bias_initializer(),
                            self.bias_regularizer, self.bias_constraint))
        for name, shape, init, reg, constraint in weights:
            var = cell.add_weight(shape=shape, initializer=init, regularizer=reg,
                                  constraint=constraint, name=name)
            var._path = join_path(self.name, cell.name, name)    # Keras 3: lstm/lstm_cell/kernel
            setattr(cell, name, var)
        cell.built = True
        self._input_axes = {-1: features}

    # --- the time loop ------------------------------------------------------------------------
    def __call__(self, inputs=None, initial_state=None, **kwargs):
        # The initial states travel with the inputs, [x, *states], so that in a functional
        # model they are inputs of the node (an encoder's states feeding a decoder), as Keras.
        if initial_state is not None:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            inputs = [inputs, *states]
        return super().__call__(inputs, **kwargs)

    def _maybe_build(self, input_shape):
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        super()._maybe_build(tuple(shapes[0]))

    def call(self, inputs, initial_state=None, training=None, mask=None):
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:]) or None
        batch, steps = inputs.shape[0], inputs.shape[1]
        keep = masking.step_mask(self, mask, inputs, trailing_one=True)   # (batch, steps) or None
        states = self._initial_states(batch, initial_state, inputs.dtype)
        drop = self._mask(training, self.dropout, (batch, inputs.shape[2]), inputs.dtype)
        rec_mask = self._mask(training, self.recurrent_dropout, (batch, self.units), inputs.dtype)
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs = []
        zero = zeros((batch, self.units), dtype=inputs.dtype)
        output = zero                     # no steps: zeros (Keras 3 on TF raises)
        for t in order:
            x = inputs[:, t, :] if drop is None else inputs[:, t, :] * drop
            new_output, new_states = self._step(x, states, rec_mask)
            if keep is None:
                output, states = new_output, new_states
            else:
                # The rows whose step t is masked keep their states; their output is the
                # previous step's (zeros before any data), or zeros (zero_output_for_mask).
                data = expand_dims(keep[:, t], -1)
                output = where(data, new_output, zero if self.zero_output_for_mask else output)
                states = [where(data, new, old) for new, old in zip(new_states, states)]
            outputs.append(output)
        if self.return_sequences:
            output = stack(outputs, axis=1) if outputs else zeros((batch, 0, self.units), inputs.dtype)
        return [output, *states] if self.return_state else output

    def compute_mask(self, inputs, mask=None):
        """The input's mask for the sequence output (return_sequences=True, in the input's
        order also with go_backwards, as Keras 3), none for the last output and the states."""
        mask = nest.flatten(mask)[0] if nest.is_nested(mask) else mask
        out = mask if self.return_sequences else None
        return [out] + [None] * len(self._state_names) if self.return_state else out

    def _auto_mask(self, inputs):
        """Keras 3 reads the input's mask only when the layer is called on the sequence
        alone: given initial_state, the mask of the sequence is not applied (mask= is)."""
        if not isinstance(inputs, (list, tuple)):
            return masking.keras_mask(inputs)
        if masking.keras_mask(inputs[0]) is not None:
            warnings.warn(f"{type(self).__name__} {self.name!r}: its input carries a mask "
                          f"(_keras_mask), which is not applied because initial_state is "
                          f"given (Keras 3 applies none then either); pass mask=... to apply "
                          f"it", stacklevel=4)
        return None

    def _initial_states(self, batch, initial_state, dtype):
        n = len(self._state_names)
        if initial_state is None:
            return [zeros((batch, self.units), dtype=dtype) for _ in range(n)]
        given = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        if len(given) != n:
            raise ValueError(f"{type(self).__name__} {self.name!r}: initial_state needs {n} "
                             f"tensor(s) {list(self._state_names)}, got {len(given)}")
        out = []
        for name, s in zip(self._state_names, given):
            s = self._convert(s)
            if tuple(s.shape) != (batch, self.units):
                raise ValueError(f"{type(self).__name__} {self.name!r}: initial state {name!r} "
                                 f"must have shape (batch, units) = {(batch, self.units)}, got "
                                 f"{tuple(s.shape)}")
            out.append(s)
        return out

    def _mask(self, training, rate, shape, dtype):
        if not training or not rate:
            return None
        return random.dropout(ones(shape, dtype=dtype), rate, seed=self.seed)

    @staticmethod
    def _fed(h, rec_mask):
        return h if rec_mask is None else h * rec_mask

    def _split(self, z):
        u = self.units
        return [z[:, i * u:(i + 1) * u] for i in range(self._gates)]

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, list):       # [inputs, *initial states]
            input_shape = input_shape[0]
        batch, steps = input_shape[0], input_shape[1]
        out = (batch, steps, self.units) if self.return_sequences else (batch, self.units)
        if self.return_state:
            return [out] + [(batch, self.units)] * len(self._state_names)
        return out


class SimpleRNN(_Recurrent):
    """`h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias)`, tanh by default.

    >>> rnn = tk.layers.SimpleRNN(2, kernel_initializer="ones", recurrent_initializer="zeros")
    >>> rnn(tk.ones((1, 3, 1)))          # every step: tanh(1 + 0) = 0.7616
    tk.Tensor([[0.7615942 0.7615942]], shape=(1, 2), dtype=float32)
    """

    def _step(self, x, states, rec_mask=None):
        z = matmul(x, self.kernel) + matmul(self._fed(states[0], rec_mask), self.recurrent_kernel)
        if self.use_bias:
            z = z + self.bias
        h = self.activation(z)
        return h, [h]


class LSTM(_Recurrent):
    """Long short-term memory (Hochreiter & Schmidhuber), Keras 3's gates i, f, c, o:

        i, f, c~, o = split(x_t @ kernel + h @ recurrent_kernel + bias)
        c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(c~)
        h_t = sigmoid(o) * tanh(c_t)

    `unit_forget_bias=True` (the default) starts the forget gate's bias at 1.

    >>> lstm = tk.layers.LSTM(3)
    >>> lstm(tk.zeros((2, 4, 5))).shape, lstm.bias.numpy()[3:6]
    ((2, 3), array([1., 1., 1.], dtype=float32))
    """

    _cell_class = LSTMCell
    _gates = 4
    _state_names = ("h", "c")

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 unit_forget_bias=True, **kwargs):
        self.recurrent_activation = get_activation(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        super().__init__(units, activation=activation, **kwargs)

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, u = initializers.get(self.bias_initializer), self.units

        def forget_ones(shape, dtype=None):
            return np.concatenate([np.asarray(base((u,), dtype=dtype)), np.ones(u, dtype),
                                   np.asarray(base((2 * u,), dtype=dtype))]).astype(dtype)
        return forget_ones

    def _step(self, x, states, rec_mask=None):
        h, c = states
        z = matmul(x, self.kernel) + matmul(self._fed(h, rec_mask), self.recurrent_kernel)
        if self.use_bias:
            z = z + self.bias
        zi, zf, zc, zo = self._split(z)
        i, f, o = self.recurrent_activation(zi), self.recurrent_activation(zf), \
            self.recurrent_activation(zo)
        c = f * c + i * self.activation(zc)
        h = o * self.activation(c)
        return h, [h, c]


class GRU(_Recurrent):
    """Gated recurrent unit (Cho et al.), Keras 3's gates z, r, h and `reset_after=True`:

        xz, xr, xh = split(x_t @ kernel + bias[0])
        hz, hr, hh = split(h @ recurrent_kernel + bias[1])
        z, r = sigmoid(xz + hz), sigmoid(xr + hr)
        h_t = z * h_{t-1} + (1 - z) * tanh(xh + r * hh)

    With `reset_after=False` the bias is one row and the reset gate multiplies h before
    the recurrent matmul: `tanh(xh + (r * h) @ recurrent_kernel[:, 2u:])`.

    >>> gru = tk.layers.GRU(3)
    >>> gru(tk.zeros((2, 4, 5))).shape, gru.bias.shape
    ((2, 3), (2, 9))
    """

    _cell_class = GRUCell
    _gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 reset_after=True, **kwargs):
        self.recurrent_activation = get_activation(recurrent_activation)
        self.reset_after = bool(reset_after)
        super().__init__(units, activation=activation, **kwargs)

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _step(self, x, states, rec_mask=None):
        h = states[0]
        fed = self._fed(h, rec_mask)        # the state as the recurrent kernel sees it
        u = self.units
        xz = matmul(x, self.kernel)
        if self.use_bias:
            xz = xz + (self.bias[0] if self.reset_after else self.bias)
        x_z, x_r, x_h = self._split(xz)
        if self.reset_after:
            rec = matmul(fed, self.recurrent_kernel)
            if self.use_bias:
                rec = rec + self.bias[1]
            r_z, r_r, r_h = self._split(rec)
            z = self.recurrent_activation(x_z + r_z)
            r = self.recurrent_activation(x_r + r_r)
            candidate = self.activation(x_h + r * r_h)
        else:
            rec = matmul(fed, self.recurrent_kernel[:, :2 * u])
            r_z, r_r = rec[:, :u], rec[:, u:]
            z = self.recurrent_activation(x_z + r_z)
            r = self.recurrent_activation(x_r + r_r)
            candidate = self.activation(x_h + matmul(r * fed, self.recurrent_kernel[:, 2 * u:]))
        h = z * h + (1.0 - z) * candidate
        return h, [h]

