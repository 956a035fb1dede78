"""The widgets' pictures, drawn with matplotlib (imported only when a picture is drawn).

Every picture is a PNG made by the Agg renderer on a `matplotlib.figure.Figure` of its
own: no pyplot, so no global figure list and no backend switch in the user's session.
The bytes are deterministic (same numbers -> same PNG): fixed size and dpi, the bundled
DejaVu fonts, and no "Software" metadata stamped into the file. nbval does not compare
image/png, but the docs site and the tests do.

The pictures are what a reader sees where no kernel runs (nbconvert HTML, nbviewer, a
docs site, an untrusted notebook in JupyterLab): each one is the view's current state.
"""
import base64
import io

import numpy as np

from ..display.describe import Description
from ..display.format import number
from ..display.picture import figure_html, figure_png

DPI = 100
COLORS = {"f": "#1f77b4", "df": "#ff7f0e", "d2f": "#2ca02c", "tangent": "#d62728"}
PALETTE = ["#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
RC = {"font.family": "DejaVu Sans", "font.size": 9, "svg.hashsalt": "tapekit",
      "path.simplify": False, "axes.unicode_minus": False,
      # Names (a variable's, a title) are drawn as plain text: `$` is a dollar, not TeX.
      "text.parse_math": False, "text.usetex": False}


def _mpl():
    import matplotlib
    return matplotlib


def new_figure(width=6.0, height=3.4):
    """A Figure with an Agg canvas (inches at DPI), outside pyplot's global state."""
    _mpl()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    with _mpl().rc_context(RC):
        fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def png_bytes(fig):
    """The figure as PNG bytes, without metadata that changes between runs or versions."""
    with _mpl().rc_context(RC):
        return figure_png(fig, dpi=DPI, facecolor="white")


def png_base64(data):
    """PNG bytes as the base64 text a notebook stores under image/png."""
    return base64.b64encode(data).decode("ascii")


def png_output(data, text, description=None):
    """One display_data output (for an Output widget) with the PNG and its text form; with a
    Description, the PNG also as HTML with its alt text (what JupyterLab shows first)."""
    png = png_base64(data)
    out = {"output_type": "display_data", "metadata": {},
           "data": {"image/png": png, "text/plain": text}}
    if description is not None:
        out["data"]["text/html"] = figure_html(png, description)
    return out


def _draw(build, width, height):
    """Run `build(fig)` under the fixed rc settings and return the PNG bytes."""
    with _mpl().rc_context(RC):
        fig = new_figure(width, height)
        build(fig)
        return png_bytes(fig)


# --- FunctionExplorer ---------------------------------------------------------------------

def explorer_ylim(model):
    """A y-range for the curves, from f, f' and f'' sampled over x_range only.

    It does not depend on the current point, so the scale stays put while the slider
    moves; the tangent line is clipped to it instead of stretching it.
    """
    ys = np.concatenate([model.fs, model.dfs, model.d2fs]).astype(float)
    ys = ys[np.isfinite(ys)]
    if ys.size == 0:
        return -1.0, 1.0
    lo, hi = float(ys.min()), float(ys.max())
    if hi - lo < 1e-12:
        lo, hi = lo - 1.0, hi + 1.0
    pad = 0.08 * (hi - lo)
    return lo - pad, hi + pad


def explorer_png(model):
    """f, f' (tape), f'' (nested tapes) and the tangent at the current point."""
    if model.two:
        return _draw(lambda fig: _heatmap(fig, model), 5.6, 4.4)
    return ExplorerFigure(model).png()


class ExplorerFigure:
    """The explorer's plot, laid out once: a move redraws only the tangent, dot and title.

    The curves, axes and legend do not depend on the point (the y-range is fixed), so the
    layout found for the first picture holds for every point; reusing it makes a slider
    move cost one Agg draw (about 60 ms here) instead of a new figure (about 110 ms). The
    bytes for a point are the same however it was reached.
    """

    def __init__(self, model):
        self.model = model
        with _mpl().rc_context(RC):
            self.fig = new_figure(6.4, 3.4)
            self.moving = _curves(self.fig, model)
        self._laid_out = False

    def png(self):
        with _mpl().rc_context(RC):
            _move(self.moving, self.model)
            data = png_bytes(self.fig)
            if not self._laid_out:          # keep the positions constrained layout found
                self.fig.set_layout_engine("none")
                self._laid_out = True
            return data


def _curves(fig, m):
    """Draw the fixed part (curves, axes, legend); return the artists a move changes."""
    ax = fig.add_subplot()
    ylo, yhi = explorer_ylim(m)
    ax.axhline(0.0, color="#bbbbbb", linewidth=0.8)
    ax.plot(m.xs, m.fs, color=COLORS["f"], linewidth=2, label="f")
    ax.plot(m.xs, m.dfs, color=COLORS["df"], linewidth=1.6, label="f' (tape)")
    ax.plot(m.xs, m.d2fs, color=COLORS["d2f"], linewidth=1.6, linestyle="--",
            label="f'' (nested tapes)")
    (tangent,) = ax.plot([], [], color=COLORS["tangent"], linewidth=1.4, linestyle=":",
                         label="tangent at x")      # the axes limits below clip it
    (dot,) = ax.plot([], [], "o", color=COLORS["tangent"], markersize=6)
    ax.set_xlim(*m.x_range)
    ax.set_ylim(ylo, yhi)
    ax.set_xlabel("x")
    ax.grid(True, color="#eeeeee")
    # outside the axes, on the right: it never covers a curve
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    moving = {"ax": ax, "tangent": tangent, "dot": dot}
    _move(moving, m)
    return moving


def _move(moving, m):
    """Put the tangent, the dot and the title at the model's current point."""
    p = m.point()
    (x0, t0), (x1, t1) = m.tangent()
    moving["tangent"].set_data([x0, x1], [t0, t1])
    finite = np.isfinite(p["f"])
    moving["dot"].set_data([p["x"]] if finite else [], [p["f"]] if finite else [])
    moving["ax"].set_title(f"x = {number(p['x'], 4)}:  f = {number(p['f'], 4)},  "
                           f"f' = {number(p['df'], 4)},  f'' = {number(p['d2f'], 4)}")


def _heatmap(fig, m):
    ax = fig.add_subplot()
    (xlo, xhi), (ylo, yhi) = m.x_range, m.y_range
    # each cell centred on its sample: grid[i, j] = f(xs[j], ys[i])
    im = ax.pcolormesh(m.xs, m.ys, m.grid, shading="nearest", cmap="viridis")
    fig.colorbar(im, ax=ax, label="f(x, y)")
    p = m.point()
    ax.plot([p["x"]], [p["y"]], "o", color="white", markeredgecolor="black", markersize=7)
    norm = float(np.hypot(p["dfdx"], p["dfdy"]))
    if norm > 0:
        scale = 0.15 * min(xhi - xlo, yhi - ylo) / norm
        ax.annotate("", xy=(p["x"] + scale * p["dfdx"], p["y"] + scale * p["dfdy"]),
                    xytext=(p["x"], p["y"]),
                    arrowprops={"arrowstyle": "->", "color": "black", "linewidth": 1.6})
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(f"f({number(p['x'], 4)}, {number(p['y'], 4)}) = {number(p['f'], 4)}; "
                 f"arrow: gradient ({number(p['dfdx'], 4)}, {number(p['dfdy'], 4)})")


def explorer_description(model):
    """What the explorer's plot shows, in words: the curves over the range, and the point."""
    p = model.point()
    lo, hi = model.x_range
    if model.two:
        (ylo, yhi), grid = model.y_range, np.asarray(model.grid, dtype=float)
        finite = grid[np.isfinite(grid)]
        span = (f"f goes from {number(finite.min(), 4)} to {number(finite.max(), 4)} over the "
                f"square" if finite.size else "f has no finite value there")
        return Description(
            f"Heat map of f(x, y) for x from {number(lo)} to {number(hi)} and y from "
            f"{number(ylo)} to {number(yhi)}; at the white dot (x, y) = ({number(p['x'], 4)}, "
            f"{number(p['y'], 4)}): f = {number(p['f'], 4)} and the gradient, the black arrow, "
            f"is ({number(p['dfdx'], 4)}, {number(p['dfdy'], 4)}).",
            intro=(f"Colour is f(x, y), from dark (low) to yellow (high); {span}.",))
    curves = []
    for label, ys in (("f", model.fs), ("f' (tape)", model.dfs),
                      ("f'' (nested tapes)", model.d2fs)):
        ys = np.where(np.isfinite(ys), np.asarray(ys, dtype=float), np.nan)
        if np.isnan(ys).all():
            curves.append(f"{label} has no finite value over the range.")
            continue
        i, j = int(np.nanargmin(ys)), int(np.nanargmax(ys))
        curves.append(f"{label} goes from {number(ys[i], 4)} at x = {number(model.xs[i], 4)} "
                      f"(its lowest) to {number(ys[j], 4)} at x = {number(model.xs[j], 4)} "
                      f"(its highest).")
    return Description(
        f"Plot of f (solid blue), f' from the tape (orange) and f'' from nested tapes (dashed "
        f"green) for x from {number(lo)} to {number(hi)}; at x = {number(p['x'], 4)}: "
        f"f = {number(p['f'], 4)}, f' = {number(p['df'], 4)}, f'' = {number(p['d2f'], 4)}; the "
        f"dotted red line is the tangent there, of slope f'.",
        intro=tuple(curves))


# --- TrainingMonitor ----------------------------------------------------------------------

def monitor_description(log, total, title):
    """What the loss curve shows, in words: where the loss started and ended, its lowest
    point, and the gradient norms (the finding a reader looks at the curve for)."""
    pts = [(s, v) for s, v in zip(log.steps, log.losses) if v is not None]
    done = f"{len(log.steps)} of {total} steps" if total else f"{len(log.steps)} steps"
    if not pts:
        return Description(f"{title}: loss curve, {done}, no loss logged yet.")
    (s0, first), (s1, last) = pts[0], pts[-1]
    finite = [(s, v) for s, v in pts if np.isfinite(v)]
    if len(pts) == 1:
        name = f"{title}: loss curve, {done}: loss {number(first)} at step {s0}."
    else:
        trend = ("falls" if last < first else "rises" if last > first else "stays")
        name = (f"{title}: loss curve, {done}: the loss {trend} from {number(first)} at step "
                f"{s0} to {number(last)} at step {s1}")
        if finite:
            lo = min(finite, key=lambda sv: sv[1])
            name += f" (lowest {number(lo[1])}, at step {lo[0]})"
        name += "."
    notes = []
    if len(finite) < len(pts):
        notes.append(f"{len(pts) - len(finite)} logged losses are nan or inf.")
    for name_, norms in log.grad_norms.items():
        notes.append(f"The norm of the gradient of {name_} (a dashed line, right axis) goes from "
                     f"{number(norms[0])} to {number(norms[-1])} (largest {number(max(norms))}).")
    return Description(name, intro=tuple(notes))


def loss_ylim(losses, yscale="linear"):
    """A loss axis: from 0 (losses are >= 0 almost always) to a little above the largest
    loss so far; on a log axis, from a decade-rounded floor below the smallest positive one."""
    vals = np.asarray([v for v in losses if v is not None and np.isfinite(v)], dtype=float)
    if vals.size == 0:
        return (0.0, 1.0) if yscale != "log" else (0.1, 1.0)
    if yscale == "log":
        pos = vals[vals > 0]
        if pos.size == 0:
            return 0.1, 1.0
        lo = 10.0 ** np.floor(np.log10(pos.min()))
        hi = 10.0 ** np.ceil(np.log10(pos.max()))
        return float(lo), float(max(hi, lo * 10))
    lo = min(0.0, float(vals.min()))
    hi = float(vals.max())
    if hi - lo < 1e-12:
        hi = lo + 1.0
    return lo, hi + 0.05 * (hi - lo)


def monitor_png(log, total, title, yscale="linear", progress=True):
    """The loss per step (and gradient norms on a second axis) and, with `progress`, where the
    run is: a drawn progress bar and a title with the step and loss (for the stored picture;
    the live widget shows those in its own bar and label, which move more often)."""
    def build(fig):
        if total and progress:      # the progress bar, drawn: a thin strip above the curve
            bar, ax = fig.subplots(2, 1, height_ratios=[1, 16])
            frac = min(len(log.steps) / total, 1.0)
            bar.set_axis_off()
            bar.set_xlim(0, 1)
            bar.set_ylim(0, 1)
            bar.add_patch(_mpl().patches.Rectangle((0, 0), 1, 1, color="#e6e6e6"))
            bar.add_patch(_mpl().patches.Rectangle(
                (0, 0), frac, 1, color="#2ca02c" if frac >= 1 else "#1f77b4"))
        else:
            ax = fig.add_subplot()
        pts = [(s, v) for s, v in zip(log.steps, log.losses) if v is not None]
        n = len(log.steps)
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, color=COLORS["f"], linewidth=1.6, label="loss")
        ax.set_yscale("log" if yscale == "log" else "linear")
        ax.set_ylim(*loss_ylim(log.losses, yscale))
        ax.set_xlim(0, max((total or n or 1) - 1, 1))
        ax.set_xlabel("step")
        ax.set_ylabel("loss" + (" (log scale)" if yscale == "log" else ""))
        ax.grid(True, color="#eeeeee")
        handles = ax.get_lines()
        if log.grad_norms:
            ax2 = ax.twinx()
            for k, (name, norms) in enumerate(log.grad_norms.items()):
                steps = [s for s, _ in zip(log.steps, norms)]
                ax2.plot(steps, norms, color=PALETTE[k % len(PALETTE)], linewidth=1.0,
                         linestyle="--", label=f"|grad {name}|")
            ax2.set_ylabel("gradient norm")
            ax2.set_ylim(bottom=0)
            handles = handles + ax2.get_lines()
        if handles:
            ax.legend(handles, [h.get_label() for h in handles], loc="upper left",
                      bbox_to_anchor=(1.12 if log.grad_norms else 1.01, 1.0), frameon=False)
        if progress:
            done = f"{n}/{total}" if total else f"{n}"
            last = log.last_loss
            (bar if total else ax).set_title(
                f"{title}: step {done}" + (f", loss {number(last)}" if last is not None else ""))
    return _draw(build, 6.4, 3.2)


# --- NodeInspector and BackpropStepper: text panels under an optional image ---------------

def text_panel_png(lines, image=None, title=None):
    """Monospaced lines (and a picture above them, e.g. Graphviz's PNG of the graph)."""
    line_h = 0.17
    text_h = line_h * (len(lines) + (1 if title else 0)) + 0.2
    width, img_h = 6.4, 0.0
    arr = None
    if image is not None:
        from matplotlib import image as mimage
        arr = mimage.imread(io.BytesIO(image), format="png")
        h_px, w_px = arr.shape[:2]
        width = max(width, min(w_px / DPI, 10.0))
        img_h = min(h_px / DPI * width / max(w_px / DPI, width), 6.0)

    def build(fig):
        fig.set_layout_engine("none")
        total_h = img_h + text_h
        if arr is not None:
            ax = fig.add_axes((0.0, text_h / total_h, 1.0, img_h / total_h))
            ax.imshow(arr, interpolation="antialiased")
            ax.set_axis_off()
            ax.set_anchor("W")
        y = text_h - 0.15
        if title:
            fig.text(0.01, y / total_h, title, fontsize=10, fontweight="bold", va="top")
            y -= line_h
        for line in lines:
            fig.text(0.01, y / total_h, line, family="DejaVu Sans Mono", fontsize=8.5,
                     va="top")
            y -= line_h
    return _draw(build, width, img_h + text_h)


def wrap(text, width=100, most=4):
    """Lines of at most `width` characters (numbers in summaries can be long). A line that
    would take more than `most` lines (a 10,000-character name) ends with an ellipsis."""
    out = []
    for line in str(text).splitlines() or [""]:
        pad = " " * min(len(line) - len(line.lstrip()) + 2, width // 2)
        pieces = []
        while len(line) > width and len(pieces) < most:
            lead = len(line) - len(line.lstrip())
            cut = line.rfind(" ", lead + 1, width)   # a space after the line's own indent
            cut = width if cut <= lead else cut
            pieces.append(line[:cut])
            line = pad + line[cut:].lstrip()
        if len(line) > width:
            line = line[:width - 1] + "…"
        out += pieces + [line]
    return out


__all__ = ["explorer_png", "explorer_ylim", "loss_ylim", "monitor_png", "png_base64",
           "png_output", "text_panel_png", "wrap"]
