"""The AutoGraph section of TensorFlow's guide "Better performance with tf.function".

Report group "function (issue 24)": tensorflow/docs site/en/guide/function.ipynb cells 59-70,
numbered as tools/guides/extract.py prints them, re-stated in our own code. tk.function
promises the results of running the Python function eagerly; those are checked here.
"""
import numpy as np
import pytest

import tapekit as tk


def missing(name):
    return pytest.mark.xfail(strict=True, reason=f"issue 24: {name} missing")


def test_while_loop_on_a_tensor(capfd):
    # function.ipynb cell 59: tanh until the sum is <= 1, printing x on each pass
    @tk.function
    def f(x):
        while tk.reduce_sum(x) > 1:
            tk.print(x)
            x = tk.tanh(x)
        return x

    start = np.array([0.9, 0.8, 0.7, 0.6, 0.5], np.float32)
    want, passes = start.copy(), 0
    while want.sum() > 1:
        want, passes = np.tanh(want), passes + 1
    np.testing.assert_allclose(f(tk.constant(start)).numpy(), want, rtol=1e-5)
    out, err = capfd.readouterr()
    assert len((out + err).strip().splitlines()) == passes


def test_to_code_of_the_python_function():
    # function.ipynb cell 61: print(tf.autograph.to_code(f.python_function)). TensorFlow prints
    # AutoGraph's converted source; tapekit converts nothing and returns the function's own
    # source under a comment saying how it runs it (and how to see the generated program).
    @tk.function
    def f(x):
        while tk.reduce_sum(x) > 1:
            x = tk.tanh(x)
        return x

    code = tk.autograph.to_code(f.python_function)
    header = [line for line in code.splitlines() if line.startswith("#")]
    body = code.splitlines()[len(header):]
    assert body[:2] == ["@tk.function", "def f(x):"]
    assert body[2].strip() == "while tk.reduce_sum(x) > 1:"
    words = " ".join(header)
    assert "does not convert" in words and "guard" in words and "get_concrete_function" in words
    compile(code, "<to_code>", "exec")        # still Python: the header is comments


def test_fizzbuzz(capfd):
    # function.ipynb cell 63: for over tk.range with if/elif on tensor values
    @tk.function
    def fizzbuzz(n):
        for i in tk.range(1, n + 1):
            if i % 15 == 0:
                tk.print("fizzbuzz")
            elif i % 3 == 0:
                tk.print("fizz")
            elif i % 5 == 0:
                tk.print("buzz")
            else:
                tk.print(i)

    fizzbuzz(tk.constant(5))
    out, err = capfd.readouterr()
    assert (out + err).split() == ["1", "2", "fizz", "4", "buzz"]


def test_loop_over_python_data():
    # function.ipynb cell 67 (its result; the graph sizes it prints are TensorFlow's own)
    @tk.function
    def train(dataset):
        loss = tk.constant(0)
        for x, y in dataset:
            loss += tk.abs(y - x)
        return loss

    assert int(train([(1, 1)] * 3)) == 0
    assert int(train([(1, 3), (4, 1)])) == 5


def test_accumulating_values_in_a_loop():
    # function.ipynb cell 70: rnn_step = inp + state from zeros is a running sum over time
    @tk.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        input_data = tk.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = tk.TensorArray(tk.float32, size=max_seq_len)
        state = initial_state
        for i in tk.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return tk.transpose(states.stack(), [1, 0, 2])

    data = np.random.default_rng(70).uniform(size=(2, 3, 4)).astype(np.float32)
    out = dynamic_rnn(lambda inp, state: inp + state, tk.constant(data), tk.zeros([2, 4]))
    np.testing.assert_allclose(out.numpy(), np.cumsum(data, axis=1), rtol=1e-6)
