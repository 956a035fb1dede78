"""tapekit/writes.py: all_or_nothing, the block fit runs each training step in (issue 43)."""
import threading

import pytest

import tapekit as tk
from tapekit.writes import all_or_nothing


class Failed(Exception):
    pass


def test_every_write_of_a_failed_block_is_undone_also_of_a_variable_made_in_it():
    v, w = tk.Variable([1.0, 2.0]), tk.Variable(0, dtype=tk.int64)
    made = []
    with pytest.raises(Failed):
        with all_or_nothing():
            v.assign([5.0, 6.0])
            v.assign_add([1.0, 1.0])
            w.assign_add(1)
            made.append(tk.Variable(3.0))
            made[0].assign_sub(1.0)
            raise Failed
    assert v.numpy().tolist() == [1.0, 2.0] and int(w) == 0 and float(made[0]) == 3.0
    with all_or_nothing():               # a block that ends well keeps its writes
        v.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [2.0, 3.0]


def test_an_outer_block_undoes_what_an_inner_one_kept():
    v = tk.Variable(1.0)
    with pytest.raises(Failed):
        with all_or_nothing():
            with all_or_nothing():
                v.assign(2.0)
            with pytest.raises(Failed), all_or_nothing():
                v.assign(3.0)
                raise Failed
            assert float(v) == 2.0
            raise Failed
    assert float(v) == 1.0


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")   # log(-1), eager and replay
def test_a_replayed_tk_function_is_undone_as_eager_code():
    v = tk.Variable(1.0)

    @tk.function
    def step(x):
        v.assign_add(x)
        return tk.debugging.check_numerics(tk.math.log(x), "log x")
    step(tk.constant(1.0))
    step(tk.constant(2.0))                           # replayed from here on
    with pytest.raises(tk.debugging.NumericsError), all_or_nothing():
        step(tk.constant(-1.0))                      # writes, then its check raises
    assert float(v) == 4.0
    with pytest.raises(tk.debugging.NumericsError):
        step(tk.constant(-1.0))                      # outside a block: eager's partial write
    assert float(v) == 3.0


def test_only_this_threads_writes_are_undone():
    v, other = tk.Variable(0.0), tk.Variable(0.0)
    wrote = threading.Event()

    def elsewhere():
        other.assign(7.0)
        wrote.set()
    with pytest.raises(Failed), all_or_nothing():
        v.assign(1.0)
        thread = threading.Thread(target=elsewhere)
        thread.start()
        wrote.wait()
        thread.join()
        raise Failed
    assert float(v) == 0.0 and float(other) == 7.0
