"""tk.test: is the tape's derivative right? Compare it with finite differences.

    theoretical, numerical = tk.test.compute_gradient(f, [x])      # as tf.test.compute_gradient
    tk.test.check_gradients(f, x, order=2)                          # a readable report

Both call the finite-difference helpers of tapekit/testing.py, which tapekit's
own op table is tested with.
"""
import inspect

import numpy as np

from . import testing
from .tape import GradientTape, named_records
from .tensor import constant, convert_to_tensor


# --- tf.test.compute_gradient -------------------------------------------------------------

def compute_gradient(f, x, delta=None):
    """The theoretical (tape) and numerical Jacobians of `f` at `x` (`tf.test.compute_gradient`).

    `x` is a list or tuple of f's arguments. Returns two tuples with one 2-D NumPy
    array per argument, of shape (y.size, x.size): row i, column j is d y.flat[i] /
    d x.flat[j]. As TensorFlow: inputs keep their dtype (Python floats become float32),
    central differences use step `delta` (default 1/1024, exact in binary).

    >>> theoretical, numerical = tk.test.compute_gradient(lambda x: x * x, [1.0])
    >>> theoretical, numerical
    ((array([[2.]], dtype=float32),), (array([[2.]], dtype=float32),))
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"compute_gradient: `x` must be a list or tuple of f's arguments, "
                         f"not a {type(x).__name__}")
    delta = 1.0 / 1024 if delta is None else delta
    xs = [np.array(convert_to_tensor(v)._value) for v in x]
    for k, v in enumerate(xs):
        if v.dtype.kind not in "fc":
            raise TypeError(f"compute_gradient: argument #{k} has dtype {v.dtype.name}; "
                            f"gradients need a floating dtype")
    y = f(*[constant(v) for v in xs])
    theoretical = testing.reverse_jacobian(f, xs, dtype=None)
    numerical = testing.numerical_jacobian(f, xs, eps=delta, dtype=None)
    y_size = int(np.prod(np.shape(y)))

    def as_matrix(jac, v):
        return np.asarray(jac).reshape(y_size, v.size).astype(v.dtype)

    return (tuple(as_matrix(j, v) for j, v in zip(theoretical, xs)),
            tuple(as_matrix(j, v) for j, v in zip(numerical, xs)))


# --- check_gradients: a report ---------------------------------------------------------------

class GradientCheckError(AssertionError):
    """check_gradients found a derivative over tolerance; `.report` has every comparison.

    >>> @tk.custom_gradient
    ... def bad_square(x):
    ...     return x * x, lambda g: g * x                   # wrong: should be 2 x
    >>> try:
    ...     tk.test.check_gradients(bad_square, 3.0, modes=("rev",))
    ... except tk.test.GradientCheckError as e:
    ...     print(e.report.ok, e.report.failures[0].input)
    False x
    """

    def __init__(self, report):
        super().__init__(str(report))
        self.report = report


class GradientCheck:
    """One comparison: one order, one mode, one input.

    >>> report = tk.test.check_gradients(lambda x: x ** 3, 2.0)
    >>> check = report.checks[0]
    >>> check.order, check.mode, check.input, check.ok
    (1, 'reverse', 'x', True)
    """

    def __init__(self, order, mode, input, stats=None, skipped=None, input_ndim=0):
        self.order = order
        self.mode = mode          # "reverse" or "forward"
        self.input = input        # the argument's name
        self.input_ndim = input_ndim
        self.stats = stats        # testing.compare_jacobians(...), or None when skipped
        self.skipped = skipped    # why this comparison could not run

    @property
    def ok(self):
        return self.skipped is not None or self.stats["ok"]


class GradientReport:
    """What check_gradients returns: every comparison, `.ok`, a readable text and HTML form.

    >>> report = tk.test.check_gradients(lambda x: x ** 3, 2.0)
    >>> report.ok, len(report.checks)              # reverse and forward mode, one input
    (True, 2)
    >>> print(str(report).splitlines()[0])
    check_gradients(<lambda>): OK; tape vs central differences in float64, rtol=1e-05, atol=1e-06 (x10 per extra order)
    """

    def __init__(self, name, input_shapes, rtol, atol):
        self.name = name
        self.input_shapes = input_shapes
        self.rtol = rtol
        self.atol = atol
        self.checks = []

    @property
    def ok(self):
        return all(c.ok for c in self.checks)

    @property
    def failures(self):
        return [c for c in self.checks if not c.ok]

    def _rows(self):
        rows = []
        for c in self.checks:
            if c.skipped is not None:
                rows.append((str(c.order), c.mode, c.input, "skipped", "", "", "", c.skipped))
                continue
            s = c.stats
            verdict = "ok" if s["ok"] else "FAIL"
            detail = "" if s["ok"] else f"tape {s['got']:.6g}, numerical {s['expected']:.6g}"
            rows.append((str(c.order), c.mode, c.input, verdict, f"{s['abs_error']:.2e}",
                         _where(c, s["abs_at"]), f"{s['rel_error']:.2e}", detail))
        return rows

    def _title(self):
        verdict = "OK" if self.ok else f"FAILED ({len(self.failures)} of {len(self.checks)} over tolerance)"
        return (f"check_gradients({self.name}): {verdict}; tape vs central differences in "
                f"float64, rtol={self.rtol:g}, atol={self.atol:g} (x10 per extra order)")

    def __str__(self):
        header = ("order", "mode", "input", "result", "max abs err", "at", "max rel err", "")
        rows = [header] + self._rows()
        widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
        lines = [self._title()]
        for r in rows:
            lines.append("  " + "  ".join(f"{v:<{w}}" for v, w in zip(r, widths)) + "  " + r[-1])
        lines.append("'at': where the largest absolute error is (output element, input element); "
                     "order 2 differentiates the gradient, 'grad' (all inputs' gradients joined).")
        return "\n".join(line.rstrip() for line in lines)

    __repr__ = __str__

    def _repr_html_(self):
        from html import escape
        head = "".join(f"<th>{h}</th>" for h in ("order", "mode", "input", "result", "max abs err",
                                                 "at", "max rel err", ""))
        body = "".join("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in r) + "</tr>"
                       for r in self._rows())
        return f"<div><b>{escape(self._title())}</b><table><tr>{head}</tr>{body}</table></div>"


def check_gradients(f, *xs, order=1, modes=("rev", "fwd"), rtol=1e-5, atol=1e-6, eps=1e-6,
                    raise_error=True):
    """Compare f's tape derivatives with central finite differences, and report.

    Checks reverse mode (GradientTape) and forward mode (ForwardAccumulator), for each
    input, up to `order` (2: the derivative of the gradient too), in float64. Returns a
    GradientReport (its text lists, per input, the largest absolute and relative error
    and where); if a derivative is over tolerance it raises GradientCheckError
    carrying that report, unless raise_error=False (then look at `report.ok`).

    >>> tk.test.check_gradients(lambda x: tk.sin(x) * x, [0.1, 0.5, 2.0], order=2).ok
    True
    """
    xs = [np.array(x, dtype=np.float64) for x in xs]
    names = _argument_names(f, len(xs))
    report = GradientReport(getattr(f, "__name__", "f"), [x.shape for x in xs], rtol, atol)
    fn = f
    for k in range(1, order + 1):
        expected = testing.numerical_jacobian(fn, xs, eps)
        for mode in modes:
            label = {"rev": "reverse", "fwd": "forward"}[mode]
            no_jvp = _ops_without_jvp(fn, xs) if mode == "fwd" else []
            if no_jvp:
                why = f"op {', '.join(no_jvp)} has no forward-mode (JVP) rule"
                report.checks += [GradientCheck(k, label, n, skipped=why) for n in names]
                continue
            jacobian = testing.reverse_jacobian if mode == "rev" else testing.forward_jacobian
            for n, x, got, want in zip(names, xs, jacobian(fn, xs), expected):
                stats = testing.compare_jacobians(got, want, rtol, atol)
                report.checks.append(GradientCheck(k, label, n, stats, input_ndim=x.ndim))
        fn = testing.gradient_function(fn)
        rtol, atol, eps = rtol * 10, atol * 10, eps * 10
    if raise_error and not report.ok:
        raise GradientCheckError(report)
    return report


def _where(check, at):
    """'out[1] x[2]': a Jacobian index split into its output and input parts.

    At order 2 the output is the gradient function's ('grad'), all inputs' gradients joined.
    """
    split = len(at) - check.input_ndim
    out, inp = at[:split], at[split:]
    parts = []
    if out:
        parts.append(f"{'out' if check.order == 1 else 'grad'}[{', '.join(map(str, out))}]")
    if inp:
        parts.append(f"{check.input}[{', '.join(map(str, inp))}]")
    return " ".join(parts) or "(scalar)"


def _argument_names(f, n):
    """f's parameter names when it has n plain ones, else x0, x1, ..."""
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if len(params) == n:
        return [p.name for p in params]
    return [f"x{k}" for k in range(n)]


def _ops_without_jvp(f, xs):
    """Names of differentiable ops f uses that forward mode cannot go through."""
    ts = [constant(x) for x in xs]
    with GradientTape() as tape:
        tape.watch(ts)
        f(*ts)
    return sorted({r.op.name for r in named_records(tape._records) if r.op.jvp is None and r.op.differentiable})
