"""Random small programs over API.md's surface, as data (never source text).

`programs(seed, n)` draws n programs with numpy's seeded RNG. A program is a dict:
  inputs:  [{"kind": "const"|"var"|"py", "dtype", "shape", "value", "trainable"}]
  watch:   input indices the tape watches; persistent, watch_accessed: the tape's flags
  ops:     [{"op": name in interp.OPS, "args": [...], "kw": {...}, "at": i}]; {"v": i} names
           env[i]; "at" says where an input or an op's result goes in env (drawn interleaved)
  target:  an env index, or a list of them (a structure the gradient sums)
  query:   {"kind": "gradient"|"jacobian"|"batch_jacobian"|"second", "sources": [env indices],
            "unconnected": "none"|"zero", "output_gradients": summary or None}
  function: also run the program inside m.function (twice)
The generator tracks shapes and dtypes so most programs are valid; a few are not on purpose
(mixed dtypes, bad axes, out-of-range indices): then both libraries must raise.
"""
import numpy as np

FLOAT_UNARY = ["negative", "square", "sqrt", "exp", "log", "abs", "sin", "cos", "tanh", "sigmoid",
               "nn.relu", "stop_gradient", "ones_like", "zeros_like", "identity", "neg_op"]
INT_UNARY = ["negative", "square", "abs", "ones_like", "zeros_like", "identity", "neg_op", "stop_gradient"]
BINARY = ["add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "op_add", "op_sub",
          "op_mul", "op_div", "op_pow", "op_radd", "op_rsub", "op_rmul", "op_rdiv", "op_rpow"]
REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]
FAMILIES = {"unary": 4, "binary": 6, "reduce": 3, "shape": 3, "index": 3, "where": 1, "cast": 1,
            "matmul": 1, "concat": 1, "softmax": 1, "clip": 1, "assign": 1, "one_hot": 0.3, "xent": 1}
FLOATS = [-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 0.25]


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.inputs, self.env, self.ops = [], [], []   # env: [(shape, dtype, kind)]

    def pick(self, seq, p=None):
        return seq[self.r.choice(len(seq), p=p)]

    def chance(self, p):
        return self.r.random() < p

    def shape(self, rank=None):
        rank = self.pick([0, 1, 1, 2, 2, 2, 3]) if rank is None else rank
        return tuple(int(self.pick([0, 1, 2, 2, 3, 3, 4], p=[.04, .2, .2, .16, .2, .1, .1])) for _ in range(rank))

    def values(self, shape, dtype):
        n = int(np.prod(shape))
        if dtype == "int32":
            return [int(v) for v in self.r.integers(-3, 4, size=n)]
        vals = [float(self.pick(FLOATS)) if self.chance(.5) else float(np.round(self.r.normal(), 3))
                for _ in range(n)]
        return vals

    def add_input(self, shape, dtype, kind=None):
        kind = kind or self.pick(["const", "const", "var"])
        spec = {"kind": kind, "dtype": dtype, "shape": list(shape), "value": self.values(shape, dtype)}
        if kind == "var":
            spec["trainable"] = not self.chance(.1)
        spec["at"] = len(self.env)
        self.inputs.append(spec)
        self.env.append((tuple(shape), dtype, kind))
        return len(self.env) - 1

    def add_op(self, op, args, kw, shape, dtype):
        self.ops.append({"op": op, "args": args, "kw": kw or {}, "at": len(self.env)})
        self.env.append((tuple(shape), dtype, "op"))
        return len(self.env) - 1

    def broadcast_partner(self, shape):
        """A shape that broadcasts with `shape` (drop leading axes, 1s), rarely one that does not."""
        s = list(shape)
        if s and self.chance(.3):
            s = s[self.r.integers(0, len(s) + 1):]
        s = [1 if self.chance(.25) else d for d in s]
        if self.chance(.15):
            s = [self.pick([1, 2])] + s
        if s and self.chance(.04):
            s[-1] = s[-1] + 2   # incompatible
        return tuple(s)

    def operand(self, shape, dtype):
        """A literal Python scalar, or an env entry / new input that broadcasts with shape."""
        u = self.r.random()
        if u < .2:
            if (dtype == "int32" and not self.chance(.08)) or self.chance(.3):
                return int(self.r.integers(-2, 4)), ()
            return float(self.pick(FLOATS)), ()
        if u < .35:
            same = [i for i, (s, d, _) in enumerate(self.env) if d == dtype and s == shape]
            if same:
                i = self.pick(same)
                return {"v": int(i)}, shape
        d = dtype if not self.chance(.03) else self.pick(["float32", "float64", "int32"])
        s = self.broadcast_partner(shape)
        return {"v": self.add_input(s, d)}, s

    # one op on env[i]; returns the new index (or i when nothing fitted)
    def step(self, i):
        shape, dtype, _ = self.env[i]
        fam = self.pick(list(FAMILIES), p=np.array(list(FAMILIES.values())) / sum(FAMILIES.values()))
        x = {"v": i}
        rank = len(shape)
        if fam == "unary":
            op = self.pick(FLOAT_UNARY if dtype != "int32" or self.chance(.05) else INT_UNARY)
            return self.add_op(op, [x], {}, shape, dtype)
        if fam == "binary":
            op = self.pick(BINARY)
            y, s = self.operand(shape, dtype)
            try:
                out = np.broadcast_shapes(shape, s)
            except ValueError:
                out = shape
            if op in ("divide", "op_div", "op_rdiv") and dtype == "int32":
                odt = "float64"
            else:
                odt = dtype
            return self.add_op(op, [x, y], {}, out, odt)
        if fam == "reduce":
            op = self.pick(REDUCE)
            keep = bool(self.chance(.4))
            kw = {"keepdims": keep} if self.chance(.8) else {}
            u = self.r.random()
            if rank == 0 or u < .25:
                axis = None
            elif u < .6:
                axis = int(self.r.integers(-rank, rank))
            elif u < .9:
                k = int(self.r.integers(1, rank + 1))
                axis = [int(a) for a in self.r.choice(rank, size=k, replace=False)]
                axis = [a - rank if self.chance(.3) else a for a in axis]
            else:
                axis = rank   # out of range: both raise
            if axis is not None or self.chance(.5):
                kw["axis"] = axis
            keep = kw.get("keepdims", False)
            if axis is None:
                out = tuple(1 for _ in shape) if keep else ()
            else:
                axes = {a % rank for a in (axis if isinstance(axis, list) else [axis])} if axis != rank else set()
                out = tuple(1 if j in axes else d for j, d in enumerate(shape) if keep or j not in axes)
            return self.add_op(op, [x], kw, out, dtype)
        if fam == "shape":
            u = self.r.random()
            n = int(np.prod(shape))
            if u < .35:
                new = self.shape(self.pick([0, 1, 2, 3])) if n != 1 else ()
                facts = self.factor(n)
                if self.chance(.3) and facts and n > 0:
                    facts = list(facts)
                    facts[self.r.integers(len(facts))] = -1
                shp = facts if not self.chance(.05) else list(new)
                out = tuple(n // int(np.prod([f for f in shp if f != -1]) or 1) if f == -1 else f for f in shp) \
                    if shp else ()
                return self.add_op("reshape", [x, [int(f) for f in shp]], {}, out, dtype)
            if u < .6:
                if rank == 0:
                    return self.add_op("transpose", [x], {}, shape, dtype)
                perm = [int(p) for p in self.r.permutation(rank)] if self.chance(.8) else None
                out = tuple(shape[p] for p in perm) if perm else tuple(reversed(shape))
                return self.add_op("transpose", [x], {"perm": perm}, out, dtype)
            if u < .8:
                axis = int(self.r.integers(-rank - 1, rank + 1))
                a = axis % (rank + 1)
                return self.add_op("expand_dims", [x, axis], {}, shape[:a] + (1,) + shape[a:], dtype)
            ones = [j for j, d in enumerate(shape) if d == 1]
            axis = None if not ones or self.chance(.3) else [int(self.pick(ones)) - (rank if self.chance(.3) else 0)]
            out = tuple(d for j, d in enumerate(shape) if d != 1 or (axis is not None and j % max(rank, 1) not in
                                                                       {a % rank for a in axis}))
            return self.add_op("squeeze", [x], {"axis": axis}, out, dtype)
        if fam == "index":
            if rank == 0:
                return i
            if self.chance(.4):
                axis = int(self.r.integers(-rank, rank))
                dim = shape[axis]
                k = int(self.r.integers(0 if self.chance(.1) else 1, 4))
                hi = dim if dim > 0 and not self.chance(.03) else dim + 1
                idx = [int(v) for v in self.r.integers(0, max(hi, 1), size=k)]
                if self.chance(.3) and k:
                    idx = [[int(v) for v in self.r.integers(0, max(hi, 1), size=2)] for _ in range(k)]
                ish = np.shape(idx)
                out = shape[:axis % rank] + tuple(ish) + shape[axis % rank + 1:]
                return self.add_op("gather", [x, idx], {"axis": axis}, out, dtype)
            parts = []
            for d in shape:
                u = self.r.random()
                if u < .3 and d > 0:
                    parts.append(int(self.r.integers(-d, d)))
                elif u < .85:
                    st = self.pick([None, None, 1, 2, -1])
                    a = self.pick([None, 0, 1, -1])
                    b = self.pick([None, None, 2, -1, 5])
                    parts.append({"slice": [a, b, st]})
                elif u < .92:
                    parts.append({"newaxis": 1})
                    parts.append({"slice": [None, None, None]})
                else:
                    parts.append({"ellipsis": 1})
                    break
            if sum(1 for p in parts if p == {"ellipsis": 1}) > 1:
                return i
            enc = [slice(*p["slice"]) if isinstance(p, dict) and "slice" in p else
                   (None if p == {"newaxis": 1} else (Ellipsis if p == {"ellipsis": 1} else p)) for p in parts]
            try:
                out = np.empty(shape)[tuple(enc)].shape
            except IndexError:
                return i
            idx = {"tuple": parts} if len(parts) != 1 or self.chance(.5) else parts[0]
            return self.add_op("getitem", [x, idx], {}, out, dtype)
        if fam == "where":
            if dtype == "bool":
                return i
            zero = 0 if dtype == "int32" else 0.0
            c = self.add_op(self.pick(["op_lt", "op_ge"]), [x, zero], {}, shape, "bool")
            y, s = self.operand(shape, dtype)
            if not isinstance(y, dict):
                y = {"v": self.add_input(shape, dtype)}
                s = shape
            try:
                out = np.broadcast_shapes(shape, s)
            except ValueError:
                out = shape
            return self.add_op("where", [{"v": c}, x, y] if self.chance(.6) else [{"v": c}, y, x], {}, out, dtype)
        if fam == "cast":
            to = self.pick(["float32", "float64", "int32"])
            return self.add_op("cast", [x, {"dtype": to}], {}, shape, to)
        if fam == "matmul":
            if rank < 2:
                return i
            k = shape[-1]
            other = shape[:-2] if self.chance(.7) else shape[-3:-2] and ()
            s = tuple(other) + (k, int(self.pick([1, 2, 3])))
            if self.chance(.04):
                s = s[:-2] + (k + 1, s[-1])
            j = self.add_input(s, dtype if not self.chance(.03) else "float64")
            out = np.broadcast_shapes(shape[:-2], s[:-2]) + (shape[-2], s[-1])
            kw = {}
            if self.chance(.2):
                kw = {"transpose_b": True}
                j = self.add_op("transpose", [{"v": j}], {"perm": list(range(len(s) - 2)) + [len(s) - 1, len(s) - 2]},
                                s[:-2] + (s[-1], s[-2]), self.env[j][1])
            op = "matmul" if kw or self.chance(.5) else "op_matmul"
            return self.add_op(op, [x, {"v": j}], kw, out, dtype)
        if fam == "concat":
            if rank == 0 and self.chance(.8):
                return i
            if self.chance(.5) or rank == 0:
                j = self.add_input(shape, dtype)
                axis = int(self.r.integers(-rank - 1, rank + 1))
                a = axis % (rank + 1)
                return self.add_op("stack", [x, {"v": j}], {"axis": axis}, shape[:a] + (2,) + shape[a:], dtype)
            axis = int(self.r.integers(-rank, rank))
            s = list(shape)
            s[axis] = int(self.pick([0, 1, 2]))
            j = self.add_input(s, dtype)
            out = list(shape)
            out[axis] += s[axis]
            return self.add_op("concat", [x, {"v": j}], {"axis": axis}, out, dtype)
        if fam == "softmax":
            if dtype == "int32" or rank == 0:
                return i
            kw = {"axis": int(self.r.integers(-rank, rank))} if self.chance(.3) else {}
            return self.add_op(self.pick(["softmax", "log_softmax"]), [x], kw, shape, dtype)
        if fam == "clip":
            if dtype == "int32":
                return self.add_op("clip_by_value", [x, -1, 2], {}, shape, dtype)
            if self.chance(.5):
                return self.add_op("clip_by_norm", [x, float(self.pick([0.5, 1.0, 3.0]))], {}, shape, dtype)
            lo, hi = sorted([float(self.pick(FLOATS)), float(self.pick(FLOATS))])
            return self.add_op("clip_by_value", [x, lo, hi], {}, shape, dtype)
        if fam == "assign":
            vs = [j for j, (s, d, k) in enumerate(self.env) if k == "var"]
            if not vs:
                return i
            v = int(self.pick(vs))
            vshape, vdt, _ = self.env[v]
            if vshape != shape or vdt != dtype:
                d = {"v": self.add_input(vshape, vdt, "const")} if self.chance(.8) else 1.0
            else:
                d = x
            op = self.pick(["assign_add", "assign"])
            j = self.add_op(op, [{"v": v}, d], {}, vshape, vdt)
            # go on from a mix of the variable (read after the write) and x
            return j
        if fam == "xent":
            if dtype == "int32" or rank == 0:
                return i
            n = shape[-1]
            if self.chance(.5):
                lab = [int(v) for v in self.r.integers(0, max(n, 1) + (1 if self.chance(.05) else 0),
                                                       size=int(np.prod(shape[:-1])))]
                j = self.add_input(shape[:-1], "int32", "const")
                self.inputs[-1]["value"] = lab
                return self.add_op("sparse_xent", [{"v": j}, x], {}, shape[:-1], dtype)
            if self.chance(.3):
                j = self.add_input(self.broadcast_partner(shape), dtype)
                return self.add_op("clip_by_global_norm", [x, {"v": j}, float(self.pick([0.5, 2.0]))], {},
                                   shape, dtype)
            j = self.add_input(shape, dtype)
            return self.add_op("xent", [{"v": j}, x], {}, shape[:-1], dtype)
        if fam == "one_hot":
            if dtype != "int32":
                return i
            return self.add_op("one_hot", [x, 3], {}, shape + (3,), "float32")
        return i

    def factor(self, n):
        if n == 0:
            return [0, self.pick([1, 2, 3])] if self.chance(.5) else [0]
        out, m = [], n
        for p in (2, 3, 2, 5, 7):
            if m % p == 0 and self.chance(.6):
                out.append(p)
                m //= p
        out.append(m)
        self.r.shuffle(out)
        return out


def program(seed):
    r = np.random.default_rng(seed)
    g = Gen(r)
    n_in = int(r.integers(1, 3))
    for _ in range(n_in):
        dt = g.pick(["float32", "float32", "float32", "float64", "int32"])
        g.add_input(g.shape(), dt)
    cur = int(r.integers(0, len(g.env)))
    for _ in range(int(r.integers(2, 6))):
        cur = g.step(cur)
    if not g.ops:
        cur = g.add_op("square", [{"v": cur}], {}, g.env[cur][0], g.env[cur][1])
    results = [j for j in range(len(g.env)) if g.env[j][2] == "op"]
    target = cur if not g.chance(.15) or len(results) < 2 else [cur, int(g.pick(results))]
    tensors = [j for j, (s, d, k) in enumerate(g.env) if k in ("const", "var")]
    consts = [j for j in tensors if g.env[j][2] == "const"]
    watch = [j for j in consts if g.chance(.85)]
    kind = g.pick(["gradient", "gradient", "gradient", "jacobian", "batch_jacobian", "second"],
                  p=[.3, .2, .15, .15, .08, .12])
    srcs = [j for j in tensors if g.chance(.8)] or tensors[:1]
    if g.chance(.15) and results:
        srcs.append(int(g.pick(results)))   # an intermediate value as a source
    q = {"kind": kind, "sources": [int(s) for s in srcs],
         "unconnected": "zero" if g.chance(.3) else "none"}
    tshape, tdt, _ = g.env[cur]
    if kind == "gradient" and isinstance(target, int) and g.chance(.25) and tdt in ("float32", "float64"):
        q["output_gradients"] = {"dt": tdt, "sh": list(tshape), "v": g.values(tshape, tdt)}
    if kind in ("jacobian", "batch_jacobian", "second") and isinstance(target, list):
        target = target[0]
    return {"inputs": g.inputs, "watch": [int(w) for w in watch], "ops": g.ops, "target": target,
            "query": q, "persistent": bool(g.chance(.3)), "watch_accessed": not g.chance(.1),
            "function": bool(g.chance(.35)), "seed": int(seed)}


def programs(seed, n):
    return [program(seed * 1_000_003 + k) for k in range(n)]
