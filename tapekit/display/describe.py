"""GraphModel -> words: what the tape's picture shows, for a screen reader and for reading.

    print(tape.describe())                 # every node, in the order the forward pass ran
    print(tk.show(tape, loss, [w]).describe())   # ... and the gradient path it highlights

A `Description` has a `name`, one sentence (the picture's accessible name: the alt text of
its image), and the long description: a few sentences about the whole tape, one sentence per
node in record order (its op and inputs, shape and dtype, value and gradient, as the picture
prints them: the same `format.summary`), and what is highlighted, dimmed or broken. Long
tapes are described as their picture is drawn (summarised into boxes past max_nodes), and
at most MAX_ITEMS nodes are listed, the sentence after them saying how many were left out.

Like the picture, this reads a snapshot's model (graph.build), never the tape. User strings
(names, scopes) stay text here; `html()` escapes them (format.html_text).
"""
from dataclasses import dataclass, field, replace

from .format import clip, html_text, plain, shape_text, summary

MAX_ITEMS = 200      # nodes listed one by one; the rest are counted
NAME_WIDTH = 60      # a name longer than this is clipped in the sentences
ALT_OPS = 6          # op names listed in the one-sentence name


@dataclass(frozen=True)
class Description:
    """What a picture shows, in words: `name` (one sentence) and the long description.

    str(description) is the text to print; `html()` is the same text as HTML (paragraphs and
    a numbered list of the nodes), escaped; `lines` every sentence after the name.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> d = tape.describe()
    >>> d.name
    'Graph of a GradientTape: 2 ops (sin and multiply) recorded from 1 watched tensor (x:0).'
    >>> print(d.items[1])
    n0: sin of s0 (x:0); scalar, float32; value 0.9093.
    """

    name: str                                   # one sentence: the accessible name / alt text
    intro: tuple = ()                           # sentences about the whole picture
    items: tuple = ()                           # one sentence per node (or per point, step, ...)
    outro: tuple = ()                           # what is highlighted; the picture's notes
    heading: str = field(default="Text description", compare=False)

    @property
    def lines(self):
        """Every sentence after the name, in reading order."""
        return self.intro + self.items + self.outro

    def __str__(self):
        return "\n".join((self.name,) + self.intro + tuple("  " + i for i in self.items)
                         + self.outro)

    __repr__ = __str__

    def html(self):
        """The long description as HTML (escaped): paragraphs, the nodes as a numbered list."""
        parts = [f"<p>{html_text(s)}</p>" for s in self.intro]
        if self.items:
            parts.append("<ol>" + "".join(f"<li>{html_text(s)}</li>" for s in self.items)
                         + "</ol>")
        parts += [f"<p>{html_text(s)}</p>" for s in self.outro]
        return "".join(parts)

    def with_lines(self, intro=(), outro=()):
        """A copy with sentences added before and after the ones it has."""
        return replace(self, intro=tuple(intro) + self.intro, outro=self.outro + tuple(outro))


KIND = {"variable": "the variable {}, watched",
        "unwatched": "the variable {}, not watched",
        "watched": "the watched tensor {}",
        "constant": "the constant {}"}


GRADS_ARE = ("those of the last gradient() call, each the derivative of what it "
             "differentiated with respect to that node")


def describe_model(model, *, precision=4, show_values=True, highlight=None, grads=None,
                   grads_are=GRADS_ARE, highlight_word="current step"):
    """The Description of a GraphModel as `dot.to_digraph(model, ...)` draws it.

    highlight: the node drawn as the current one (labelled `highlight_word`); grads:
    {node id: gradient} shown instead of the model's (a stepper's, accumulated so far);
    grads_are: what those gradients are.
    """
    if grads is not None:
        model = replace(model, nodes=[replace(n, grad=grads.get(n.id)) for n in model.nodes])
    nodes = model.nodes
    labels = {n.id: _name(n.label) for n in nodes}
    ops = [n for n in nodes if n.kind in ("op", "stop_gradient", "block")]
    leaves = [n for n in nodes if n not in ops]
    name = _name_sentence(model, ops, leaves)
    if not nodes:
        return Description(name, intro=tuple(plain(n) for n in model.notes))

    intro = [f"Its {_count(len(leaves), 'input')} and {_count(len(ops), 'op')}, in the order "
             f"the forward pass made them:"]
    if any(n.grad is not None for n in nodes):
        intro.insert(0, f"Gradients shown: {grads_are}.")
    no_grad_edges = {}
    for e in model.edges:
        if not e.differentiable or e.is_stop_gradient:
            no_grad_edges.setdefault(e.dst, []).append(e.src)
    items = [_node_sentence(n, labels, no_grad_edges.get(n.id, ()), precision, show_values,
                            highlight_word if n.id == highlight else "")
             for n in nodes[:MAX_ITEMS]]
    if len(nodes) > MAX_ITEMS:
        items.append(f"... and {len(nodes) - MAX_ITEMS} more nodes, not listed here "
                     f"(the last is {nodes[-1].id}, {labels[nodes[-1].id]}).")
    return Description(name, tuple(intro), tuple(items),
                       tuple(_highlights(model, labels, highlight, highlight_word))
                       + tuple("Note: " + plain(n) for n in model.notes))


def _name_sentence(model, ops, leaves):
    """One sentence: how many ops (their names, run-length), from which watched tensors,
    to which target."""
    head = "Graph of a GradientTape" + (" (persistent)" if "(persistent)" in model.title else "")
    if not model.nodes:
        return f"{head}: nothing was recorded."
    words = f"{head}: {_count(len(ops), 'op')}"
    if ops:
        words += f" ({_runs([n.label for n in ops])})"
    watched = [n for n in leaves if n.kind in ("variable", "watched")]
    words += " recorded"
    if watched:
        names = ", ".join(_name(n.label, 24) for n in watched[:3])
        more = f" and {len(watched) - 3} more" if len(watched) > 3 else ""
        words += f" from {_count(len(watched), 'watched tensor')} ({names}{more})"
    targets = [n for n in model.nodes if n.is_target]
    if targets:
        words += f"; the target is {targets[0].id} ({_name(targets[0].label, 24)})"
    return words + "."


def _runs(labels):
    """Op names in order, repeats counted: 'sin x12, square'; at most ALT_OPS names."""
    runs = []
    for label in labels:
        label = _name(label, 24)
        if runs and runs[-1][0] == label:
            runs[-1][1] += 1
        else:
            runs.append([label, 1])
    names = [f"{op} x{k}" if k > 1 else op for op, k in runs[:ALT_OPS]]
    if len(runs) > ALT_OPS:
        return ", ".join(names) + f" and {len(runs) - ALT_OPS} more"
    return _and(names)


def _node_sentence(n, labels, no_grad_from, precision, show_values, mark):
    if n.kind == "block":
        what = f"{n.label}: {n.note}" if n.note else n.label
        what = f"a box of {len(n.records)} ops folded together ({_name(what, 120)})"
    elif n.kind in KIND and n.label == n.kind:        # an unnamed constant or watched tensor
        what = f"a {n.label}" if n.kind == "constant" else "a watched tensor"
    elif n.kind in KIND:
        what = KIND[n.kind].format(_name(n.label))
        if n.note and n.kind == "unwatched":
            what += f" ({n.note})"
    else:
        what = labels[n.id]
        if n.args:
            what += " of " + _and([f"{a} ({labels[a]})" if a in labels else a for a in n.args])
        if n.kind == "stop_gradient":
            what += ", which passes the value forward and no gradient back"
        elif no_grad_from:
            what += f", with no gradient back to {_and(no_grad_from)}"
        if n.note:
            what += f" ({n.note})"
    parts = [f"{n.id}: {what}"]
    if n.shape is not None:
        parts.append((f"shape {shape_text(n.shape)}" if n.shape else "scalar")
                     + (f", {n.dtype}" if n.dtype else ""))
    if show_values and n.value is not None:
        parts.append("value " + summary(n.value, precision))
    if n.grad is not None:
        grad = summary(n.grad, precision)
        if n.shape is not None and n.grad.shape != n.shape:
            grad = f"{shape_text(n.grad.shape)} {grad}"
        parts.append("gradient " + grad)
    roles = ["the target"] * n.is_target + ["a source"] * n.is_source
    roles += [f"marked '{mark}'"] if mark else []
    if n.broken:
        roles.append(f"the gradient path breaks here ({n.broken})")
    if roles:
        parts.append(_and(roles))
    return "; ".join(parts) + "."


def _highlights(model, labels, highlight, word):
    """Sentences: the gradient path (red), what is dimmed, where the path breaks, the
    current node."""
    out = []
    path = [n.id for n in model.nodes if n.on_path]
    target = next((n for n in model.nodes if n.is_target), None)
    sources = [n.id for n in model.nodes if n.is_source]
    if target is not None:
        if path:
            out.append(f"Highlighted with thick red lines: the gradient path from the target "
                       f"{target.id} to {_and(sources) or 'the sources'}, through "
                       f"{_list(path)}.")
        else:
            out.append(f"No gradient path joins the target {target.id} to "
                       f"{_and(sources) or 'a source'}.")
        dimmed = [n.id for n in model.nodes if n.dimmed]
        if dimmed:
            out.append(f"Drawn in grey, off every gradient path: {_list(dimmed)}.")
    broken = [n for n in model.nodes if n.broken]
    for n in broken:
        out.append(f"Marked with a double border and the words 'path breaks': {n.id} "
                   f"({labels[n.id]}), where the gradient path breaks: {n.broken}.")
    if highlight:
        out.append(f"Marked with a thick orange border and the words '{word}': {highlight} "
                   f"({labels.get(highlight, '?')}).")
    return out


def _list(ids, most=30):
    if len(ids) <= most:
        return _and(ids)
    return ", ".join(ids[:most]) + f" and {len(ids) - most} more"


def _and(words):
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _count(k, noun):
    return f"{k} {noun}{'s' * (k != 1)}"


def _name(label, width=NAME_WIDTH):
    return clip(plain(label), width)
