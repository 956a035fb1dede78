# A plausible wrong answer: the student counts tf.function's traces as tapekit's, and
# makes fixed without an input_signature, so the Python floats and the tensor limit still retrace.
def rescale(x, limit):
    peak = tk.reduce_max(tk.abs(x))
    if peak > limit:
        x = x * (limit / peak)
    return x


traced = tk.function(rescale)
for x, limit in [(tk.constant([1.0, 2.0]), 3.0), (tk.constant([5.0, 1.0]), 3.0),
                 (tk.constant([0.5, 0.5]), 3.0), (tk.constant([1.0, 2.0, 3.0]), 3.0),
                 (tk.constant([1.0, 2.0]), 4.0), (tk.constant([1.0, 2.0]), tk.constant(4.0))]:
    traced(x, limit)
traces = traced.experimental_get_tracing_count()
tf_traces = traces
fixed = tk.function(rescale)
