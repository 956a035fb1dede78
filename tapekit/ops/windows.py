"""NumPy kernels for conv.py: sliding windows over NHWC images, on plain arrays.

im2col copies every patch a filter visits into one row of a matrix, so a convolution is
one matrix product; col2im is its adjoint (patches added back into an image). The pooling
kernels find the flat position of each window's first maximum (TensorFlow's tie rule) and
gather or scatter-add there. conv.py wraps these in ops with their derivative rules; no
tape, tensor or op appears here. Shapes: `pads = (top, bottom, left, right)`, images
(..., N, H, W, C) with any leading axes (see conv.py's batch convention).
"""
import functools

import numpy as np


def out_size(size, window, stride, before, after):
    return (size + before + after - window) // stride + 1


# --- NumPy kernels: images with any leading axes, one batch axis inside ------------------------

def _images(x):
    """(..., N, H, W, C) -> (B, H, W, C): leading axes and the batch are all just images."""
    return x.reshape((-1,) + x.shape[-3:])


def _padded(x, pads, fill=0):
    pt, pb, pl, pr = pads
    if not any(pads):
        return x
    b, h, w, c = x.shape
    shape = (b, h + pt + pb, w + pl + pr, c)
    xp = np.zeros(shape, dtype=x.dtype) if fill == 0 else np.full(shape, fill, dtype=x.dtype)
    xp[:, pt:pt + h, pl:pl + w] = x
    return xp


def _out_hw(in_hw, window, strides, pads):
    return (out_size(in_hw[0], window[0], strides[0], pads[0], pads[1]),
            out_size(in_hw[1], window[1], strides[1], pads[2], pads[3]))


def _windows(xp, window, strides, out_hw):
    """Yield (a, b, view) per filter tap: the pixels tap (a, b) meets, a strided view of the
    padded images xp, whose spatial axes are its axes -3 and -2 (channels last)."""
    (sh, sw), (ho, wo) = strides, out_hw
    for a in range(window[0]):
        for b in range(window[1]):
            yield a, b, xp[..., a:a + sh * (ho - 1) + 1:sh, b:b + sw * (wo - 1) + 1:sw, :]


# im2col fills its matrix one filter tap at a time: each copy moves all B * Ho * Wo pixels
# a tap meets. NumPy copies fast along long contiguous runs and slowly along short ones
# (its inner loop restarts at each run), so the layout depends on the channel count:
# - many channels: cols is built as matmul reads it, (B, Ho, Wo, fh, fw, C); runs of C values;
# - few channels (grey or RGB images): it is built transposed, (fh, fw, C, B, Ho, Wo), one
#   channel of one tap per copy; runs of Wo pixels, 2-5x faster for C = 1..7. matmul reads
#   the transposed view without a copy.
# (Copying a sliding_window_view in one go builds the same array with runs of only C values
# too, and is slower still: about 4x for C = 1.)
_FEW_CHANNELS = 8


def _copy_pixels(dst, src):
    """dst[...] = src for image arrays (channels last), a whole pixel at a time if possible.

    A copy between strided views moves runs of C numbers per pixel; NumPy restarts its
    inner loop at each run, so for a few channels the loop overhead dominates. Copying
    whole pixels as single items (a void dtype of C * itemsize bytes) is about 2x faster
    for C = 8, and moves exactly the same bytes. That needs the channels contiguous in
    both arrays; otherwise (e.g. x[..., ::2]) it is a plain copy.
    """
    nbytes = src.shape[-1] * src.itemsize
    if nbytes and src.strides[-1] == src.itemsize and dst.strides[-1] == dst.itemsize:
        pixel = np.dtype((np.void, nbytes))
        dst.view(pixel)[..., 0] = src.view(pixel)[..., 0]
    else:
        dst[...] = src


def _im2col(x, window, strides, pads):
    """(B, H, W, C) -> cols, (B*Ho*Wo, fh*fw*C): row m is the patch under output pixel m."""
    bsz, h, w, c = x.shape
    fh, fw = window
    ho, wo = _out_hw((h, w), window, strides, pads)
    xp = _padded(x, pads)
    if c >= _FEW_CHANNELS:
        cols = np.empty((bsz, ho, wo, fh, fw, c), dtype=x.dtype)
        for a, b, view in _windows(xp, window, strides, (ho, wo)):
            _copy_pixels(cols[:, :, :, a, b], view)
        return cols.reshape(bsz * ho * wo, fh * fw * c)
    cols_t = np.empty((fh, fw, c, bsz, ho, wo), dtype=x.dtype)
    for a, b, view in _windows(xp, window, strides, (ho, wo)):
        for ch in range(c):                     # one channel at a time: (B, Ho, Wo) copies
            cols_t[a, b, ch] = view[..., ch]
    return cols_t.reshape(fh * fw * c, bsz * ho * wo).T


def _col2im(dcols, shape, window, strides, pads):
    """The adjoint of _im2col: images of `shape` (B, H, W, C), with every entry of dcols
    (B*Ho*Wo, fh*fw*C) added back where im2col read it from. Same layouts as _im2col."""
    bsz, h, w, c = shape
    fh, fw = window
    pt, pb, pl, pr = pads
    ho, wo = _out_hw((h, w), window, strides, pads)
    xp = np.zeros((bsz, h + pt + pb, w + pl + pr, c), dtype=dcols.dtype)
    if c >= _FEW_CHANNELS:
        taps = dcols.reshape(bsz, ho, wo, fh, fw, c)
        for a, b, view in _windows(xp, window, strides, (ho, wo)):
            view += taps[:, :, :, a, b]         # `view` is a window of xp: this writes into xp
    else:
        taps = dcols.T.reshape(fh, fw, c, bsz, ho, wo)   # no copy if dcols.T is C-ordered
        for a, b, view in _windows(xp, window, strides, (ho, wo)):
            for ch in range(c):
                view[..., ch] += taps[a, b, ch]
    if any(pads):
        xp = np.ascontiguousarray(xp[:, pt:pt + h, pl:pl + w])
    return xp


def _swap(a):
    return np.swapaxes(a, -1, -2)


def conv2d(x, w, strides, pads):
    fh, fw, ci, co = w.shape[-4:]
    k = fh * fw * ci
    cols = _im2col(_images(x), (fh, fw), strides, pads)        # (B*Ho*Wo, k)
    n_ho_wo = x.shape[-4:-3] + _out_hw(x.shape[-3:-1], (fh, fw), strides, pads)
    if w.ndim == 4:   # the usual case: one filter bank, one big matrix product
        out = cols @ w.reshape(k, co)
        return out.reshape(x.shape[:-4] + n_ho_wo + (co,))
    # stacked filters (a batch of cotangents): stacked products, leading axes broadcast
    out = np.matmul(cols.reshape(x.shape[:-4] + (-1, k)), w.reshape(w.shape[:-4] + (k, co)))
    return out.reshape(out.shape[:-2] + n_ho_wo + (co,))


def conv2d_backprop_input(dy, w, input_size, strides, pads):
    fh, fw, ci, co = w.shape[-4:]
    k = fh * fw * ci
    if w.ndim == 4:
        lead = dy.shape[:-3]                                    # (..., N)
        if ci < _FEW_CHANNELS:   # the layout _col2im reads without a copy (see _im2col)
            dcols = (w.reshape(k, co) @ dy.reshape(-1, co).T).T
        else:
            dcols = dy.reshape(-1, co) @ w.reshape(k, co).T
    else:
        dcols = np.matmul(dy.reshape(dy.shape[:-4] + (-1, co)), _swap(w.reshape(w.shape[:-4] + (k, co))))
        lead = dcols.shape[:-2] + dy.shape[-4:-3]
        dcols = dcols.reshape(-1, k)
    images = (int(np.prod(lead)),) + tuple(input_size) + (ci,)
    dx = _col2im(dcols, images, (fh, fw), strides, pads)
    return dx.reshape(lead + dx.shape[1:])


def conv2d_backprop_filter(x, dy, filter_size, strides, pads):
    fh, fw = filter_size
    ci, co = x.shape[-1], dy.shape[-1]
    k = fh * fw * ci
    cols = _im2col(_images(x), filter_size, strides, pads)    # (B*Ho*Wo, k)
    if x.ndim == 4 and dy.ndim == 4:   # sum over every image and pixel: one product
        dw = cols.T @ dy.reshape(-1, co)
    else:   # keep leading (cotangent batch) axes apart: sum over N, Ho, Wo only
        dw = np.matmul(_swap(cols.reshape(x.shape[:-4] + (-1, k))), dy.reshape(dy.shape[:-4] + (-1, co)))
    return dw.reshape(dw.shape[:-2] + (fh, fw, ci, co))


# --- max pooling: the first maximum of each window, and gather / scatter there --------------

def first_max_index(x, window, strides, pads):
    """Flat positions in x (N, H, W, C) of each window's first maximum, shape (N, Ho, Wo, C).

    "First" is row-major order inside the window, as TensorFlow breaks ties.
    Padding never wins: it is filled with the lowest value, and a window whose
    real pixels all hold that value too is sent to its first real pixel.
    """
    n, h, w, c = x.shape
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = _padded(x, pads, fill=lowest)
    ho, wo = _out_hw((h, w), window, strides, pads)
    # One contiguous (N, Ho, Wo, C) block per window tap: the passes below then run on
    # contiguous memory (a strided view costs several times more per pass).
    taps = np.empty((window[0] * window[1], n, ho, wo, c), dtype=x.dtype)
    offsets = np.empty(len(taps), dtype=np.intp)   # tap (a, b) -> flat offset from the window's corner
    for k, (a, b, view) in enumerate(_windows(xp, window, strides, (ho, wo))):
        _copy_pixels(taps[k], view)
        offsets[k] = (a * w + b) * c
    best = taps.max(axis=0)
    if best.dtype.kind == "f" and np.isnan(best).any():   # np.max propagates NaN: NaN is the max
        def is_max(v):
            return (v == best) | np.isnan(v)
    else:
        def is_max(v):
            return v == best
    # The first maximum's tap number = how many taps come before it: count taps
    # while the maximum is not found yet (vectorised over all windows at once).
    found = is_max(taps[0])
    first = np.zeros(best.shape, dtype=np.uint8 if len(taps) < 256 else np.intp)
    for v in taps[1:]:
        first += ~found
        found |= is_max(v)
    # Flat index = tap offset + the window's top-left corner (n, row, col, channel).
    # The corner may lie in the padding; the sum is still right for every real pixel.
    index = offsets.take(first)
    index += _corners(x.shape, (ho, wo), strides, pads)
    if any(pads):
        # Every real pixel of such a window equals `lowest`, so padding may have won the tie:
        # send it to the window's first real pixel (a maximum too, and TF's choice).
        hidden = best == lowest
        if hidden.any():
            corner_h = np.arange(ho) * strides[0] - pads[0]
            corner_w = np.arange(wo) * strides[1] - pads[2]
            first_real = (np.maximum(corner_h, 0)[:, None, None] * (w * c)
                          + np.maximum(corner_w, 0)[:, None] * c) + np.arange(c)
            first_real = first_real + np.arange(n)[:, None, None, None] * (h * w * c)
            index = np.where(hidden, first_real, index)
    return index


@functools.lru_cache(maxsize=8)
def _corners(shape, out_hw, strides, pads):
    """Flat position of each window's top-left corner plus its channel, (N, Ho, Wo, C).

    The same for every call with this geometry (every training step), so it is kept.
    """
    n, h, w, c = shape
    corner_h = np.arange(out_hw[0]) * strides[0] - pads[0]
    corner_w = np.arange(out_hw[1]) * strides[1] - pads[2]
    corners = (corner_h[:, None, None] * (w * c) + corner_w[:, None] * c) + np.arange(c)
    corners = corners + np.arange(n)[:, None, None, None] * (h * w * c)
    corners.flags.writeable = False
    return corners


def gather_windows(x, index):
    """x (..., N, H, W, C) at the flat positions `index` of each (N, H, W, C) block."""
    if x.ndim == 4:
        return np.take(x, index)
    return np.take(x.reshape(x.shape[:-4] + (-1,)), index, axis=-1)


def scatter_windows(dy, index, input_shape):
    """The adjoint of gather_windows: zeros of input_shape with dy added at `index`."""
    lead = dy.shape[:dy.ndim - index.ndim]
    size = int(np.prod(input_shape))
    flat = index.ravel()
    if lead:   # a batch of cotangents: one block of `size` per leading element
        flat = (np.arange(int(np.prod(lead)))[:, None] * size + flat).ravel()
    out = np.zeros(flat.size // index.size * size, dtype=dy.dtype)
    # add.at, not assignment: with overlapping windows one pixel can be the max of several.
    # (1-D add.at is fast; NumPy's multi-dimensional add.at is ~10x slower.)
    np.add.at(out, flat, dy.ravel())
    return out.reshape(lead + tuple(input_shape))
