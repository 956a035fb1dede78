"""The gradient checker: the tape's derivatives against central finite differences.

One checker, three ways in:

    tk.testing.check_grads(f, x, order=2)       # assert: raises GradientCheckError, else None
    report = tk.testing.check_gradients(f, x)   # the same checks as a readable report
    check = tk.testing.check_gradient(name, tape_gradient, f, x)   # one gradient you already have

`tk.test.check_gradients` is the TensorFlow-named door to the same code; the widgets'
NodeInspector uses `check_gradient`. Everything runs in float64; `f` takes and returns
tensors. The three Jacobians the checker compares come from jacobians.py.
"""
import inspect
from html import escape

import numpy as np

from ..display.format import number, summary
from ..ops.conversion import constant
from ..tape import GradientTape
from .jacobians import (compare_jacobians, forward_jacobian, gradient_function,
                        numerical_jacobian, reverse_jacobian, value_of)


# --- the checker ---------------------------------------------------------------------------------

class GradientCheck:
    """One comparison of a tape derivative with finite differences: one order, mode and input.

    `ok` is True only if the comparison ran and was within tolerance; `skipped` says why
    it could not run (then `stats` is None). `stats` is `compare_jacobians(...)`.
    `str(check)` is one line; `tape` and `numerical` are the two derivatives when the
    check was of one gradient (check_gradient), else None.

    >>> report = tk.testing.check_gradients(lambda x: x ** 3, 2.0)
    >>> check = report.checks[0]
    >>> check.order, check.mode, check.input, check.ok
    (1, 'reverse', 'x', True)
    """

    def __init__(self, input, stats=None, skipped=None, *, order=1, mode="reverse",
                 input_ndim=0, tape=None, numerical=None, note=""):
        self.input = input        # the argument's name (a node id in the inspector)
        self.stats = stats
        self.skipped = skipped
        self.order = order
        self.mode = mode          # "reverse" or "forward"
        self.input_ndim = input_ndim
        self.tape = tape
        self.numerical = numerical
        self.note = note          # the step and tolerances, for the one-line text

    @property
    def ok(self):
        return self.stats is not None and self.stats["ok"]

    def __str__(self):
        if self.stats is None:
            return f"{self.input}: cannot check: {self.skipped}"
        s = self.stats
        verdict = "OK" if s["ok"] else "MISMATCH"
        if self.tape is not None:
            shown = f"tape gradient {summary(self.tape)}; central differences {summary(self.numerical)}"
        else:
            shown = f"{self.mode} mode, order {self.order}"
        return (f"{self.input}: {verdict}. {shown}; largest error {number(s['abs_error'])} "
                f"(relative {number(s['rel_error'])}). {self.note}").rstrip()

    __repr__ = __str__


class GradientCheckError(AssertionError):
    """A derivative over tolerance; `.report` has every comparison.

    >>> @tk.custom_gradient
    ... def bad_square(x):
    ...     return x * x, lambda g: g * x                   # wrong: should be 2 x
    >>> try:
    ...     tk.testing.check_grads(bad_square, 3.0, modes=("rev",))
    ... except tk.testing.GradientCheckError as e:
    ...     print(e.report.ok, e.report.failures[0].input)
    False x
    """

    def __init__(self, report):
        super().__init__(str(report))
        self.report = report


class GradientReport:
    """What check_gradients returns: every comparison, `.ok`, a readable text and HTML form.

    `ok` counts the comparisons that ran; one that could not run (forward mode through
    an op without a JVP rule) is listed as skipped, with the reason.

    >>> report = tk.testing.check_gradients(lambda x: x ** 3, 2.0)
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
        return not self.failures

    @property
    def failures(self):
        return [c for c in self.checks if c.skipped is None and not c.ok]

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
    carrying that report, unless raise_error=False (then look at `report.ok`). Forward
    mode through an op without a JVP rule is listed as skipped, with the op's name.

    >>> tk.testing.check_gradients(lambda x: tk.sin(x) * x, [0.1, 0.5, 2.0], order=2).ok
    True
    """
    report = _run_checks(f, xs, order, modes, rtol, atol, eps, skip_missing_jvp=True)
    if raise_error and not report.ok:
        raise GradientCheckError(report)
    return report


def check_grads(f, *xs, order=1, modes=("rev", "fwd"), rtol=1e-5, atol=1e-6, eps=1e-6):
    """Assert that f's derivatives match finite differences: check_gradients as an assertion.

    Returns None; raises GradientCheckError (an AssertionError, its text the report that
    names the input and the largest error) if a derivative is over tolerance. Unlike
    check_gradients it does not skip: forward mode through an op without a JVP rule
    raises NotImplementedError (pass modes=("rev",) to check reverse mode only).

    >>> tk.testing.check_grads(lambda x: tk.tanh(x) * x, np.array([0.5, -1.0]), order=2)   # raises if wrong
    """
    report = _run_checks(f, xs, order, modes, rtol, atol, eps, skip_missing_jvp=False)
    if not report.ok:
        raise GradientCheckError(report)


def check_gradient(name, tape_gradient, f, x, eps=1e-6, rtol=1e-3, atol=1e-4):
    """Check one gradient you already have: `tape_gradient` against d sum(f(x)) / dx.

    For a gradient that did not come from calling a function on the tape, such as a
    node's gradient in the NodeInspector. The default tolerances are float32-sized.

    >>> check = tk.testing.check_gradient("x", np.array([4.0]), lambda x: x * x, np.array([2.0]))
    >>> check.ok
    True
    >>> print(tk.testing.check_gradient("x", np.array([5.0]), lambda x: x * x, np.array([2.0])))
    x: MISMATCH. tape gradient [5.0]; central differences [4.0]; largest error 1.0 (relative 0.25). (eps=1e-06; ...)
    """
    x = np.asarray(x, dtype=np.float64)
    tape_gradient = np.asarray(tape_gradient)

    def total(t):
        return _sum(f(t))

    (jac,) = numerical_jacobian(total, [x], eps=eps)
    numerical = jac.reshape(np.shape(tape_gradient))
    stats = compare_jacobians(np.asarray(tape_gradient, dtype=np.float64), numerical, rtol, atol)
    return GradientCheck(name, stats, tape=tape_gradient, numerical=numerical,
                         input_ndim=x.ndim, note=f"(eps={eps:g}; rtol={rtol:g}, atol={atol:g})")


def _run_checks(f, xs, order, modes, rtol, atol, eps, skip_missing_jvp):
    """Every comparison of check_gradients / check_grads, as a GradientReport."""
    xs = [np.array(x, dtype=np.float64) for x in xs]
    names = _argument_names(f, len(xs))
    report = GradientReport(getattr(f, "__name__", "f"), [x.shape for x in xs], rtol, atol)
    fn = f
    for k in range(1, order + 1):
        expected = numerical_jacobian(fn, xs, eps)
        for mode in modes:
            label = {"rev": "reverse", "fwd": "forward"}[mode]
            no_jvp = _ops_without_jvp(fn, xs) if mode == "fwd" and skip_missing_jvp else []
            if no_jvp:
                why = f"op {', '.join(no_jvp)} has no forward-mode (JVP) rule"
                report.checks += [GradientCheck(n, skipped=why, order=k, mode=label) for n in names]
                continue
            jacobian = reverse_jacobian if mode == "rev" else forward_jacobian
            for n, x, got, want in zip(names, xs, jacobian(fn, xs), expected):
                stats = compare_jacobians(got, want, rtol, atol)
                report.checks.append(GradientCheck(n, stats, order=k, mode=label, input_ndim=x.ndim))
        fn = gradient_function(fn)
        rtol, atol, eps = rtol * 10, atol * 10, eps * 10
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
    return sorted({r.op.name for r in tape.records
                   if r.op.jvp is None and r.op.differentiable})


def _sum(t):
    """sum(t) as a float64 scalar: tensors and NumPy values alike."""
    return float(np.sum(np.asarray(value_of(t), dtype=np.float64)))
