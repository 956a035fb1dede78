"""Issue 29: a tk.function's generated program is built only from names tapekit makes.

One test (or more) per row of the issue's table, then a hypothesis test over arbitrary
Unicode names. Each program is checked four ways: it compiles, it holds no statement beyond
its own steps (`assert_own_steps`), its replays equal the eager calls bit for bit, and
`tk.autograph.to_code` compiles and is the source that runs.
"""
import ast
import contextlib
import io
import linecache
import re
import sys
import traceback
import warnings
import unicodedata

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tapekit as tk

INJECT = "\n    print('INJECTED')  #"
BREAKS = ["\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
SLOT = re.compile(r"[sca]\d+")


# --- the four checks ----------------------------------------------------------------------

def assert_own_steps(fn):
    """The last program of tk.function `fn`: to_code compiles, is the source that runs, and
    holds one statement per step (plus `del`s and the return), every name in it bound by
    tapekit (a slot, a constant, or a global of the program), user text only in comments."""
    program = fn._last_program
    source = tk.autograph.to_code(fn)
    assert source == program.code
    compile(source, "<to_code>", "exec")
    tree = ast.parse(source)
    [fdef] = tree.body
    assert isinstance(fdef, ast.FunctionDef)
    assert fdef.name in program._globals or fdef.name == getattr(program, "_fn_name", None)
    kinds = [type(s).__name__ for s in fdef.body]
    assert kinds[-1] == "Return"
    assert set(kinds) <= {"Assign", "Expr", "Delete", "Return"}, kinds
    assert sum(k in ("Assign", "Expr") for k in kinds) == len(program.steps)
    g = program._globals
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name):
            assert SLOT.fullmatch(node.id) or node.id in g or node.id in ("slice", "Ellipsis"), node.id
            assert node.id.isascii() and node.id.isidentifier()
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert "INJECTED" not in node.value
    # Only comments carry user text, and each comment stays on its own line.
    assert len(source.splitlines()) == source.count("\n")
    for line in source.splitlines():
        assert line.isprintable(), repr(line)
    return source


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def replays_equal_eager(make, calls=3):
    """`make()` -> (python function, arguments per call, state reset); the tk.function's calls
    equal the eager calls bit for bit, and its program passes assert_own_steps."""
    py, args, reset = make()
    reset()
    eager = [np.asarray(py(*a)) for a in args[:calls]]
    reset()
    fn = tk.function(py)
    got = [np.asarray(fn(*a)) for a in args[:calls]]
    for e, r in zip(eager, got):
        assert same(e, r), (e, r)
    return fn, assert_own_steps(fn)


# --- Namespace and inert ------------------------------------------------------------------

def test_namespace_makes_readable_unique_ascii_identifiers():
    from tapekit.compiler.codegen import Namespace
    ns = Namespace()
    made = [ns.create(t) for t in ["dense/kernel", "dense_1/kernel", "\ufb01", "fi", "µ", "μ",
                                   "class", "print", "__debug__", "s0", "c12", "a3", "", "9x",
                                   "x²", "\x00", "\ud800", "Ａ", "𝐱", "x" * 100]]
    assert made[:2] == ["dense_kernel", "dense_1_kernel"]     # readable names stay
    assert made[2:4] == ["fi", "fi_2"]                          # NFKC-equal: deduplicated
    assert len(set(made)) == len(made)
    for ident in made:
        assert ident.isascii() and ident.isidentifier()
        assert unicodedata.normalize("NFKC", ident) == ident
        assert not SLOT.fullmatch(ident)
    import builtins
    import keyword
    assert not any(keyword.iskeyword(i) or hasattr(builtins, i) for i in made)
    assert "x2" in made and "x" in made                         # x² and 𝐱 read as x2, x
    assert made[6:9] == ["class_", "print_", "debug"]           # PEP 8's trailing _


def test_inert_escapes_every_line_break_nul_and_surrogate_without_dropping():
    from tapekit.compiler.codegen import inert
    for brk in BREAKS + ["\x00", "\ud800", "\u202e", "\t"]:
        text = f"a{brk}b"
        shown = inert(text)
        assert len(f"# {shown}".splitlines()) == 1 and shown.isprintable()
        assert shown.startswith("a") and shown.endswith("b") and len(shown) > 3
        assert shown.encode("unicode_escape").decode("ascii") != ""   # encodable text
    assert inert("C:\\new") == "C:\\\\new"   # a backslash escaped: `\n` text is not a break
    assert inert("plain dense/kernel") == "plain dense/kernel"


# --- rows of the table ------------------------------------------------------------

@pytest.mark.parametrize("brk", ["\n", "\r", "\r\n"] + BREAKS[3:])
def test_row1_variable_name_with_a_line_break_runs_nothing(brk, capsys):
    w = tk.Variable(2.0, name=f"w{brk}    print('INJECTED')  #")

    def make():
        return (lambda x: x * w), [(tk.constant(float(k)),) for k in range(3)], lambda: None
    fn, source = replays_equal_eager(make)
    fn(tk.constant(5.0))
    assert "INJECTED" not in capsys.readouterr().out
    assert "print('INJECTED')" in source      # shown, escaped, in the read's comment


def test_row2_custom_weight_name_with_a_line_break_runs_nothing(capsys):
    """Issue 43: a weight may be named as Keras 3 allows (anything but `/`): its line break
    stays in the comments, escaped, and the program is its own steps."""
    class Scale(tk.layers.Layer):
        def build(self, input_shape):
            self.s = self.add_weight(shape=(1,), initializer="ones", name="s" + INJECT)

        def call(self, x):
            return x * self.s
    layer = Scale(name="密集层" + INJECT)

    def make():
        return (lambda x: layer(x) * 2.0), [(tk.constant([[float(k)]]),) for k in range(3)], lambda: None
    fn, source = replays_equal_eager(make)
    fn(tk.constant([[5.0]]))
    assert "INJECTED" not in capsys.readouterr().out
    assert layer.s.path == "密集层" + INJECT + "/s" + INJECT
    assert "print('INJECTED')" in source         # shown, escaped, in a comment


def test_row2_optimizer_and_metric_names_with_line_breaks_run_nothing_in_fit(capsys):
    tk.random.set_seed(0)
    model = tk.Sequential([tk.layers.Dense(1)])
    model.compile(optimizer=tk.optimizers.Adam(0.01, name="adam" + INJECT), loss="mse",
                  metrics=[tk.metrics.MeanAbsoluteError(name="mae" + INJECT)])
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(-1, 1)
    model.fit(x, 2 * x, batch_size=8, epochs=2, verbose=0)
    assert "INJECTED" not in capsys.readouterr().out
    [step] = [f for f in [model.train_function] if f is not None]
    assert_own_steps(step)


def test_row3_a_printed_repr_and_a_file_name_with_line_breaks_run_nothing(capsys):
    class Sly:
        def __repr__(self):
            return "sly" + INJECT

        __str__ = __repr__

    def make():
        def py(x):
            tk.print("value", Sly(), x, output_stream=sys.stdout)
            return x + 1.0
        return py, [(tk.constant(float(k)),) for k in range(3)], lambda: None
    replays_equal_eager(make)
    namespace = {"tk": tk}
    exec(compile("def decide(x):\n    if x > 0:\n        return x * 2.0\n    return x\n",
                 "evil" + INJECT + ".py", "exec"), namespace)
    fn = tk.function(namespace["decide"])
    for k in (1.0, 2.0, 3.0):
        assert same(fn(tk.constant(k)), namespace["decide"](tk.constant(k)))
    out = capsys.readouterr().out
    assert "INJECTED" not in out.replace("sly\n    print('INJECTED')  #", "")
    assert out.count("print('INJECTED')") == 6          # Sly's own text, printed 6 times
    source = assert_own_steps(fn)
    assert "guard" in source and "evil\\n" in source


@pytest.mark.parametrize("name", ["w" + INJECT, "w\r", "w\x00", "x²", "w\r\nprint(1)"])
def test_row4_to_code_compiles_and_is_what_runs(name):
    w = tk.Variable(1.5, name=name)

    def make():
        return (lambda x: x * w + 1.0), [(tk.constant(float(k)),) for k in range(3)], lambda: None
    fn, source = replays_equal_eager(make)
    assert source == fn._last_program.code


def test_row4_to_code_of_a_plain_function_with_any_name_compiles():
    def plain(x):
        return x * 2.0
    for name in ("w" + INJECT, "\u2028", "x\x00"):
        plain.__name__ = name
        source = tk.autograph.to_code(plain)
        compile(source, "<to_code>", "exec")
        assert "INJECTED" not in "".join(l for l in source.splitlines() if not l.startswith("#"))


def test_row5_nfkc_equal_variable_names_stay_two_variables():
    a = tk.Variable(1.0, name="\ufb01")    # the ligature: Python reads it as `fi`
    b = tk.Variable(100.0, name="fi")

    def make():
        return (lambda x: x * a + b), [(tk.constant(1.0),)] * 3, lambda: None
    fn, source = replays_equal_eager(make)
    assert float(fn(tk.constant(1.0))) == 101.0
    assert "fi_2" in source


def test_row6_micro_and_mu_layer_names_are_kept_apart_in_the_program():
    """`aµ` and `aμ` are one identifier to Python (NFKC): layers and variables so named, as
    Keras 3 allows, stay two in the program (its Namespace makes a_w and a_w_2)."""
    first, second = tk.layers.Dense(2, name="a\u00b5"), tk.layers.Dense(2, name="a\u03bc")
    x0 = tk.constant([[1.0, 3.0]])
    first(x0), second(x0)
    second.kernel.assign(first.kernel * 10.0)
    assert first.kernel.path != second.kernel.path
    p = tk.Variable([1.0, 2.0], name="a\u00b5")
    q = tk.Variable([10.0, 20.0], name="a\u03bc")

    def make():
        return (lambda x: tk.reduce_sum(first(x) - second(x)) + tk.reduce_sum(x * p - q)), \
            [(tk.constant([[1.0, 3.0]]),)] * 3, lambda: None
    fn, source = replays_equal_eager(make)
    assert float(fn(x0)) != float(tk.reduce_sum(x0 * p - q))       # both layers counted


@pytest.mark.parametrize("name", ["\u00b5", "\ufb01lter", "\uff21", "\U0001d431", "x\u00b2",
                                  "\x00", "\ud800", "__debug__", "class", "print", "s0", "c1"])
def test_row7_unusual_variable_names_work_at_every_call(name):
    w = tk.Variable([1.0, -2.0], name=name)

    def make():
        def py(x):
            w.assign_add(x)
            return w * 2.0
        start = w.numpy()
        return py, [(tk.constant([0.5, 0.25]),)] * 3, lambda: w.assign(start)
    replays_equal_eager(make)


def test_row7_layers_named_in_any_language_train_in_fit():
    """Issue 43: a model whose layers are named `密集层`, `wµ` and `a b` compiles to a
    program of its own steps and trains as its eager run does. (Keras 3.15 on TensorFlow
    stops in fit here, at TensorFlow's scope-name rule; on JAX or PyTorch it trains.)"""
    def model():
        tk.random.set_seed(0)
        m = tk.Sequential([tk.Input((1,), name="入力"), tk.layers.Dense(3, name="密集层"),
                           tk.layers.Dense(2, name="w\u00b5"), tk.layers.Dense(1, name="a b")],
                          name="模型")
        m.compile(optimizer=tk.optimizers.SGD(0.1, name="优化器"), loss="mse",
                  metrics=[tk.metrics.MeanAbsoluteError(name="平均误差")])
        return m
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(-1, 1)
    compiled, eager = model(), model()
    eager.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse",
                  metrics=[tk.metrics.MeanAbsoluteError(name="平均误差")], run_eagerly=True)
    h1 = compiled.fit(x, 2 * x, batch_size=8, epochs=2, shuffle=False, verbose=0).history
    h2 = eager.fit(x, 2 * x, batch_size=8, epochs=2, shuffle=False, verbose=0).history
    assert list(h1) == ["loss", "平均误差"] and h1 == h2
    assert [w.path for w in compiled.weights[:2]] == ["密集层/kernel", "密集层/bias"]
    assert_own_steps(compiled.train_function)


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


@pytest.mark.parametrize("name,body", [
    ("add", lambda a, b: a + b), ("multiply", lambda a, b: a * b),
    ("subtract", lambda a, b: a - b), ("matmul", lambda a, b: tk.matmul(a, b)),
    ("relu", lambda a, b: tk.nn.relu(a - b)), ("sigmoid", lambda a, b: tk.sigmoid(a * b)),
    ("f32_2", lambda a, b: a * 2.0 + b), ("softmax", lambda a, b: tk.nn.softmax(a + b)),
    ("exp", lambda a, b: tk.exp(a) + b)])
def test_row8_the_functions_own_name_never_shadows_an_op(name, body):
    x = tk.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tk.constant([[0.5, -1.0], [2.0, 0.25]])

    def make():
        return _named(lambda a, b: body(a, b), name), [(x, y), (y, x), (x, x)], lambda: None
    fn, source = replays_equal_eager(make)
    head = source.splitlines()[0]
    assert head.startswith(f"def {name}_2(") and head.endswith(f"# tk.function {name}")


def test_row8_tk_function_of_softmax_named_softmax():
    fn = tk.function(tk.nn.softmax, name="softmax")
    x = tk.constant([[1.0, 2.0, 3.0]])
    for _ in range(3):
        assert same(fn(x), tk.nn.softmax(x))
    assert_own_steps(fn)


def test_row9_a_function_named_step_updating_a_variable_named_step():
    counter = tk.Variable(0.0, name="step")

    @tk.function
    def step(x):
        counter.assign_add(x)
        return counter.read_value()
    for k in range(1, 4):
        assert float(step(tk.constant(1.0))) == k
    assert float(counter) == 3.0
    source = assert_own_steps(step)
    assert source.startswith("def step_2(") and "step.assign_add" not in source


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_row11_a_failing_replay_shows_its_line_and_comment():
    @tk.function
    def checked(x):
        return tk.debugging.check_numerics(tk.math.log(x), "log of x") * 2.0
    checked(tk.constant(1.0))
    checked(tk.constant(2.0))            # replayed
    with pytest.raises(Exception) as info:
        checked(tk.constant(-1.0))       # log(-1) is NaN: the replayed check raises
    frames = [f for f in traceback.extract_tb(info.value.__traceback__)
              if f.filename.startswith("<tk.function checked")]
    assert frames, [f.filename for f in traceback.extract_tb(info.value.__traceback__)]
    line = frames[-1].line
    assert "check_numerics" in line and re.search(r"check_\w*\(s\d+\)", line), line
    text = "".join(traceback.format_exception(info.value))
    assert "# tk.debugging.check_numerics" in text
    assert linecache.getline(frames[-1].filename, frames[-1].lineno).strip() == line


def test_row11_the_linecache_entry_goes_with_the_program():
    import gc

    def make():
        fn = tk.function(lambda x: x + 1.0)
        fn(tk.constant(1.0))
        fn(tk.constant(1.0))
        return fn._last_program._fn.__code__.co_filename
    filename = make()
    gc.collect()
    assert filename in linecache.cache        # dropped at the next compile, not by the collector
    make()
    assert filename not in linecache.cache


def test_a_program_collected_while_linecache_walks_its_cache_breaks_nothing():
    """The garbage collector may finalize a program while linecache.checkcache walks the
    cache's keys (a traceback, a doctest): removing its entry then was a KeyError."""
    import gc

    def make():
        fn = tk.function(lambda x: x * 2.0)
        fn(tk.constant(1.0))
        fn(tk.constant(1.0))
        return fn

    class Collecting(dict):           # a cache whose every read collects one program
        def __getitem__(self, key):
            if programs:
                programs.pop()
                gc.collect()
            return dict.__getitem__(self, key)

    real = linecache.cache
    linecache.cache = Collecting(real)    # the programs below register here
    programs = []
    try:
        programs += [make() for _ in range(3)]
        linecache.checkcache()            # reads each key; the last programs go meanwhile
    finally:
        programs.clear()
        real.update(linecache.cache)
        linecache.cache = real


# --- every name at once: hypothesis -------------------------------------------------------

KEYWORDS = ["class", "def", "return", "None", "__debug__", "print", "s0", "c1", "a2",
            "guard_0", "assign", "dtype", "f32_2", "add", "multiply", "lambda", "match"]
PAIRS = ["\ufb01", "fi", "\u00b5", "\u03bc", "\u212b", "\u00c5", "\uff21", "A", "x\u00b2", "x2"]
# names of Keras's kind (issue 43): a layer or weight named in a student's language, with a
# space, or as a path would be
KERAS_NAMES = ["密集层", "w\u00b5", "a\u03bc", "a b", "dense", "dense/kernel", "kernel", "", " ",
               "层 1", "Schicht_ä", "x:0"]
name_text = st.one_of(
    st.text(st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF,
                          exclude_categories=()), max_size=12),
    st.sampled_from(KEYWORDS + PAIRS + KERAS_NAMES),
    st.builds(lambda a, b, c: a + b + c, st.sampled_from(KEYWORDS + PAIRS + KERAS_NAMES),
              st.sampled_from(BREAKS + ["\x00", "\ud800", "$"]),
              st.sampled_from(["    print('INJECTED')  #", "x", ""])))


def _optimizer_name(text):
    return text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(name_text, min_size=10, max_size=10))
def test_any_unicode_names_make_a_program_that_is_only_its_own_steps(names):
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        _any_names(names)
    assert "INJECTED" not in stdout.getvalue()     # nothing printed but by the injected code


class _Scaled(tk.layers.Layer):
    def __init__(self, weight_name, **kwargs):
        super().__init__(**kwargs)
        self.weight_name = weight_name

    def build(self, input_shape):
        self.s = self.add_weight(shape=input_shape[-1:], initializer="ones", name=self.weight_name)

    def call(self, x):
        return x * self.s


def _keras_named(name, make):
    """make(name) when Keras 3 accepts `name` (any string without "/"); when it holds a "/",
    the refusal is checked and make(the name with "_" for "/") returned."""
    if "/" not in name:
        return make(name)
    with pytest.raises(ValueError, match="cannot contain character `/`"):
        make(name)
    return make(name.replace("/", "_"))


def _scaled(lname, wname):
    layer = _keras_named(lname, lambda n: _Scaled(wname, name=n))
    if "/" in wname:
        with pytest.raises(ValueError, match="cannot contain character `/`"):
            layer(tk.constant([1.0, 2.0]))
        layer.weight_name = wname.replace("/", "_")
    layer(tk.constant([1.0, 2.0]))
    assert len(layer.trainable_variables) == 1
    return layer


def _any_names(names):
    """Two variables, two layers with weights (names of Keras's kind: any text but "/"), an
    optimizer, a metric, a print and the function itself, all named from `names`."""
    v1, v2, fname, pname, oname, mname, lname, wname, lname2, wname2 = names
    a = tk.Variable([1.0, 2.0], name=v1)
    b = tk.Variable([0.5, -0.5], name=v2)
    layer, other = _scaled(lname, wname), _scaled(lname2, wname2)
    opt = _keras_named(oname, lambda n: tk.optimizers.Adam(0.1, name=n))
    metric = tk.metrics.Mean(name=mname)
    weights = [a, b, layer.s, other.s]

    def py(x):
        with tk.GradientTape() as tape:
            loss = tk.reduce_sum(layer(x) * a * a + other(x) * b)
        grads = tape.gradient(loss, weights)
        opt.apply_gradients(zip(grads, weights))
        metric.update_state(loss)
        tk.print(pname, loss, output_stream=printed)
        return loss
    py.__name__ = py.__qualname__ = fname if isinstance(fname, str) else "f"
    printed = io.StringIO()
    xs = [tk.constant([1.0, 2.0]), tk.constant([0.5, 0.25]), tk.constant([-1.0, 3.0]),
          tk.constant([2.0, 2.0]), tk.constant([0.0, -1.5])]

    start = [v.numpy() for v in weights]
    eager = []
    for x in xs:
        eager.append(py(x).numpy())
    after_eager = [v.numpy() for v in weights] + [metric.result().numpy()]
    # The same from the start, compiled (fresh optimizer and metric of the same names).
    for v, value in zip(weights, start):
        v.assign(value)
    opt = _keras_named(oname, lambda n: tk.optimizers.Adam(0.1, name=n))
    metric = tk.metrics.Mean(name=mname)
    fn = tk.function(py)
    got = [fn(x).numpy() for x in xs]
    for e, r in zip(eager, got):
        assert same(e, r)
    for e, r in zip(after_eager, [v.numpy() for v in weights] + [metric.result().numpy()]):
        assert same(e, r)
    text = printed.getvalue()
    assert pname == "" or text.count(pname) >= 2 * len(xs)   # eager's prints, then the function's
    source = assert_own_steps(fn)
    assert source.splitlines()[0].startswith("def ")


def test_reprs_show_a_hostile_name_on_one_escaped_line():
    """A name is data in a repr too: a notebook's text output shows it escaped, on one line."""
    f = tk.function(lambda x: x * 2.0, name="f\n    print('INJECTED')\u2028")
    f(tk.constant(1.0))
    assert repr(f) == "<tk.function f\\n    print('INJECTED')\\u2028: 1 trace(s)>"
    program = repr(f.get_concrete_function(tk.constant(1.0)).program) if hasattr(
        f.get_concrete_function(tk.constant(1.0)), "program") else ""
    assert "\n    print('INJECTED')" not in program.split("\n")[0]


# --- numbers beside arrays (codegen.typed_number) --------------------------------------------

@pytest.mark.filterwarnings("ignore:overflow encountered")   # 1e6 in float16, eager and replay alike
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_python_numbers_in_a_program_give_eager_bits(dtype):
    # codegen makes 0.1, 3 and 1e6 beside a float array 0-d arrays of its dtype; NumPy casts a
    # Python number to the array's dtype (NEP 50), so every bit must match eager's. 1e6 is
    # not finite in float16: it stays a Python number there.
    def g(x):
        return (x * 0.1 + 3) / 7.0 - x ** 2 + 1e6 * x
    f = tk.function(g)
    x = tk.constant(np.linspace(-2, 2, 8).astype(dtype))   # no 0: 0 * inf
    want = g(x).numpy()
    for _ in range(2):
        got = f(x).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    src = tk.autograph.to_code(f)
    tag = {np.float16: "f16", np.float32: "f32", np.float64: "f64"}[dtype]
    assert f"multiply(s0, {tag}_0_1)" in src and f"{tag}_3" in src
    assert ("1000000.0" in src) == (dtype is np.float16)


# --- warnings: a replay shows what the eager call shows (codegen.compile_program) -------------

def _warned(call, tapekit_filter=True):
    """The RuntimeWarnings `call()` shows, under tapekit/__init__.py's filter (set again here:
    pytest drops the filters made while it collected, the import's among them) or without it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if tapekit_filter:
            warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero|underflow) "
                                    r"encountered", RuntimeWarning, r"tapekit\.")
        call()
    return sorted(str(w.message) for w in caught if issubclass(w.category, RuntimeWarning))


def test_a_replay_shows_the_warnings_the_eager_call_shows():
    # issue 43: tapekit hides NumPy's floating-point warnings raised in its own modules
    # (tapekit/__init__.py's filter, by module name), and an eager call shows none; a replay
    # ran in a program without a module name and printed three at every call.
    def g(x):
        return tk.exp(x) * 0.0 + tk.math.log(x - x)     # overflow, inf * 0, log(0)
    f = tk.function(g)
    x = tk.constant(1000.0)
    assert _warned(lambda: g(x)) == []
    for _ in range(3):                                 # the trace, then replays
        assert _warned(lambda: f(x)) == []
    assert "__name__" not in tk.autograph.to_code(f)   # the program reads as before
    # Without that filter both show the same three
    eager = _warned(lambda: g(x), tapekit_filter=False)
    assert eager == ["divide by zero encountered in log", "invalid value encountered in multiply",
                     "overflow encountered in exp"]
    assert _warned(lambda: f(x), tapekit_filter=False) == eager
