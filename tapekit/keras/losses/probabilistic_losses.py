"""Keras's losses between distributions and counts: KLDivergence (two distributions over the
last axis) and Poisson (a predicted rate against observed counts).

    loss_fn = tk.losses.KLDivergence()
    loss_fn([[0.5, 0.5]], [[0.25, 0.75]])      # tk.Tensor(0.14384106, shape=(), dtype=float32)

As Keras does, kl_divergence clips both y_true and y_pred to [1e-7, 1] before the log, and
poisson adds 1e-7 to the rate inside it. Reached as `tk.losses.KLDivergence`,
`keras.losses.kl_divergence`, `loss="kld"`; the cross-entropies live in losses.py.
"""
from ...ops import clip_by_value, log, reduce_mean, reduce_sum
from ..backend import EPSILON
from .loss import Loss, prepare


def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [1e-7, 1].

    >>> tk.losses.kl_divergence(tk.constant([[0.5, 0.5]]), tk.constant([[0.25, 0.75]]))
    tk.Tensor([0.14384106], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    y_true = clip_by_value(y_true, EPSILON, 1.0)
    y_pred = clip_by_value(y_pred, EPSILON, 1.0)
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + 1e-7)) over the last axis; y_pred is a rate (> 0).

    >>> tk.losses.poisson(tk.constant([[1.0, 0.0]]), tk.constant([[1.0, 2.0]]))   # (1 - 0 + 2) / 2
    tk.Tensor([1.5], shape=(1,), dtype=float32)
    """
    y_true, y_pred = prepare(y_true, y_pred)
    return reduce_mean(y_pred - y_true * log(y_pred + EPSILON), axis=-1)


class KLDivergence(Loss):
    """Kullback-Leibler divergence of y_pred from y_true (`keras.losses.KLDivergence`).

    >>> tk.losses.KLDivergence()(tk.constant([[0.5, 0.5], [1.0, 0.0]]), tk.constant([[0.25, 0.75], [1.0, 0.0]]))
    tk.Tensor(0.07192053, shape=(), dtype=float32)
    """

    fn = staticmethod(kl_divergence)


class Poisson(Loss):
    """mean(y_pred - y_true * log(y_pred + 1e-7)) (`keras.losses.Poisson`).

    >>> tk.losses.Poisson()(tk.constant([[1.0], [0.0]]), tk.constant([[1.0], [2.0]]))   # (1 + 2) / 2
    tk.Tensor(1.5, shape=(), dtype=float32)
    """

    fn = staticmethod(poisson)
