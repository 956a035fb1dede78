"""`model.summary()` in Keras 3's layout: a box of layers, output shapes, parameter counts (and,
for a functional model that is not a chain, what each layer is connected to), then the totals
with their size in bytes.

The box is drawn as Keras 3 draws it (with the `rich` library): the line is 88 characters for a
chain of layers and 108 otherwise, capped at the terminal's width minus 4 (80 columns when there
is no terminal, as in Jupyter), split into columns at the same fractions, and shrunk the way rich
shrinks a table that is too wide. Cells too long for their column wrap onto more lines, and a word too long is cut with
an ellipsis, as rich does.
"""
import shutil
import sys
import textwrap
import unicodedata

import numpy as np

from ...display.format import plain
from ..keras_tensor import KerasTensor


def _readable_size(nbytes):
    """Keras's readable_memory_size: 76.00 B, 1.50 KB, ... (powers of 1024)."""
    for unit in ["B", "KB", "MB", "GB", "TB", "PB"]:
        if nbytes / 1024 < 1:
            return f"{nbytes:.2f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.2f} PB"


def _count(weights):
    unique = list({id(w): w for w in weights}.values())
    return (sum(int(np.prod(w.shape)) for w in unique),
            float(sum(int(np.prod(w.shape)) * np.dtype(w.dtype).itemsize for w in unique)))


def _format_shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def output_shape(model, layer):
    """The output shape of `layer` as Keras's summary prints it: from the layer's calls on
    symbolic inputs (functional models), else from the shape it was built for; "?" when unknown."""
    nodes = [n for n in layer._inbound_nodes if n.outputs is not None]
    if nodes:
        outs = nodes[-1].outputs
        flat = outs if isinstance(outs, (list, tuple)) else [outs]
        shapes = [_format_shape(t.shape) for t in flat if isinstance(t, KerasTensor)]
        if len(shapes) == 1 and not isinstance(outs, (list, tuple)):
            return shapes[0]
        if shapes:
            return "[" + ", ".join(shapes) + "]" if isinstance(outs, list) else \
                "(" + ", ".join(shapes) + ")"
    shape = layer.__dict__.get("_build_shape", getattr(layer, "input_shape", None))
    if layer.built and shape is not None:
        try:
            out = layer.compute_output_shape(shape)
        except (ValueError, TypeError, NotImplementedError):   # Keras prints "?" too
            return "?"
        if isinstance(out, list):
            return "[" + ", ".join(_format_shape(s) for s in out) + "]"
        return _format_shape(out)
    return "?"


def _connections(layer, graph_nodes):
    parts = []
    for node in layer._inbound_nodes:
        if graph_nodes is not None and id(node) not in graph_nodes:
            continue      # a call outside this model (the layer is shared with another)
        for t in node.input_tensors:
            inbound, inbound_node, index = t._keras_history
            node_index = inbound._inbound_nodes.index(inbound_node)
            parts.append(f"{plain(inbound.name)}[{node_index}][{index}]")
    return ", ".join(parts) or "-"


def _params(layer):
    if not layer.built:
        return "0 (unbuilt)"
    return f"{layer.count_params():,}"


def _shrink(excess, widths):
    """rich's ratio_reduce with equal ratios: take `excess` characters off the columns,
    spread as evenly as round() spreads it, first columns first."""
    out, remaining, n = [], excess, len(widths)
    for w in widths:
        if remaining > 0:
            cut = min(w, round(remaining / n))
            out.append(w - cut)
            remaining -= cut
        else:
            out.append(w)
        n -= 1
    return out


def _cells(text):
    """rich's cell_len: how many columns `text` takes on a terminal. East Asian wide and
    full-width characters (密集层) take two, combining marks none, the others one."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF"
               else 1 for c in text)


def _crop(line, width):
    """`line` cut to `width` columns, ending in an ellipsis, as rich crops a word too long."""
    if _cells(line) <= width:
        return line
    while line and _cells(line) > width - 1:
        line = line[:-1]
    return line + "…"


def _pad(text, width, right):
    gap = " " * max(0, width - _cells(text))
    return gap + text if right else text + gap


def _wrap(text, width):
    """rich's folding of a cell: words wrap onto new lines; a word longer than the column is
    cut, ending in an ellipsis."""
    if _cells(text) <= width:
        return [text]
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]
    return [_crop(line, width) for line in lines]


def render(model, layers, sequential_like, graph_nodes=None, line_length=None, positions=None):
    """The summary's text (without a final newline)."""
    if sequential_like:
        default, positions = 88, positions or [0.45, 0.80, 1.0]
        header, align = ["Layer (type)", "Output Shape", "Param #"], "<<>"
    else:
        default, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header, align = ["Layer (type)", "Output Shape", "Param #", "Connected to"], "<<><"
    line_length = line_length or min(default, shutil.get_terminal_size().columns - 4)
    if positions[-1] <= 1:
        positions = [int(p * line_length) for p in positions]
    widths, current = [], 0
    for pos in positions:
        widths.append(pos - current)
        current = pos
    if min(widths) < 4:
        raise ValueError("Insufficient console width to print summary.")
    # rich: each column is its width plus one space of padding on each side; a table wider
    # than line_length (minus its borders) gives up characters evenly.
    cells = [w + 2 for w in widths]
    room = line_length - (len(cells) + 1)
    if sum(cells) > room:
        cells = _shrink(sum(cells) - room, cells)
    inner = [c - 2 for c in cells]

    def row(values, left, sep, right, bottom=False):
        wrapped = [_wrap(v, w) for v, w in zip(values, inner)]
        height = max(len(w) for w in wrapped)
        if bottom:       # rich sets a wrapped header on the line above the table's body
            wrapped = [[""] * (height - len(w)) + w for w in wrapped]
        lines = []
        for k in range(height):
            parts = []
            for w, a, lines_of in zip(inner, align, wrapped):
                text = lines_of[k] if k < len(lines_of) else ""
                parts.append(" " + _pad(text, w, right=a == ">") + " ")
            lines.append(left + sep.join(parts) + right)
        return lines

    def rule(left, mid, right, fill):
        return left + mid.join(fill * c for c in cells) + right

    # names are data: shown escaped (a newline or a control character stays one visible mark)
    out = [f'Model: "{plain(model.name)}"', rule("┏", "┳", "┓", "━")]
    out += row(header, "┃", "┃", "┃", bottom=True)
    out.append(rule("┡", "╇", "┩", "━"))
    for i, layer in enumerate(layers):
        fields = [f"{plain(layer.name)} ({type(layer).__name__})", output_shape(model, layer),
                  _params(layer)]
        if not sequential_like:
            fields.append(_connections(layer, graph_nodes))
        if i:
            out.append(rule("├", "┼", "┤", "─"))
        out += row(fields, "│", "│", "│")
    out.append(rule("└", "┴", "┘", "─"))
    trainable, trainable_bytes = _count(model.trainable_weights)
    frozen, frozen_bytes = _count(model.non_trainable_weights)
    optimizer = getattr(model, "optimizer", None)
    built = optimizer is not None and hasattr(optimizer, "variables") and (
        getattr(optimizer, "_built_variables", None) or getattr(optimizer, "_slots", None)
        or int(getattr(optimizer, "iterations", 0)) > 0)      # Keras: once it is built
    opt_vars = list(optimizer.variables) if built else []
    opt_count, opt_bytes = _count(opt_vars)
    out.append(f" Total params: {trainable + frozen + opt_count:,} "
               f"({_readable_size(trainable_bytes + frozen_bytes + opt_bytes)})")
    out.append(f" Trainable params: {trainable:,} ({_readable_size(trainable_bytes)})")
    out.append(f" Non-trainable params: {frozen:,} ({_readable_size(frozen_bytes)})")
    if opt_vars:
        out.append(f" Optimizer params: {opt_count:,} ({_readable_size(opt_bytes)})")
    width = _console_width()       # rich crops what is wider than its console
    return "\n".join(_crop_console(line, width) for line in out)


def _crop_console(line, width):
    """What rich's console shows of a line: its first `width` columns."""
    if line.isascii() or _cells(line) <= width:
        return line[:width]
    while _cells(line) > width:
        line = line[:-1]
    return line


def _console_width():
    """rich's console width: 115 in Jupyter, else the terminal's (80 without one)."""
    if "ipykernel" in sys.modules:
        return 115
    return shutil.get_terminal_size().columns


def summary(model, layers, sequential_like=True, graph_nodes=None, line_length=None,
            positions=None, print_fn=None):
    """Print the summary of `model` over `layers` (Keras 3's `Model.summary`)."""
    text = render(model, layers, sequential_like, graph_nodes, line_length, positions)
    (print_fn or print)(text)
