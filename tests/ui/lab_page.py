"""JavaScript conditions for Playwright's wait_for_function on a JupyterLab page, and the
steps every browser test takes (write a notebook, open it, Run All). Shared by the browser
tests; tests/ui is on sys.path, as for conftest."""
import nbformat

# See recipe jupyter-testing.md 3.1: "idle" shows before a kernel is attached; Run All clicked
# then is silently dropped. Require a named kernel idle for 500 ms.
KERNEL_READY = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const status = panel?.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status;
  const name = panel?.querySelector('.jp-Toolbar-kernelName')?.textContent.trim();
  const ok = status === 'idle' && !!name && name !== 'No Kernel';
  if (!ok) { window.__idleSince = 0; return false; }
  window.__idleSince = window.__idleSince || Date.now();
  return Date.now() - window.__idleSince > 500;
}"""
ALL_PROMPTS_NUMBERED = """() => {
  const p = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt')]
    .map(e => e.textContent.trim());
  return p.length > 0 && p.every(s => /^\\[\\d+\\]:$/.test(s));
}"""


def open_and_run_all(page, base, token, path, *, wait_idle=True):
    """Open `path` in JupyterLab with no tabs of earlier tests (?reset), wait for its kernel,
    Run All Cells, and wait until every cell has run (and, with wait_idle, the kernel rests)."""
    page.goto(f"{base}/lab/tree/{path}?reset&token={token}")
    page.wait_for_function(KERNEL_READY, timeout=90_000, polling=100)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    page.wait_for_function(ALL_PROMPTS_NUMBERED, timeout=120_000)
    if wait_idle:
        page.wait_for_function(KERNEL_READY, timeout=90_000, polling=100)


def write_notebook(path, cells):
    """A notebook of code `cells` (source strings) at `path`, for the Python 3 kernel."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)
