# A plausible wrong answer: limit is a Python float, so the program keeps the value it
# had when clip_and_count was traced.
limit = 1.0
count = tk.Variable(0)


@tk.function
def clip_and_count(x):
    count.assign_add(1)
    return tk.minimum(x, limit)
