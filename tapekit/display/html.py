"""GraphModel -> a table: plain text (what a terminal or nbval reads) and HTML (no `dot` needed).

One row per node, in graph order: leaves first, then the ops in record order.
Columns: node id, kind, op or tensor name, inputs, shape, dtype, value, gradient,
note. With a target, a first column marks the gradient path (*) and breaks (!).
Never an object address, so the same program prints the same table everywhere.
"""
from .format import args_text, clip, html_text, plain, shape_text, summary

KIND_SHORT = {"variable": "variable", "unwatched": "unwatched", "watched": "watched",
              "constant": "constant",
              "op": "op", "stop_gradient": "stop_grad", "block": "collapsed"}
HEADERS = ("node", "kind", "op / name", "inputs", "shape", "dtype", "value", "gradient", "note")
WIDTHS = (6, 9, 30, 24, 12, 8, 44, 44, 60)
INSTALL_GRAPHVIZ = ("Graphviz's `dot` program was not found, so this is a table instead of a "
                    "picture. Install Graphviz to see the graph: apt-get install graphviz, "
                    "conda install -c conda-forge graphviz, or brew install graphviz.")


def rows(model, show_values=True, precision=4):
    """The table's cells as strings (shared by the text and HTML forms)."""
    out = []
    for n in model.nodes:
        grad = ""
        if n.grad is not None:
            grad = summary(n.grad, precision)
            if n.shape is not None and n.grad.shape != n.shape:
                grad = f"{shape_text(n.grad.shape)} {grad}"
        notes = ["target"] * n.is_target + ["source"] * n.is_source
        notes += [n.note] if n.note else []
        notes += [f"path breaks: {n.broken}"] if n.broken else []
        out.append((n.id, KIND_SHORT[n.kind], plain(n.label), args_text(n.args),
                    shape_text(n.shape) if n.shape is not None else "?", n.dtype,
                    summary(n.value, precision) if show_values else "", grad, "; ".join(notes)))
    return out


def _marks(model):
    if not any(n.on_path or n.broken or n.is_target for n in model.nodes):
        return None
    return ["!" if n.broken else "*" if n.on_path else " " for n in model.nodes]


def to_text(model, *, show_values=True, precision=4):
    """A compact fixed-width table of the recorded ops, values and gradients.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> print(tk.display.to_text(tk.display.build(tape, y, [x])))
    GradientTape: 2 records, 1 watched
      node  kind      op / name  inputs  shape  dtype    value   gradient  note
    * s0    variable  x:0                ()     float32  2.0               source
    * n0    op        sin        s0      ()     float32  0.9093
    * n1    op        multiply   n0, s0  ()     float32  1.8186            target
    (* on a gradient path from the target to the sources; ! the gradient path breaks here)
    """
    table = [HEADERS] + [tuple(clip(c, w) for c, w in zip(r, WIDTHS))
                         for r in rows(model, show_values, precision)]
    widths = [max(len(r[i]) for r in table) for i in range(len(HEADERS))]
    marks = _marks(model)
    lines = [model.title]
    for k, r in enumerate(table):
        mark = "" if marks is None else (" " if k == 0 else marks[k - 1]) + " "
        lines.append((mark + "  ".join(c.ljust(w) for c, w in zip(r, widths))).rstrip())
    if marks is not None:
        lines.append("(* on a gradient path from the target to the sources; "
                     "! the gradient path breaks here)")
    lines += [f"note: {plain(n)}" for n in model.notes]
    return "\n".join(lines)


def to_html(model, *, show_values=True, precision=4, message=None):
    """An HTML table of the same rows; `message` (escaped) goes above it, e.g. install hints.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> html = tk.display.to_html(tk.display.build(tape, y, [x]))
    >>> html.count("<tr")
    4
    """
    marks = _marks(model)
    parts = ['<div class="tapekit-tape" style="font-family:monospace;font-size:12px">']
    if message:
        parts.append(f'<p style="color:#8a6d00">{html_text(message)}</p>')
    parts.append(f"<p><b>{html_text(model.title)}</b></p>")
    parts.append('<table style="border-collapse:collapse"><thead><tr>')
    heads = ([""] if marks else []) + list(HEADERS)
    parts += [f'<th style="text-align:left;padding:1px 6px">{html_text(h)}</th>' for h in heads]
    parts.append("</tr></thead><tbody>")
    for k, (node, cells) in enumerate(zip(model.nodes, rows(model, show_values, precision))):
        style = "color:#666666" if node.dimmed else "font-weight:bold" if node.on_path else ""
        if node.broken:
            style = "background:#ffd9d9;color:#c00000"
        parts.append(f'<tr style="{style}">')
        if marks:
            parts.append(f"<td>{marks[k]}</td>")
        for i, cell in enumerate(cells):
            color = ";color:#c0392b" if i == 7 and not node.dimmed else ""
            parts.append(f'<td style="text-align:left;padding:1px 6px{color}">{html_text(cell)}</td>')
        parts.append("</tr>")
    parts.append("</tbody></table>")
    parts += [f"<p>{html_text(n)}</p>" for n in model.notes]
    parts.append("</div>")
    return "".join(parts)
