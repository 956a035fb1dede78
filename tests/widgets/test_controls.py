"""tapekit.widgets.controls: the named sliders (a native range input a screen reader can name)
and the live region the views speak through (issue 46)."""
import pytest

ipywidgets = pytest.importorskip("ipywidgets")
pytest.importorskip("anywidget")
from tapekit.widgets.controls import FloatSlider, IntSlider, LiveRegion  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_widgets")


def test_int_slider_keeps_its_value_in_range_and_syncs_its_name():
    s = IntSlider(value=2, min=0, max=5, description="step")
    seen = []
    s.observe(lambda c: seen.append(c.new), names="value")
    s.value = 9
    assert s.value == 5 and seen == [5]
    s.set_state({"value": 3})                       # what the browser's input event sends
    assert s.value == 3 and seen == [5, 3]
    s.max = 2                                       # bounds move: the value follows
    assert s.value == 2
    state = s.get_state()
    assert state["description"] == "step" and state["_kind"] == "slider"
    assert {"value", "min", "max", "step", "disabled", "value_text"} <= set(state)
    assert s.trait_metadata("value_text", "sync")
    assert repr(s) == "IntSlider(value=2, min=0, max=2, description='step')"


def test_float_slider_takes_any_value_when_its_step_is_none():
    s = FloatSlider(value=0.5, min=-1.0, max=1.0, step=None, description="x")
    s.value = 0.123456
    assert s.value == 0.123456 and s.step is None and s.decimals == 2
    steps = IntSlider(max=3)
    ipywidgets.link((s, "value"), (steps, "value"))   # links as ipywidgets' sliders do
    s.value = 1.0
    assert steps.value == 1 and isinstance(steps.value, int)


def test_live_region_holds_one_line_to_say():
    live = LiveRegion()
    live.text = "step 1 of 3: add (n2) sends 1.0 to x:0 (s0)."
    state = live.get_state()
    assert state["_kind"] == "live" and state["text"] == live.text and state["shown"] is True
    assert LiveRegion(shown=False).get_state()["shown"] is False
