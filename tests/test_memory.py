"""tape.memory(): records and bytes per op, shared arrays counted once, what gradient frees."""
import gc
import tracemalloc

import numpy as np
import pytest

import tapekit as tk

rng = np.random.default_rng(0)
X = tk.constant(rng.standard_normal((512, 64)))              # float64: 256 KiB
W1 = tk.Variable(rng.standard_normal((64, 256)))              # 128 KiB
B1 = tk.Variable(np.zeros(256))
W2 = tk.Variable(rng.standard_normal((256, 128)))             # 256 KiB
B2 = tk.Variable(np.zeros(128))


def mlp_tape(persistent=False):
    """A two-layer tanh MLP recorded on a tape; returns (tape, loss). Intermediates are dropped."""
    with tk.GradientTape(persistent=persistent) as tape:
        h = tk.tanh(X @ W1 + B1)            # (512, 256): 1 MiB, kept by tanh and the next matmul
        h2 = tk.tanh(h @ W2 + B2)           # (512, 128): 512 KiB, kept by tanh and multiply
        loss = tk.reduce_mean(h2 * h2)
    return tape, loss


def traced():
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


@pytest.fixture(autouse=True)
def plain_tapes():
    """These figures are for a plain tape: no display recording (which keeps more)."""
    with tk.display.option_context(record=False):
        yield


@pytest.fixture
def tracing():
    for _ in range(2):  # warm up: first-call caches are not the tape's memory
        tape, loss = mlp_tape()
        tape.gradient(loss, [W1, B1, W2, B2])
    tracemalloc.start()
    yield
    tracemalloc.stop()


def test_figures_per_op_and_shared_arrays_counted_once():
    tape, _ = mlp_tape()
    m = tape.memory()
    h_bytes, h2_bytes = 512 * 256 * 8, 512 * 128 * 8
    assert m.records == 8
    assert [(r.name, r.records) for r in m.ops] == [
        ("matmul", 2), ("add", 2), ("tanh", 2), ("multiply", 1), ("reduce_mean", 1)]
    # tanh keeps its outputs h and h2; the second matmul keeps h again, multiply keeps h2 (twice):
    # they count under tanh, once.
    assert (m.by_op["tanh"].arrays, m.by_op["tanh"].bytes) == (2, h_bytes + h2_bytes)
    assert (m.by_op["matmul"].arrays, m.by_op["matmul"].reused) == (3, 1)
    assert m.by_op["matmul"].bytes == X._value.nbytes + W1._value.nbytes + W2._value.nbytes
    assert (m.by_op["multiply"].bytes, m.by_op["multiply"].reused) == (0, 1)
    assert m.by_op["add"].bytes == 0          # add's rules read nothing
    assert m.arrays == 5
    assert m.bytes == sum(r.bytes for r in m.ops) == (
        X._value.nbytes + W1._value.nbytes + W2._value.nbytes + h_bytes + h2_bytes)
    # X and the weights belong to their tensors; only h and h2 are the tape's alone.
    assert m.tape_only_bytes == h_bytes + h2_bytes
    assert m.frees_on_gradient == h_bytes + h2_bytes


def test_a_view_counts_as_the_array_it_views():
    x = tk.Variable(rng.standard_normal((100, 50)))
    with tk.GradientTape() as tape:
        h = tk.tanh(x)
        y = tk.matmul(tk.transpose(h), h)    # matmul keeps h.T, a view of h
    m = tape.memory()
    assert m.arrays == 1                     # h only: tanh keeps no input, h.T is h's buffer
    assert m.by_op["tanh"].bytes == h._value.nbytes
    assert m.by_op["matmul"].bytes == 0 and m.by_op["matmul"].reused == 1
    # h is still held by our variable `h`, so nothing is the tape's alone...
    assert m.tape_only_bytes == 0
    del h, y
    # ...until we let it go.
    assert tape.memory().tape_only_bytes == 100 * 50 * 8


def test_bytes_held_match_tracemalloc(tracing):
    before = traced()
    tape, loss = mlp_tape()
    held = traced() - before
    m = tape.memory()
    # What the process holds after the forward pass is the tape's own arrays (plus the records
    # themselves and the loss: a few KiB).
    assert m.tape_only_bytes <= held <= m.tape_only_bytes * 1.01 + 16_384
    before_gradient = traced()
    grads = tape.gradient(loss, [W1, B1, W2, B2])
    del grads
    freed = before_gradient - traced()
    assert m.frees_on_gradient * 0.99 - 16_384 <= freed <= m.frees_on_gradient * 1.01 + 16_384


def test_persistent_tape_frees_nothing_on_gradient(tracing):
    tape, loss = mlp_tape(persistent=True)
    m = tape.memory()
    assert m.frees_on_gradient == 0 and m.tape_only_bytes == 512 * 384 * 8
    assert "Persistent tape: gradient() frees nothing; `del tape` (or tape.reset() inside its `with` block) frees 1.5 MiB" in str(m)
    before = traced()
    grads = tape.gradient(loss, [W1, B1, W2, B2])
    del grads
    assert abs(traced() - before) < 16_384
    assert tape.memory().bytes == m.bytes
    del tape
    assert before - traced() >= m.tape_only_bytes * 0.99


def test_non_persistent_tape_after_gradient():
    tape, loss = mlp_tape()
    assert "gradient() drops the records and frees 1.5 MiB" in str(tape.memory())
    tape.gradient(loss, W1)
    m = tape.memory()
    assert (m.records, m.bytes) == (0, 0)
    assert "gradient() has run: this non-persistent tape has released its records." in str(m)


def test_display_recording_keeps_records_after_gradient():
    from tapekit.display import tape_log as recording
    with tk.GradientTape() as tape:
        tape.add_observer(recording.VALUES)   # what the display does to every tape in Jupyter
        y = tk.tanh(W1 * 2.0)
    before = tape.memory()
    assert before.by_op["tanh"].bytes == W1._value.nbytes  # output kept once, not twice
    assert before.frees_on_gradient == 0
    tape.gradient(y, W1)
    after = tape.memory()
    assert after.records == before.records and after.display_bytes > 0
    assert "Display recording is on" in str(after)


def test_same_array_twice_in_one_record_counts_once():
    x = tk.Variable(np.ones(1000))
    with tk.GradientTape() as tape:
        y = tk.exp(x)
        z = y * y
    del y, z
    m = tape.memory()
    assert m.arrays == 1 and m.bytes == 8000          # exp keeps only its output
    assert m.by_op["multiply"].reused == 1 and m.by_op["multiply"].bytes == 0
    assert m.tape_only_bytes == 8000


def test_text_and_html():
    tape, _ = mlp_tape()
    text = str(tape.memory())
    assert text.startswith("GradientTape memory: 8 records keep 5 arrays, 2.1 MiB")
    assert "op           records  arrays       bytes  reused" in text
    assert "  tanh               2       2     1.5 MiB       0" in text
    html = tape.memory()._repr_html_()
    assert "<table>" in html and "<td>tanh</td>" in html and "1.5 MiB" in html
    assert repr(tape.memory()) == text
    assert str(tk.GradientTape().memory()).startswith("GradientTape memory: 0 records keep 0 arrays, 0 B")
