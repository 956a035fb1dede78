"""pad_sequences: lists of different lengths made one array (Keras 3's utility)."""
import numpy as np

__all__ = ["pad_sequences"]


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """An array (len(sequences), maxlen, ...) of `sequences` (each a list or array),
    Keras 3's rules: maxlen defaults to the longest; a longer sequence loses its start
    (truncating="pre") or its end ("post"); a shorter one is filled with `value` before
    (padding="pre") or after ("post"); the entries are cast to `dtype` (int32: 1.7 -> 1).
    Entries may be arrays themselves: each sequence then has shape (length, ...) with the
    same trailing shape.

    >>> tk.utils.pad_sequences([[1, 2, 3], [4, 5], [6, 7, 8, 9]], maxlen=3)
    array([[1, 2, 3],
           [0, 4, 5],
           [7, 8, 9]], dtype=int32)
    >>> tk.utils.pad_sequences([[1, 2], [3]], padding="post", value=-1)
    array([[ 1,  2],
           [ 3, -1]], dtype=int32)
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    lengths, sample_shape = [], None
    for s in sequences:
        try:
            lengths.append(len(s))
        except TypeError:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: "
                             f"{s}") from None
        if sample_shape is None and len(s):
            sample_shape = np.asarray(s).shape[1:]     # the first non-empty one's entries
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = max(lengths, default=0)
    textual = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not textual:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         f"strings.")
    out = np.full((len(sequences), maxlen, *sample_shape), value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s) or maxlen == 0:
            continue
        kept = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} "
                             f"is different from expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(kept)] = kept
        else:
            out[i, -len(kept):] = kept
    return out
