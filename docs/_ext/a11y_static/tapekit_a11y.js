// tapekit's site: every code or output block that scrolls is a named region in the Tab order,
// so a keyboard alone can scroll it (WCAG 2.1.1; docs/_ext/tapekit_a11y.py says why).
(function () {
  const BLOCKS = "div.highlight pre, .cell_output pre, .cell_output .output, div.output, " +
                 "table.docutils, .table-wrapper, .cell_output";
  const focusable = "a[href], button, input, select, textarea, summary, [tabindex]";

  function mark() {
    for (const el of document.querySelectorAll(BLOCKS)) {
      const scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
      const style = getComputedStyle(el);
      const canScroll = /auto|scroll/.test(style.overflowX + style.overflowY);
      const added = el.dataset.tkScroll === "1";
      if (scrolls && canScroll && !el.querySelector(focusable)) {
        if (!el.hasAttribute("tabindex")) {
          el.tabIndex = 0;
          el.setAttribute("role", "region");
          const what = el.matches("div.highlight pre") ? "code" : el.matches("table, .table-wrapper")
            ? "table" : "output";
          el.setAttribute("aria-label", `${what}, scrolls sideways`);
          el.dataset.tkScroll = "1";
        }
      } else if (added) {                    // fits now (a wider window): no tab stop
        el.removeAttribute("tabindex");
        el.removeAttribute("role");
        el.removeAttribute("aria-label");
        delete el.dataset.tkScroll;
      }
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
  window.addEventListener("load", mark);
  let timer = null;
  window.addEventListener("resize", () => { clearTimeout(timer); timer = setTimeout(mark, 150); });
})();
