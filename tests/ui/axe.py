"""axe-core in the browser tests: run it on a page (or part of one) and read its violations.

axe-core comes from the `axe-playwright-python` package (its axe.min.js, axe 4.12), in the
`test` extra: never from a CDN at test time. The rules are axe's WCAG 2.0 and 2.1 A/AA rules
(the level a public university's course must meet); a violation is counted by its nodes, and
the tests fail on "serious" or "critical" ones. tests/ui is on sys.path, as for conftest.
"""
from pathlib import Path

try:
    import axe_playwright_python
except ImportError:  # reported by `axe_script()`: the browser fixtures skip or fail first
    axe_playwright_python = None

WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SEVERE = ("serious", "critical")
# JupyterLab's output areas of the visible notebook: what tapekit and the lessons draw.
OUTPUTS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output"


def axe_script():
    """The text of axe.min.js as the package ships it."""
    if axe_playwright_python is None:
        raise RuntimeError("axe-playwright-python is not installed (pip install -e '.[test]')")
    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


_RUN = """async ([include, tags]) => {
  if (include && !document.querySelector(include)) return {violations: [], empty: true};
  const context = include ? {include: [include]} : document;
  return await axe.run(context, {runOnly: {type: 'tag', values: tags},
                                 resultTypes: ['violations']});
}"""


def run(page, include=None, tags=WCAG_21_AA):
    """axe's violations on `page` (only inside elements matching the CSS selector `include`,
    when given): a list of {id, impact, help, nodes: [{target, html, summary}]}."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(axe_script())
    result = page.evaluate(_RUN, [include, list(tags)])
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [{"target": n["target"], "html": n["html"][:200],
                        "summary": n.get("failureSummary", "")[:300]} for n in v["nodes"]]}
            for v in result["violations"]]


def severe(violations):
    """Only the serious and critical violations."""
    return [v for v in violations if v["impact"] in SEVERE]


def count(violations):
    """{rule id (impact): number of nodes}, and the total number of nodes."""
    counts = {f"{v['id']} ({v['impact']})": len(v["nodes"]) for v in violations}
    return counts, sum(counts.values())


def report(violations, limit=8):
    """The violations as lines a person can act on: rule, impact, and the first nodes."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}")
        for n in v["nodes"][:limit]:
            lines.append(f"    {' '.join(map(str, n['target']))}: {n['html']}")
    return "\n".join(lines)
