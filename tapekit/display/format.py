"""Numbers and names as short, safe text: value summaries and escaping for HTML and DOT.

Every renderer (DOT, HTML, plain text) formats values through `summary`, so the
same node reads the same everywhere, and every user-supplied string (tensor and
variable names, name scopes, layer names, op attributes) is escaped before it
reaches an HTML table (`html_text`), a Graphviz HTML-like label (`dot_text`) or a
quoted Graphviz attribute such as a tooltip (`dot_quoted`). No user string is ever
passed to Graphviz as it is: `graphviz` sends a string that starts with "<" and ends
with ">" to `dot` unquoted, as an HTML string, where it could end the attribute list
and add attributes of its own (URL=..., href=...).
"""
import html
import re

import graphviz
import numpy as np

MAX_ITEMS = 6  # arrays with more elements are summarised as min / mean / max
MAX_ARGS = 8   # an op with more inputs shows its first and last: "5,000 inputs: s0 ... s4999"


def number(x, precision=4):
    """One number: 3.0, 0.1235, 0.009866, 1.5e-07, True, 7.

    `precision` digits after the point, and never fewer than `precision` significant
    digits: a small number keeps as many digits as a large one, so the numbers a
    display multiplies (a gradient times a local derivative) multiply out by hand
    to the digits shown. Below 1e-3 and from 1e6 up, scientific notation.

    >>> from tapekit.display.format import number
    >>> number(0.12345), number(0.0098663), number(-0.0197326), number(1234.56789)
    ('0.1235', '0.009866', '-0.01973', '1234.5679')
    """
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if not np.isfinite(x):
        return str(x)  # nan, inf, -inf
    if x != 0 and not 1e-3 <= abs(x) < 1e6:
        return np.format_float_scientific(x, precision=max(precision - 1, 0), trim="-")
    leading_zeros = -int(np.floor(np.log10(abs(x)))) - 1 if 0 < abs(x) < 0.1 else 0   # 0.00987: 2
    return np.format_float_positional(x, precision=precision + leading_zeros, trim="0")


def summary(value, precision=4):
    """A value as one short line: all numbers for small arrays, min/mean/max for large ones."""
    if value is None:
        return ""
    arr = np.asarray(value)
    if arr.dtype == object:
        return "?"
    if arr.ndim == 0:
        return number(arr[()], precision)
    if arr.size <= MAX_ITEMS:
        return _nested(arr.tolist(), precision)
    if arr.dtype.kind == "b":
        return f"{int(arr.sum())} True / {arr.size - int(arr.sum())} False"
    finite = arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr
    bad = arr.size - finite.size
    if finite.size == 0:
        return f"all {arr.size} values nan/inf"
    text = (f"min {number(finite.min(), precision)} mean {_mean(finite, precision)} "
            f"max {number(finite.max(), precision)}")
    return text + (f" ({bad} nan/inf)" if bad else "")


def _mean(finite, precision):
    """The mean, written 0.0 when it is below the rounding error of the values it averages.

    Values that sum to exactly zero in exact arithmetic (the gradient at softmax logits,
    p - onehot, for one) have a computed mean like 7e-10: zero to `precision` digits after
    the point, while its scientific digits are rounding noise that changes from machine to
    machine. A mean that is small but larger than that keeps its digits.

    >>> from tapekit.display.format import _mean
    >>> _mean(np.array([0.1, -0.3, 0.2], dtype=np.float32), 4)           # 0 in exact arithmetic
    '0.0'
    >>> _mean(np.array([0.25, -0.5, 0.25390625], dtype=np.float32), 4)   # 1/768
    '0.001302'
    """
    m = finite.mean()
    eps = np.finfo(finite.dtype).eps if finite.dtype.kind == "f" else 0.0
    if abs(m) <= 8 * eps * np.abs(finite).mean():
        m = 0.0
    return number(m, precision)


def _nested(items, precision):
    if isinstance(items, list):
        return "[" + " ".join(_nested(v, precision) for v in items) + "]"
    return number(items, precision)


def args_text(args):
    """An op's inputs as one short line: 's0, n1, 2.0', or for more than MAX_ARGS of them
    '5,000 inputs: s0 ... s4999' (an add_n over 5,000 Variables listed all 5,000).

    >>> from tapekit.display.format import args_text
    >>> args_text(("s0", "n1", "2.0")), args_text(tuple(f"s{k}" for k in range(5000)))
    ('s0, n1, 2.0', '5,000 inputs: s0 ... s4999')
    """
    if len(args) <= MAX_ARGS:
        return ", ".join(args)
    return f"{len(args):,} inputs: {args[0]} ... {args[-1]}"


def shape_text(shape):
    """(2, 3) as '(2, 3)'; () as '()' - the tuple TensorFlow prints."""
    return str(tuple(int(n) for n in shape)) if shape is not None else ""


def clip(text, width):
    """At most `width` characters; a cut is marked with '...'."""
    return text if len(text) <= width else text[: max(width - 3, 0)] + "..."


def clip_words(text, width):
    """At most `width` characters, cut only between words, so a number is shown whole or not
    at all ('[0.5 -1.25] [2.0 ...', never '[0.5 -1.25] [2.0 0.3...'); a single long word is
    cut as `clip` cuts it.

    >>> from tapekit.display.format import clip_words
    >>> clip_words("grad [[4.04e-04 -0.3741] [8.08e-04 -0.7482]]", 40)
    'grad [[4.04e-04 -0.3741] [8.08e-04 ...'
    """
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, max(width - 3, 0))
    return text[:cut] + " ..." if cut > 0 else clip(text, width)


def plain(text):
    """Control characters (newlines, escapes, NUL) replaced, so one name stays one line."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256
                   else f"\\u{ord(c):04x}" for c in text)


def html_text(text):
    """Safe inside HTML and Graphviz HTML-like labels: <script> shows as text, never runs."""
    return html.escape(plain(text), quote=True)


def dot_text(text):
    """Safe inside a Graphviz HTML-like label: escaped as HTML, and backslashes doubled,
    because Graphviz expands \\N, \\G, ... (node name, graph name) even in HTML labels."""
    return html_text(text).replace("\\", "\\\\")


def dot_quoted(text):
    """Safe as a quoted Graphviz attribute value (a tooltip): one line of plain text, marked
    so that `graphviz` always quotes it (escaping its quotes), never passes it on as an HTML
    string. Backslashes are doubled; before a capital letter Graphviz still expands \\N,
    \\G, ... (node and graph name) in a tooltip, so a zero-width space follows the backslash
    there. `&` becomes &amp;: Graphviz passes an entity in a tooltip on to the SVG as it is."""
    text = _BACKSLASH.sub(lambda m: "\\\\\u200b" if m.group(1) else "\\\\", plain(text))
    return graphviz.nohtml(text.replace("&", "&amp;"))


_BACKSLASH = re.compile(r"\\(?=([A-Z])?)")
