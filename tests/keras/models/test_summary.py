"""summary() in Keras 3's box: the layout rich draws (checked against Keras 3.15's output
character for character), parameter bytes, built shapes and "Connected to"."""
import re

import pytest

import tapekit as tk
from tapekit import models
from tapekit import layers
from tapekit.keras.models import summary as summary_mod


def seed_model():
    return models.Sequential([
        layers.Dense(64, activation="relu", input_shape=(10,)),
        layers.Dense(32, activation="relu"),
        layers.Dense(1)])


@pytest.fixture(autouse=True)
def fresh_names():
    tk.layers.clear_session()


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch):
    """rich crops a summary to its console's width (115 in Jupyter, else the terminal's, 80
    with none), so these tests fix it: the text must not depend on where pytest runs or on
    whether an earlier test imported ipykernel."""
    monkeypatch.setattr(summary_mod, "_console_width", lambda: 200)


def text_of(model, **kwargs):
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    return lines[0]


SEQUENTIAL_76 = '''Model: "my_sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ layer1 (Dense)                  │ (None, 2)              │            10 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ layer2 (Dense)                  │ (None, 3)              │             9 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 19 (76.00 B)
 Trainable params: 19 (76.00 B)
 Non-trainable params: 0 (0.00 B)'''


def test_sequential_box_at_76_columns():
    model = tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(2, activation="relu", name="layer1"),
                           tk.layers.Dense(3, name="layer2")], name="my_sequential")
    assert text_of(model, line_length=76) == SEQUENTIAL_76


def test_column_widths_follow_keras_positions_and_richs_shrinking():
    # 88 columns, positions .45/.80/1.0 -> 39, 31, 18 wide; with padding 41+33+20 = 94 > 84
    # (88 minus 4 borders): rich takes 10 off, round(10/3)=3, round(7/2)=4, 3 -> 38, 29, 17
    assert summary_mod._shrink(10, [41, 33, 20]) == [38, 29, 17]
    assert summary_mod._shrink(13, [24, 22, 16, 22]) == [21, 19, 12, 19]
    model = tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(2)])
    rows = text_of(model, line_length=88).splitlines()
    assert [len(p) for p in re.split("[┃]", rows[2])[1:-1]] == [38, 29, 17]
    assert all(len(r) == 88 for r in rows[1:6])


def test_functional_connected_to_and_wrapping():
    inputs = tk.Input(shape=(8,), name="img")
    a, b = tk.layers.Dense(4, name="a")(inputs), tk.layers.Dense(4, name="b")(inputs)
    out = tk.layers.Dense(1, name="out")(tk.layers.Add(name="add")([a, b]))
    text = text_of(tk.Model(inputs, out, name="fun"), line_length=56)
    lines = text.splitlines()
    # narrow: the header wraps bottom-aligned, long cells wrap at words, as rich does
    assert lines[2] == "┃               ┃              ┃  Param ┃              ┃"
    assert lines[3] == "┃ Layer (type)  ┃ Output Shape ┃      # ┃ Connected to ┃"
    assert "│ img           │ (None, 8)    │      0 │ -            │" in lines
    assert "│ (InputLayer)  │              │        │              │" in lines
    assert "│ add (Add)     │ (None, 4)    │      0 │ a[0][0],     │" in lines
    assert text.endswith(" Total params: 77 (308.00 B)\n Trainable params: 77 (308.00 B)\n"
                         " Non-trainable params: 0 (0.00 B)")


def test_long_words_are_cut_with_an_ellipsis():
    assert summary_mod._wrap("global_average_pooling2d (GlobalAveragePooling2D)", 18) == [
        "global_average_po…", "(GlobalAveragePoo…"]


def test_built_shape_params_bytes_and_optimizer():
    model = tk.Sequential([tk.layers.Dense(3), tk.layers.BatchNormalization()])
    assert "0 (unbuilt)" in text_of(model) and "│ ?" in text_of(model)
    model(tk.ones((2, 5)))
    text = text_of(model)
    assert re.search(r"│ dense \(Dense\) +│ \(2, 3\) +│ +18 │", text)   # built on a batch of 2
    assert " Total params: 30 (120.00 B)" in text                    # 18 + 4*3 float32
    assert " Non-trainable params: 6 (24.00 B)" in text              # moving mean and variance
    model.compile(optimizer="adam", loss="mse")
    model.fit(tk.ones((2, 5)), tk.ones((2, 3)), verbose=0)
    text = text_of(model)
    # Adam: 2 slots per trainable weight (24 * 2) + iterations (int64) + learning rate
    assert " Optimizer params: 50 (204.00 B)" in text            # 48*4 + 8 + 4 bytes
    assert " Total params: 80 (324.00 B)" in text


def test_multi_output_layers_show_a_list_of_shapes():
    inputs = tk.Input(shape=(None, 3))
    outs = tk.layers.LSTM(4, return_state=True, return_sequences=True)(inputs)
    text = text_of(tk.Model(inputs, outs), line_length=76)
    assert "│ lstm (LSTM)                     │ [(None, None, 4),      │           128 │" in text
    assert "│                                 │ (None, 4), (None, 4)]  │               │" in text


def test_a_summary_wider_than_the_console_is_cropped_as_rich_crops_it(monkeypatch):
    monkeypatch.setattr(summary_mod, "_console_width", lambda: 80)
    rows = text_of(tk.Sequential([tk.Input(shape=(4,)), tk.layers.Dense(2)]),
                   line_length=88).splitlines()
    assert max(len(r) for r in rows) == 80 and rows[1].startswith("┏") and not rows[1].endswith("┓")


def test_summary_prints_a_keras_like_table():
    lines = []
    seed_model().summary(print_fn=lines.append)
    text = lines[0]
    assert text.splitlines()[0] == 'Model: "sequential"'
    # Keras 3's box (the line width depends on the terminal: rows are matched loosely)
    assert re.search(r"│ dense \(Dense\) +│ \(None, 64\) +│ +704 │", text)
    assert re.search(r"│ dense_1 \(Dense\) +│ \(None, 32\) +│ +2,080 │", text)
    assert re.search(r"│ dense_2 \(Dense\) +│ \(None, 1\) +│ +33 │", text)
    assert (" Total params: 2,817 (11.00 KB)\n Trainable params: 2,817 (11.00 KB)\n"
            " Non-trainable params: 0 (0.00 B)") in text          # 2,817 float32 = 11,268 bytes


def test_summary_of_a_functional_model_lists_the_input_layer():
    inputs = tk.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu")(inputs)
    x = layers.BatchNormalization()(x)
    model = tk.Model(inputs, layers.Dense(10, name="predictions")(x))
    lines = []
    model.summary(print_fn=lines.append)
    text = lines[0]
    assert re.search(r"│ digits \(InputLayer\) +│ \(None, 784\) +│ +0 │", text)
    assert re.search(r"│ dense \(Dense\) +│ \(None, 64\) +│ +50,240 │", text)       # 784*64+64
    assert "│ batch_normalization" in text and re.search(r"│ +256 │", text)     # 4 * 64
    assert "predictions (Dense)" in text and "650" in text
    assert (" Total params: 51,146 (199.79 KB)\n Trainable params: 51,018 (199.29 KB)\n"
            " Non-trainable params: 128 (512.00 B)") in text


# --- names in any language (issue 43) ----------------------------------------------------------
class Scale(layers.Layer):
    def build(self, input_shape):
        self.s = self.add_weight(shape=input_shape[-1:], initializer="ones", name="w\u00b5")

    def call(self, x):
        return x * self.s


def test_names_in_any_language_line_up_as_in_keras_3():
    """Keras 3.15.1's summary(line_length=80) of these models, character for character: rich
    gives an East Asian wide character two columns."""
    i = tk.Input((2,), name="in put")
    model = tk.Model(i, Scale(name="a b")(layers.Dense(3, name="密集层")(i)), name="模型 1")
    text = summary_mod.render(model, model.layers, True, line_length=80)
    assert text == (
        'Model: "模型 1"\n'
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                      ┃ Output Shape             ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ in put (InputLayer)               │ (None, 2)                │             0 │\n"
        "├───────────────────────────────────┼──────────────────────────┼───────────────┤\n"
        "│ 密集层 (Dense)                    │ (None, 3)                │             9 │\n"
        "├───────────────────────────────────┼──────────────────────────┼───────────────┤\n"
        "│ a b (Scale)                       │ (None, 3)                │             3 │\n"
        "└───────────────────────────────────┴──────────────────────────┴───────────────┘\n"
        " Total params: 12 (48.00 B)\n"
        " Trainable params: 12 (48.00 B)\n"
        " Non-trainable params: 0 (0.00 B)")
    j = tk.Input((2,), name="入力")
    a, b = layers.Dense(2, name="層A")(j), layers.Dense(2, name="b")(j)
    branched = tk.Model(j, layers.Add(name="足す")([a, b]), name="枝")
    lines = []
    branched.summary(line_length=80, print_fn=lines.append)
    assert lines[0].splitlines()[4:11] == [
        "│ 入力 (InputLayer)     │ (None, 2)         │           0 │ -                  │",
        "├───────────────────────┼───────────────────┼─────────────┼────────────────────┤",
        "│ 層A (Dense)           │ (None, 2)         │           6 │ 入力[0][0]         │",
        "├───────────────────────┼───────────────────┼─────────────┼────────────────────┤",
        "│ b (Dense)             │ (None, 2)         │           6 │ 入力[0][0]         │",
        "├───────────────────────┼───────────────────┼─────────────┼────────────────────┤",
        "│ 足す (Add)            │ (None, 2)         │           0 │ 層A[0][0], b[0][0] │"]


def test_a_name_with_control_characters_is_shown_escaped_on_its_own_line():
    """Keras 3.15 prints "a\\nb" as two lines of the box (rich breaks it); tapekit shows the
    name escaped, so each layer keeps one row and no name can draw on the page."""
    model = tk.Sequential([tk.Input((2,)), layers.Dense(1, name="a\nb"),
                           layers.Dense(1, name="\x1b[31mred\u202e")], name="m\r")
    text = summary_mod.render(model, model.layers, True, line_length=80)
    assert 'Model: "m\\x0d"' in text and "│ a\\x0ab (Dense) " in text
    assert "│ \\x1b[31mred\\u202e (Dense) " in text
    assert all(line.isprintable() for line in text.splitlines())
    assert len(text.splitlines()) == 11                  # one row per layer
