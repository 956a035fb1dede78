"""tapekit.widgets.plots: the views' pictures (matplotlib, Agg, no pyplot): deterministic bytes,
the explorer's fixed y-range and legend, names drawn as text (not TeX), wrapped text panels."""
import io

import matplotlib.image
import numpy as np
import pytest

pytest.importorskip("ipywidgets")
import tapekit as tk  # noqa: E402
from tapekit.widgets import FunctionExplorer, plots  # noqa: E402
from tapekit.widgets.models import TrainingLog  # noqa: E402


def test_pictures_are_deterministic_and_carry_no_software_stamp():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    a = fe.picture()
    b = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0).picture()
    assert a == b and b"Software" not in a and b"matplotlib" not in a.lower()


def test_explorer_y_range_is_stable_and_the_tangent_is_clipped():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    m = fe.model
    ylim = fe.ylim()
    ys = np.concatenate([m.fs, m.dfs, m.d2fs])
    assert ylim[0] < ys.min() and ylim[1] > ys.max()
    assert ylim[1] - ylim[0] < 1.3 * (ys.max() - ys.min())   # fits the curves, not the tangent
    outside = []
    for v in (-4.0, -2.0, 0.5, 3.7):                    # steep tangents near the ends
        fe.set_point(v)
        assert fe.ylim() == ylim
        fig = plots.new_figure()
        plots._curves(fig, m)
        ax = fig.axes[0]
        assert ax.get_ylim() == pytest.approx(ylim)     # the drawn axes, tangent included
        (_, t0), (_, t1) = m.tangent()
        outside.append(min(t0, t1) < ylim[0] or max(t0, t1) > ylim[1])
    assert outside == [True, False, False, True]        # these tangents used to stretch the axis


def test_explorer_legend_sits_clear_of_the_curves():
    fe = FunctionExplorer(lambda t: tk.sin(t) * t, x_range=(-4, 4), x=1.0)
    fig = plots.new_figure()
    plots._curves(fig, fe.model)
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1       # right of the plotting area
    assert legend.x1 <= fig.bbox.x1                     # and still inside the picture
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "f", "f' (tape)", "f'' (nested tapes)", "tangent at x"]


def test_wrap_ends_on_long_names_and_clips_them():
    # a 10,000-character variable name: the chain-rule text has a line "  to s0 (xxxx…): …" whose
    # continuation indent once made wrap() cut at its own padding forever (the stepper hung)
    line = "  to s0 (" + "x" * 10_000 + ":0): 0.96 x local 3.0 -> sends 2.88"
    lines = plots.wrap(line)
    assert len(lines) <= 5 and all(len(s) <= 100 for s in lines)
    assert lines[0] == "  to s0" and lines[-1].endswith("…")
    assert plots.wrap("short line") == ["short line"]
    assert plots.wrap("a " * 60) == ["a " * 49 + "a", "  " + "a " * 10]


@pytest.mark.parametrize("name", ["cost_$a_b_c$_usd", "$\\undefinedmacro{$", "$$", "a$b"])
def test_monitor_draws_names_as_plain_text_not_tex(name):
    """A `$` in a variable's name or the title is a dollar sign: matplotlib's mathtext would
    read `$\\undefinedmacro{$` as TeX and raise in the middle of training."""
    log = TrainingLog()
    w = tk.Variable(1.0, name=name)
    for k in range(3):
        log.log(loss=1.0 / (k + 1), grads=[(tk.constant(float(k)), w)])
    png = plots.monitor_png(log, 4, f"train {name}")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib
    with matplotlib.rc_context(plots.RC):
        import matplotlib.pyplot as plt
        fig = plt.figure()
        t = fig.text(0, 0, name)
        assert t.get_parse_math() is False
        plt.close(fig)


def test_explorer_ylim_pads_the_curves_and_survives_flat_or_infinite_ones():
    m = tk.widgets.ExplorerModel(lambda t: t * t, (0, 2), samples=5)   # f 0..4, f' 0..4, f'' 2
    lo, hi = plots.explorer_ylim(m)
    assert (lo, hi) == (pytest.approx(-0.32), pytest.approx(4.32))     # 8% of 4 each side
    flat = tk.widgets.ExplorerModel(lambda t: t * 0.0, (0, 1), samples=3)   # all three are 0
    assert plots.explorer_ylim(flat) == (pytest.approx(-1.16), pytest.approx(1.16))  # -1..1, 8%


def test_text_panels_grow_with_their_lines_and_outputs_carry_the_png():
    one = plots.text_panel_png(["one line"])
    three = plots.text_panel_png(["a", "b", "c"], title="title")
    h1 = matplotlib.image.imread(io.BytesIO(one), format="png").shape[0]
    h3 = matplotlib.image.imread(io.BytesIO(three), format="png").shape[0]
    assert h3 - h1 == round(3 * 0.17 * plots.DPI)            # one line height per extra line
    out = plots.png_output(one, "text")
    assert out["data"]["text/plain"] == "text" and out["output_type"] == "display_data"
    assert plots.png_base64(one) == out["data"]["image/png"]
