"""tapekit.display.options: the process defaults (set_options), the per-thread overrides
(option_context), the `record` switch, and the option that changes the picture."""
import pytest

import tapekit as tk
from tapekit.display.options import OPTIONS


def _tape():
    x = tk.Variable(2.0, name="x")
    with tk.GradientTape() as tape:
        y = tk.sin(x) * x                      # sin(2) = 0.909297...
    return tape, y, x


def test_set_options_changes_what_show_draws_and_returns_what_it_replaced():
    with tk.display.option_context(record=True):
        tape, y, x = _tape()
    before = dict(OPTIONS)
    previous = tk.display.set_options(precision=2, show_values=False)
    try:
        assert previous["precision"] == before["precision"] and "record" in previous
        assert OPTIONS["precision"] == 2
        assert "0.91" not in tk.show(tape, y, x).text               # values hidden
        tk.display.set_options(show_values=True)
        row = next(r for r in tk.show(tape, y, x).text.splitlines() if r.startswith("* n0"))
        assert row.split()[-1] == "0.91"                             # 2 digits after the point
    finally:
        tk.display.set_options(**previous)
    assert dict(OPTIONS) == before


def test_option_context_nests_and_restores():
    before = OPTIONS["rankdir"]
    with tk.display.option_context(rankdir="LR"):
        assert OPTIONS["rankdir"] == "LR"
        with tk.display.option_context(max_nodes=7):
            assert (OPTIONS["rankdir"], OPTIONS["max_nodes"]) == ("LR", 7)
        assert OPTIONS["max_nodes"] == 100
    assert OPTIONS["rankdir"] == before


def test_record_decides_what_new_tapes_keep():
    with tk.display.option_context(record=False):
        assert not tk.display.recording()
        tape, y, x = _tape()
        with tk.display.option_context(record=True):
            assert tk.display.recording()
            kept, ky, kx = _tape()
        assert not tk.display.recording()
    assert tk.show(tape).model.node("n1").value is None          # multiply saved nothing
    assert float(tk.show(kept).model.node("n1").value) == pytest.approx(1.818595, rel=1e-6)


def test_unknown_options_are_refused_with_the_known_ones():
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['colour'\]; known: record, rankdir"):
        tk.display.set_options(colour="red")
    with pytest.raises(TypeError, match="option_context: unknown option"):
        with tk.display.option_context(colour="red"):
            pass
    assert "colour" not in OPTIONS
