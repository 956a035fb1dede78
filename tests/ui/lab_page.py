"""JavaScript conditions for Playwright's wait_for_function on a JupyterLab page (shared by the
browser tests; tests/ui is on sys.path, as for conftest)."""

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
