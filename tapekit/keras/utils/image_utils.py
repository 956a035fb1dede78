"""img_to_array and array_to_img: between PIL images and (height, width, channels) arrays
(Keras 3's utilities). Pillow is not a tapekit dependency: array_to_img asks for it when
it is called, img_to_array reads anything NumPy can (a PIL image, an array)."""
import numpy as np

__all__ = ["array_to_img", "img_to_array"]


def _check_data_format(what, data_format):
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"{what}: data_format must be 'channels_last' or 'channels_first', "
                         f"got {data_format!r}")
    return data_format or "channels_last"


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image (or an array) as a float32 array (height, width, channels); a grayscale
    (height, width) image gets a channel axis of 1. data_format="channels_first" gives
    (channels, height, width).

    >>> tk.utils.img_to_array(np.array([[0, 255], [128, 64]], "uint8")).shape
    (2, 2, 1)
    """
    data_format = _check_data_format("img_to_array", data_format)
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x[None] if data_format == "channels_first" else x[..., None]
    raise ValueError(f"Unsupported image shape: {x.shape}")


def _pil_image():
    try:
        from PIL import Image       # lazily: Pillow is only needed here, and not a dependency
    except ImportError:
        raise ImportError("array_to_img needs Pillow (PIL), which is not installed: "
                          "pip install pillow") from None
    return Image


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A (height, width, channels) array as a PIL image: 3 channels RGB, 4 RGBA, 1 grayscale
    ("L", or "I" for 32-bit values above 255). With scale=True (the default) the values are
    first stretched to 0..255 (minimum to 0, maximum to 255), as Keras 3 does; otherwise
    they are cast to uint8 as they are. Needs Pillow (`pip install pillow`).

    >>> image = tk.utils.array_to_img(np.array([[[0.0], [0.5]], [[1.0], [0.25]]]))
    >>> image.mode, image.size, np.asarray(image).tolist()
    ('L', (2, 2), [[0, 127], [255, 63]])
    """
    data_format = _check_data_format("array_to_img", data_format)
    image = _pil_image()
    x = np.array(x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with "
                         f"shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x /= top
        x *= 255
    channels = x.shape[2]
    if channels in (3, 4):
        return image.fromarray(x.astype("uint8"))           # RGB, RGBA
    if channels == 1:
        if np.max(x) > 255:                                 # 32-bit grayscale, PIL mode "I"
            return image.fromarray(x[:, :, 0].astype("int32"))
        return image.fromarray(x[:, :, 0].astype("uint8"))  # "L"
    raise ValueError(f"Unsupported channel number: {channels}")
