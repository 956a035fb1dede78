"""plot_model and model_to_dot (tapekit/keras/models/visualization.py): one node per layer, an
arrow for each connection, the names escaped, the file written whole, the picture in words."""
import os
import re
import shutil

import graphviz
import pytest

import tapekit as tk

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")


def _functional():
    tk.layers.clear_session()
    inputs = tk.Input(shape=(8,), name="img")
    a, b = tk.layers.Dense(4, name="a")(inputs), tk.layers.Dense(4, name="b")(inputs)
    out = tk.layers.Dense(1, name="out")(tk.layers.Add(name="add")([a, b]))
    return tk.Model(inputs, out, name="fun")


def _edges(dot):
    ids = dict(re.findall(r"(layer\d+) \[label=<<TABLE.*?<B>(.*?)</B>", str(dot)))
    return sorted((ids[a], ids[b]) for a, b in re.findall(r"(layer\d+) -> (layer\d+)", str(dot)))


def test_a_functional_models_nodes_and_arrows_are_its_layer_calls():
    dot = tk.utils.model_to_dot(_functional(), show_shapes=True)
    assert isinstance(dot, graphviz.Digraph)
    assert _edges(dot) == [("a (Dense)", "add (Add)"), ("add (Add)", "out (Dense)"),
                           ("b (Dense)", "add (Add)"), ("img (InputLayer)", "a (Dense)"),
                           ("img (InputLayer)", "b (Dense)")]
    text = str(dot)
    assert "input shape (None, 4), (None, 4)" in text and "output shape (None, 1)" in text


def test_a_sequential_is_a_chain_each_reading_the_shape_before_it():
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input((4,)), tk.layers.Dense(3, activation="relu"), tk.layers.Dense(1)])
    dot = tk.utils.model_to_dot(model, show_shapes=True, show_layer_names=False,
                                show_layer_activations=True, show_trainable=True, show_dtype=True)
    assert _edges(dot) == [("Dense", "Dense")]
    text = str(dot)
    assert text.count("input shape (None, 4)") == 1 and text.count("input shape (None, 3)") == 1
    assert "activation relu" in text and "activation linear" in text
    assert text.count("trainable yes") == 2 and text.count("dtype float32") == 2


def test_layer_names_are_escaped_never_part_of_the_dot_program():
    tk.layers.clear_session()
    hostile = 'x"]; evil [label="pwned" URL="javascript:alert(1)"]; <script>\\G'
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1, name=hostile)])
    text = str(tk.utils.model_to_dot(model, show_layer_names=True))
    # one statement per line, each a generated id: the name is only ever label text
    assert re.findall(r"^\s*(\w+) \[", text, re.M) == ["graph", "node", "edge", "layer0"]
    label = re.search(r"<B>(.*)</B>", text).group(1)
    assert "<" not in label and '"' not in label        # no tag, no attribute can begin in it
    assert "&lt;script&gt;" in label and "&quot;pwned&quot;" in label
    assert "\\\\G" in label                      # a backslash doubled: Graphviz keeps \G as text


@needs_dot
def test_plot_model_writes_the_file_and_returns_the_picture_with_its_words(tmp_path):
    path = tmp_path / "model.png"
    picture = tk.utils.plot_model(_functional(), to_file=path, show_layer_names=True)
    assert path.read_bytes()[:4] == b"\x89PNG" and picture.png[:4] == b"\x89PNG"
    assert picture.alt == ("The layers of model 'fun' in the order they run: a (Dense), then "
                           "b (Dense), then add (Add), then out (Dense).")
    assert picture.describe().items == (
        "img (InputLayer), output shape (None, 8).", "a (Dense), reads img, output shape (None, 4).",
        "b (Dense), reads img, output shape (None, 4).",
        "add (Add), reads a and b, output shape (None, 4).",
        "out (Dense), reads add, output shape (None, 1).")
    bundle = picture._repr_mimebundle_()
    assert sorted(bundle) == ["image/png", "text/html", "text/plain"]
    assert f'alt="{picture.alt.replace(chr(39), "&#x27;")}"' in bundle["text/html"]
    assert "<details" in bundle["text/html"] and "reads a and b" in bundle["text/html"]
    assert os.listdir(tmp_path) == ["model.png"]        # no temporary file left


@needs_dot
def test_an_svg_file_has_no_link_and_a_hostile_name_stays_text(tmp_path):
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1, name="<a href='x'>n<b>")])
    tk.utils.plot_model(model, to_file=tmp_path / "m.svg", show_layer_names=True)
    svg = (tmp_path / "m.svg").read_text()
    assert svg.lstrip().startswith("<?xml")
    assert not re.search(r"<a\b|\s(xlink:)?href=[\"']", svg)     # no link element, no link
    assert "&lt;a href=" in svg


def test_bad_arguments_say_what_is_wrong(tmp_path):
    with pytest.raises(TypeError, match="plot_model: model must be a tk.keras.Model .* got Dense"):
        tk.utils.plot_model(tk.layers.Dense(1))
    with pytest.raises(ValueError, match="has not yet been built"):
        tk.utils.plot_model(tk.Sequential([tk.layers.Dense(1)]), to_file=tmp_path / "m.png")
    model = _functional()
    with pytest.raises(ValueError, match=r"rankdir must be one of \('TB', 'LR', 'BT', 'RL'\), got 'XY'"):
        tk.utils.model_to_dot(model, rankdir="XY")
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['show_shape'\]"):
        tk.utils.plot_model(model, show_shape=True)
    with pytest.raises(NotImplementedError, match="expand_nested"):
        tk.utils.plot_model(model, expand_nested=True)
    assert list(tmp_path.iterdir()) == []


def test_without_graphviz_dot_plot_model_says_how_to_install_it(monkeypatch, tmp_path):
    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))
    monkeypatch.setattr(graphviz.Digraph, "pipe", missing)
    with pytest.raises(ImportError, match="apt-get install graphviz"):
        tk.utils.plot_model(_functional(), to_file=tmp_path / "m.png")
    assert list(tmp_path.iterdir()) == []


def test_rankdir_and_dpi_reach_graphviz():
    text = str(tk.utils.model_to_dot(_functional(), rankdir="LR", dpi=96))
    assert "rankdir=LR" in text and "dpi=96" in text
