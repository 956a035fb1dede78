"""tapekit.nn: activations, convolution and pooling, cross-entropy from logits."""
from .ops import (avg_pool, avg_pool2d, conv2d, conv2d_transpose, elu, gelu, l2_normalize,
                  leaky_relu, log_softmax, max_pool, max_pool2d, relu, relu6, selu, sigmoid, silu,
                  softmax, softmax_cross_entropy_with_logits, softplus, softsign,
                  sparse_softmax_cross_entropy_with_logits, swish, tanh)
from .namespaces import public_dir

__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
           "conv2d", "max_pool2d",
           "softplus", "softsign", "elu", "selu", "relu6", "leaky_relu", "gelu", "silu", "swish",
           "l2_normalize", "avg_pool2d", "avg_pool", "max_pool", "conv2d_transpose"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
