"""Run tf_diff's programs (data, see generate.py) with one library: `m` = tensorflow or tapekit.

`run(m, programs)` returns one result per program: {"mode": {"steps": [...], "grads": ...}} for
the modes "eager" and "function" (the same program inside m.function, called twice), where every
value is summarised as {"dt": dtype name, "sh": shape, "v": flat values} or None or
"error: Type". Used by diff.py; as a script, `python interp.py tf|tk programs.json` prints the
results as JSON on stdout (tapekit's side runs through wtpy.py, TensorFlow's in a TensorFlow venv).
"""
import json
import sys
import warnings

import numpy as np


def _unary(name):
    def f(m, x):
        o = m
        for part in name.split("."):
            o = getattr(o, part)
        return o(x)
    return f


OPS = {
    # elementwise one-input (functions of the module, by dotted name)
    **{n: _unary(n) for n in ("negative", "square", "sqrt", "exp", "abs", "sin", "cos", "tanh",
                               "sigmoid", "nn.relu", "stop_gradient", "ones_like", "zeros_like",
                               "identity")},
    "log": _unary("math.log"),
    "neg_op": lambda m, x: -x,
    "softmax": lambda m, x, axis=-1: m.nn.softmax(x, axis=axis),
    "log_softmax": lambda m, x, axis=-1: m.nn.log_softmax(x, axis=axis),
    # elementwise two-input: functions and operators
    "add": lambda m, x, y: m.add(x, y), "subtract": lambda m, x, y: m.subtract(x, y),
    "multiply": lambda m, x, y: m.multiply(x, y), "divide": lambda m, x, y: m.divide(x, y),
    "pow": lambda m, x, y: m.pow(x, y), "maximum": lambda m, x, y: m.maximum(x, y),
    "minimum": lambda m, x, y: m.minimum(x, y),
    "op_add": lambda m, x, y: x + y, "op_sub": lambda m, x, y: x - y,
    "op_mul": lambda m, x, y: x * y, "op_div": lambda m, x, y: x / y,
    "op_pow": lambda m, x, y: x ** y, "op_matmul": lambda m, x, y: x @ y,
    "op_radd": lambda m, x, y: y + x, "op_rsub": lambda m, x, y: y - x,
    "op_rmul": lambda m, x, y: y * x, "op_rdiv": lambda m, x, y: y / x,
    "op_rpow": lambda m, x, y: y ** x,
    "op_lt": lambda m, x, y: x < y, "op_ge": lambda m, x, y: x >= y,
    "matmul": lambda m, x, y, **kw: m.matmul(x, y, **kw),
    # reductions
    **{n: (lambda n: lambda m, x, **kw: getattr(m, n)(x, **kw))(n)
       for n in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod")},
    # shapes, selection, indexing
    "reshape": lambda m, x, shape: m.reshape(x, shape),
    "transpose": lambda m, x, perm=None: m.transpose(x, perm=perm),
    "expand_dims": lambda m, x, axis: m.expand_dims(x, axis),
    "squeeze": lambda m, x, axis=None: m.squeeze(x, axis=axis),
    "concat": lambda m, *xs, axis: m.concat(list(xs), axis=axis),
    "stack": lambda m, *xs, axis=0: m.stack(list(xs), axis=axis),
    "getitem": lambda m, x, idx: x[idx],
    "gather": lambda m, x, indices, axis=0: m.gather(x, indices, axis=axis),
    "where": lambda m, c, x, y: m.where(c, x, y),
    "cast": lambda m, x, dtype: m.cast(x, dtype),
    "clip_by_value": lambda m, x, lo, hi: m.clip_by_value(x, lo, hi),
    "clip_by_norm": lambda m, x, c: m.clip_by_norm(x, c),
    "one_hot": lambda m, x, depth: m.one_hot(x, depth),
    "sparse_xent": lambda m, labels, logits: m.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits),
    "xent": lambda m, labels, logits: m.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
    "clip_by_global_norm": lambda m, x, y, c: m.clip_by_global_norm([x, y], c)[0][0],
    # variables (the variable itself goes on: later ops read it)
    "assign_add": lambda m, v, d: (v.assign_add(d), v)[1],
    "assign": lambda m, v, d: (v.assign(d), v)[1],
}


def decode(m, a, env):
    """A program argument -> the value: {"v": i} is env[i]; {"dtype": n}, {"slice": [..]},
    {"tuple": [..]}, {"ellipsis": 1}, {"newaxis": 1}; lists and numbers as they are."""
    if isinstance(a, dict):
        if "v" in a:
            return env[a["v"]]
        if "dtype" in a:
            return getattr(m, a["dtype"])
        if "slice" in a:
            return slice(*a["slice"])
        if "tuple" in a:
            return tuple(decode(m, b, env) for b in a["tuple"])
        if "ellipsis" in a:
            return Ellipsis
        if "newaxis" in a:
            return None
        raise ValueError(a)
    return a


def summary(t):
    if t is None:
        return None
    if hasattr(t, "indices") and hasattr(t, "dense_shape"):   # TensorFlow's IndexedSlices
        import tensorflow as tf
        t = tf.convert_to_tensor(t)
    if hasattr(t, "read_value") and not hasattr(t, "numpy"):
        t = t.read_value()
    a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
    name = getattr(getattr(t, "dtype", None), "name", None) or a.dtype.name
    return {"dt": name, "sh": list(a.shape), "v": a.astype(np.float64).ravel().tolist()}


def nest_map(f, x):
    if isinstance(x, (list, tuple)):
        return [nest_map(f, y) for y in x]
    return f(x)


def make_inputs(m, prog):
    env = [None] * (len(prog["inputs"]) + len(prog["ops"]))
    for spec in prog["inputs"]:
        value = np.array(spec["value"], dtype=spec["dtype"]).reshape(spec["shape"])
        if spec["kind"] == "var":
            env[spec["at"]] = m.Variable(value, trainable=spec.get("trainable", True))
        else:
            env[spec["at"]] = m.constant(value)
    return env


def body(m, prog, env):
    """The program proper over env (inputs first): records the steps, returns (steps, grads)."""
    q = prog["query"]
    steps = []

    def forward(env):
        for step in prog["ops"]:
            args = [decode(m, a, env) for a in step["args"]]
            kw = {k: decode(m, v, env) for k, v in step.get("kw", {}).items()}
            y = OPS[step["op"]](m, *args, **kw)
            env[step["at"]] = y
            steps.append(y)
        t = prog["target"]
        return env[t] if isinstance(t, int) else [env[i] for i in t]

    ug = m.UnconnectedGradients.ZERO if q.get("unconnected") == "zero" else m.UnconnectedGradients.NONE
    watch = [env[i] for i in prog["watch"]]
    if q["kind"] == "second":
        with m.GradientTape(persistent=True) as outer:
            outer.watch(watch)
            with m.GradientTape(persistent=prog["persistent"]) as inner:
                inner.watch(watch)
                target = forward(env)
            first = inner.gradient(target, env[q["sources"][0]])
            s = m.reduce_sum(first) if first is not None else None
        srcs = [env[i] for i in q["sources"]]
        second = None if s is None else outer.gradient(s, srcs, unconnected_gradients=ug)
        return reads(m, steps), [first, second]
    with m.GradientTape(persistent=prog["persistent"],
                        watch_accessed_variables=prog.get("watch_accessed", True)) as tape:
        tape.watch(watch)
        target = forward(env)
    srcs = [env[i] for i in q["sources"]]
    if q["kind"] == "gradient":
        og = q.get("output_gradients")
        og = None if og is None else m.constant(np.array(og["v"], np.dtype(og["dt"])).reshape(og["sh"]))
        out = tape.gradient(target, srcs, output_gradients=og, unconnected_gradients=ug)
    elif q["kind"] == "jacobian":
        out = tape.jacobian(target, srcs, unconnected_gradients=ug)
    else:
        out = tape.batch_jacobian(target, srcs[0])
    if prog["persistent"] and q["kind"] == "gradient":   # a second call on a persistent tape
        out = [out, tape.gradient(target, srcs, unconnected_gradients=ug)]
    return reads(m, steps), out


def reads(m, steps):
    """A variable among the steps -> its value now (a function returns tensors, not variables)."""
    return [m.convert_to_tensor(s) if isinstance(s, m.Variable) else s for s in steps]


def run_one(m, prog, mode):
    env = make_inputs(m, prog)
    try:
        if mode == "eager":
            steps, grads = body(m, prog, env)
            return {"steps": [summary(s) for s in steps], "grads": nest_map(summary, grads)}
        tensor_at = [s["at"] for s in prog["inputs"] if s["kind"] == "const"]

        @m.function
        def f(*ts):
            e = list(env)
            for i, t in zip(tensor_at, ts):
                e[i] = t
            steps, grads = body(m, prog, e)
            return steps, grads

        calls = []
        for _ in range(2):   # twice: the second call sees the variables the first one changed
            steps, grads = f(*[env[i] for i in tensor_at])
            calls.append({"steps": [summary(s) for s in steps], "grads": nest_map(summary, grads)})
        return calls
    except Exception as e:  # noqa: BLE001 - a raise is a result to compare too
        return f"error: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"


def run(m, programs, modes=("eager", "function")):
    out = []
    for prog in programs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append({mode: run_one(m, prog, mode) for mode in modes if mode == "eager" or prog.get("function")})
    return out


if __name__ == "__main__":
    which, path = sys.argv[1], sys.argv[2]
    if which == "tf":
        import tensorflow as m
    else:
        import tapekit as m
    with open(path) as fh:
        programs = json.load(fh)
    json.dump(run(m, programs), sys.stdout)


CODE = {
    "neg_op": "-{0}", "op_add": "{0} + {1}", "op_sub": "{0} - {1}", "op_mul": "{0} * {1}",
    "op_div": "{0} / {1}", "op_pow": "{0} ** {1}", "op_matmul": "{0} @ {1}", "op_radd": "{1} + {0}",
    "op_rsub": "{1} - {0}", "op_rmul": "{1} * {0}", "op_rdiv": "{1} / {0}", "op_rpow": "{1} ** {0}",
    "op_lt": "{0} < {1}", "op_ge": "{0} >= {1}", "getitem": "{0}[{1}]", "log": "tk.math.log({0})",
    "assign_add": "{0}.assign_add({1}); v = {0}", "assign": "{0}.assign({1}); v = {0}",
    "concat": "tk.concat([{0}, {1}], {kw})", "softmax": "tk.nn.softmax({0})",
    "log_softmax": "tk.nn.log_softmax({0})",
    "sparse_xent": "tk.nn.sparse_softmax_cross_entropy_with_logits(labels={0}, logits={1})",
    "xent": "tk.nn.softmax_cross_entropy_with_logits(labels={0}, logits={1})",
    "clip_by_global_norm": "tk.clip_by_global_norm([{0}, {1}], {2})[0][0]", "stack": "tk.stack([{0}, {1}], {kw})",
}


def code(prog):
    """The program as Python text for a person to read (a repro for the report), not to run here."""
    def arg(a):
        if isinstance(a, dict):
            if "v" in a:
                return f"v{a['v']}"
            if "dtype" in a:
                return f"tk.{a['dtype']}"
            if "slice" in a:
                return ":".join("" if x is None else str(x) for x in a["slice"])
            if "tuple" in a:
                return ", ".join(arg(b) for b in a["tuple"]) or "()"
            return "..." if "ellipsis" in a else "tk.newaxis"
        return repr(a)
    lines = ["import numpy as np, tapekit as tk"]
    for s in prog["inputs"]:
        val = f"np.array({s['value']}, '{s['dtype']}').reshape({tuple(s['shape'])})"
        if s["kind"] == "var":
            lines.append(f"v{s['at']} = tk.Variable({val}" + ("" if s.get("trainable", True) else ", trainable=False") + ")")
        else:
            lines.append(f"v{s['at']} = tk.constant({val})")
    q = prog["query"]
    ug = ", unconnected_gradients='zero'" if q.get("unconnected") == "zero" else ""
    tape = f"tk.GradientTape(persistent={prog['persistent']}" + \
        ("" if prog.get("watch_accessed", True) else ", watch_accessed_variables=False") + ")"
    ind = "    "
    if q["kind"] == "second":
        lines += ["with tk.GradientTape(persistent=True) as outer:",
                  f"    outer.watch([{', '.join(f'v{w}' for w in prog['watch'])}])",
                  f"    with {tape} as tape:"]
        ind = "        "
    else:
        lines.append(f"with {tape} as tape:")
    lines.append(f"{ind}tape.watch([{', '.join(f'v{w}' for w in prog['watch'])}])")
    for s in prog["ops"]:
        args = [arg(a) for a in s["args"]]
        kw = ", ".join(f"{k}={arg(v)}" for k, v in s.get("kw", {}).items())
        if s["op"] in CODE:
            expr = CODE[s["op"]].format(*args, kw=kw)
        else:
            name = s["op"] if "." in s["op"] else s["op"]
            expr = f"tk.{name}({', '.join(args + ([kw] if kw else []))})"
        lines.append(f"{ind}v{s['at']} = {expr}")
    t = prog["target"]
    target = f"v{t}" if isinstance(t, int) else "[" + ", ".join(f"v{i}" for i in t) + "]"
    srcs = "[" + ", ".join(f"v{i}" for i in q["sources"]) + "]"
    if q["kind"] == "second":
        lines += [f"    g = tape.gradient({target}, v{q['sources'][0]})", "    s = tk.reduce_sum(g)",
                  f"print(g, outer.gradient(s, {srcs}{ug}))"]
    elif q["kind"] == "gradient":
        og = q.get("output_gradients")
        og = "" if og is None else f", output_gradients=np.array({og['v']}, '{og['dt']}').reshape({tuple(og['sh'])})"
        lines.append(f"print(tape.gradient({target}, {srcs}{og}{ug}))")
    elif q["kind"] == "jacobian":
        lines.append(f"print(tape.jacobian({target}, {srcs}{ug}))")
    else:
        lines.append(f"print(tape.batch_jacobian({target}, v{q['sources'][0]}))")
    if prog.get("function"):
        lines.append("# also inside tk.function (called twice)")
    return "\n".join(lines)
