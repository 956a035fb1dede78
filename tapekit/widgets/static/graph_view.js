// tapekit GraphView: the browser half of tapekit/widgets/graph_view.py (an anywidget ESM
// module, no build step). The SVG from Graphviz is inserted once; every later change
// (current step, selection, highlighted path) only toggles CSS classes on its elements.

const NS = "tk-gv";

// What a Graphviz picture needs, and nothing else: the sanitizer keeps only these elements
// and attributes. No <a> (its children are kept, in a <g>), no href/xlink:href, no script,
// foreignObject, <use>, <image>, animation (<set>/<animate> can write an href), no on*
// handler, and no style that loads a URL or runs code.
const SVG_NS = "http://www.w3.org/2000/svg";
const ELEMENTS = new Set(["svg", "g", "title", "polygon", "polyline", "ellipse", "circle",
  "path", "line", "rect", "text", "tspan", "defs", "linearGradient", "radialGradient", "stop"]);
const ATTRIBUTES = new Set(["id", "class", "width", "height", "viewBox", "preserveAspectRatio",
  "transform", "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray",
  "stroke-opacity", "stroke-linecap", "stroke-linejoin", "points", "cx", "cy", "r", "rx", "ry",
  "x", "y", "x1", "y1", "x2", "y2", "dx", "dy", "d", "text-anchor", "font-family", "font-size",
  "font-weight", "font-style", "text-decoration", "style", "offset", "stop-color",
  "stop-opacity", "gradientUnits", "gradientTransform", "fx", "fy", "xmlns", "xmlns:xlink",
  "version"]);
const BAD_STYLE = /url\s*\(|javascript:|expression\s*\(|@import|behavior\s*:/i;

function clean(el) {
  for (const child of [...el.children]) {
    const name = child.localName;
    if (name === "a") {                  // a link: keep what it draws, drop the link
      const g = child.ownerDocument.createElementNS(SVG_NS, "g");
      g.append(...child.childNodes);
      child.replaceWith(g);
      clean(g);
    } else if (!ELEMENTS.has(name) || child.namespaceURI !== SVG_NS) {
      child.remove();
    } else {
      clean(child);
    }
  }
  for (const a of [...el.attributes]) {
    const value = a.value.replace(/[\s\x00-\x1f]/g, "");
    if (!ATTRIBUTES.has(a.name) || /javascript:|data:|vbscript:/i.test(value) ||
        (a.name === "style" && BAD_STYLE.test(a.value))) {
      el.removeAttribute(a.name);
    }
  }
}

export function sanitizeSvg(text) {
  // DOMParser + an allow-list of elements and attributes: a picture, never code or a link.
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.localName !== "svg" || svg.namespaceURI !== SVG_NS) return null;
  clean(svg);
  return svg;
}

function parseSvg(text) {
  const svg = sanitizeSvg(text);
  return svg && document.importNode(svg, true);
}

function index(svg) {
  // {id: <g class="node">}, and edges as [src, dst, <g class="edge">] (titles "n0->n1").
  const nodes = new Map();
  const edges = [];
  for (const g of svg.querySelectorAll("g.node")) {
    const title = g.querySelector(":scope > title");
    if (!title) continue;
    const id = title.textContent;
    g.dataset.id = id;
    for (const t of g.querySelectorAll("title")) t.remove();   // our tooltip replaces the
                                         // browser's native ones (the id, a long name)
    nodes.set(id, g);
  }
  for (const g of svg.querySelectorAll("g.edge")) {
    const title = g.querySelector(":scope > title");
    if (!title) continue;
    const [src, dst] = title.textContent.split("->");
    title.remove();
    edges.push([src, dst, g]);
  }
  return { nodes, edges };
}

function tooltipText(id, info) {
  if (!info) return id;
  const lines = [`${info.op}  ${id}`];
  if (info.args) lines.push(`(${info.args})`);
  if (info.shape || info.dtype) lines.push(`${info.shape} ${info.dtype}`.trim());
  if (info.value) lines.push(`value ${info.value}`);
  if (info.grad) lines.push(`grad ${info.grad}`);
  if (info.note) lines.push(info.note);
  return lines.join("\n");
}

function render({ model, el }) {
  el.classList.add(NS);
  const bar = document.createElement("div");
  bar.className = `${NS}-bar`;
  const button = (label, title, fn) => {
    const b = document.createElement("button");
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", fn);
    bar.appendChild(b);
    return b;
  };
  const status = document.createElement("span");
  status.className = `${NS}-status`;
  status.setAttribute("aria-live", "polite");
  const viewport = document.createElement("div");
  viewport.className = `${NS}-viewport`;
  viewport.tabIndex = 0;
  viewport.setAttribute("role", "application");
  viewport.setAttribute("aria-label",
    "computation graph: arrow keys step, Enter selects, + and - zoom, 0 shows the whole graph");
  // JupyterLab (Lumino) must not treat our arrow keys as notebook shortcuts.
  viewport.setAttribute("data-lm-suppress-shortcuts", "true");
  viewport.setAttribute("data-p-suppress-shortcuts", "true");
  const stage = document.createElement("div");
  stage.className = `${NS}-stage`;
  viewport.appendChild(stage);
  const tip = document.createElement("div");
  tip.className = `${NS}-tooltip`;
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  el.append(bar, viewport, tip);

  let svg = null, idx = { nodes: new Map(), edges: [] };
  let w0 = 1, h0 = 1;                       // the SVG's own size (px)
  const view = { scale: 1, x: 0, y: 0 };
  const marked = { current: [], selected: [], highlighted: [] };

  function apply() {
    stage.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.scale})`;
  }
  // The first view: the graph at the column's width (no larger than drawn), panned so the
  // current node or else the target is in sight (a tall graph's target is at its bottom).
  // "fit" (key 0) shows the whole graph, however small that makes it.
  function fitWidth() {
    const width = viewport.clientWidth || el.clientWidth || w0;
    view.scale = Math.min(1, width / w0);
    view.x = 0; view.y = 0;
    viewport.style.height = `${Math.min(h0 * view.scale, model.get("max_height")) + 2}px`;
    apply();
  }
  function home() {
    fitWidth();
    const nodes = model.get("nodes") || {};
    reveal(model.get("current") || Object.keys(nodes).find((id) => nodes[id].target));
  }
  function fit() {
    fitWidth();
    const height = model.get("max_height");
    if (h0 * view.scale > height) {
      view.scale = height / h0;
      view.x = Math.max(0, (viewport.clientWidth - w0 * view.scale) / 2);
      apply();
    }
  }
  function zoom(factor, cx, cy) {
    const s = Math.min(8, Math.max(0.05, view.scale * factor));
    cx = cx ?? viewport.clientWidth / 2; cy = cy ?? viewport.clientHeight / 2;
    view.x = cx - (cx - view.x) * (s / view.scale);
    view.y = cy - (cy - view.y) * (s / view.scale);
    view.scale = s;
    apply();
  }
  function reveal(id) {          // pan so that node `id` is inside the viewport
    const g = idx.nodes.get(id);
    if (!g || !viewport.isConnected) return;
    const r = g.getBoundingClientRect(), v = viewport.getBoundingClientRect();
    if (!v.width || !v.height) return;    // not laid out yet (hidden tab, ...)
    if (r.left < v.left || r.right > v.right) view.x += (v.left + v.width / 2) - (r.left + r.width / 2);
    if (r.top < v.top || r.bottom > v.bottom) view.y += (v.top + v.height / 2) - (r.top + r.height / 2);
    // centred, but never past the picture's edges (the target at the bottom sits at the bottom)
    view.x = Math.min(0, Math.max(view.x, v.width - w0 * view.scale));
    view.y = Math.min(0, Math.max(view.y, v.height - h0 * view.scale));
    apply();
  }

  function mark(kind, ids) {
    for (const e of marked[kind]) e.classList.remove(`${NS}-${kind}`);
    const els = [];
    const want = new Set(ids.filter(Boolean));
    for (const id of want) { const g = idx.nodes.get(id); if (g) els.push(g); }
    if (kind === "highlighted" && want.size > 1) {
      for (const [s, d, g] of idx.edges) if (want.has(s) && want.has(d)) els.push(g);
    }
    for (const e of els) e.classList.add(`${NS}-${kind}`);
    marked[kind] = els;
  }
  function showStatus() {
    // node ids only: a view that steps (the BackpropStepper) counts its own steps
    const cur = model.get("current"), sel = model.get("selected");
    status.textContent = (cur ? `current ${cur}` : "") + (sel ? `  selected ${sel}` : "");
  }
  function onCurrent() { mark("current", [model.get("current")]); reveal(model.get("current")); showStatus(); }
  function onSelected() { mark("selected", [model.get("selected")]); showStatus(); }
  function onHighlighted() { mark("highlighted", model.get("highlighted")); }

  function load() {
    stage.textContent = "";
    svg = parseSvg(model.get("svg") || "");
    if (!svg) { stage.textContent = "(no graph)"; return; }
    const vb = svg.viewBox && svg.viewBox.baseVal;
    w0 = (vb && vb.width) || parseFloat(svg.getAttribute("width")) || 400;
    h0 = (vb && vb.height) || parseFloat(svg.getAttribute("height")) || 300;
    svg.setAttribute("width", w0); svg.setAttribute("height", h0);
    stage.appendChild(svg);
    idx = index(svg);
    for (const k of Object.keys(marked)) marked[k] = [];
    requestAnimationFrame(home);       // again once laid out: the width is known then
    home();
    onHighlighted(); onSelected(); onCurrent();
  }

  function stepBy(delta) {
    const order = model.get("order");
    if (!order.length) return;
    const pos = order.indexOf(model.get("current"));
    let next = pos < 0 ? (delta > 0 ? 0 : order.length - 1) : pos + delta;
    next = Math.max(0, Math.min(order.length - 1, next));
    model.set("current", order[next]);
    model.save_changes();
    onCurrent();                  // restyle now; Python hears about it through the comm
  }
  function select(id) {
    model.set("selected", id);
    model.save_changes();
    onSelected();
  }

  button("−", "zoom out (-)", () => zoom(1 / 1.25));
  button("+", "zoom in (+)", () => zoom(1.25));
  button("fit", "show the whole graph (0)", fit);
  bar.appendChild(status);

  const nodeOf = (target) => target.closest && target.closest(`g.node`);
  const onOver = (ev) => {
    const g = nodeOf(ev.target);
    if (!g) return;
    tip.textContent = tooltipText(g.dataset.id, model.get("nodes")[g.dataset.id]);
    tip.hidden = false;
  };
  const onMove = (ev) => {
    if (tip.hidden) return;
    const r = el.getBoundingClientRect();
    tip.style.left = `${ev.clientX - r.left + 14}px`;
    tip.style.top = `${ev.clientY - r.top + 14}px`;
  };
  const onOut = (ev) => { if (nodeOf(ev.target) && !nodeOf(ev.relatedTarget || document.body)) tip.hidden = true; };
  let drag = null;
  const onDown = (ev) => {
    viewport.focus({ preventScroll: true });
    if (nodeOf(ev.target)) return;
    drag = { x: ev.clientX - view.x, y: ev.clientY - view.y };
    viewport.setPointerCapture?.(ev.pointerId);
  };
  const onDrag = (ev) => { if (drag) { view.x = ev.clientX - drag.x; view.y = ev.clientY - drag.y; apply(); } };
  const onUp = () => { drag = null; };
  const onClick = (ev) => { const g = nodeOf(ev.target); if (g) select(g.dataset.id); };
  const onWheel = (ev) => {
    if (!(ev.ctrlKey || ev.metaKey)) return;      // plain wheel scrolls the notebook
    ev.preventDefault();
    const r = viewport.getBoundingClientRect();
    zoom(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - r.left, ev.clientY - r.top);
  };
  const onKey = (ev) => {
    const keys = {
      ArrowRight: () => stepBy(1), ArrowDown: () => stepBy(1),
      ArrowLeft: () => stepBy(-1), ArrowUp: () => stepBy(-1),
      Home: () => stepBy(-Infinity), End: () => stepBy(Infinity),
      Enter: () => select(model.get("current")), " ": () => select(model.get("current")),
      "+": () => zoom(1.25), "=": () => zoom(1.25), "-": () => zoom(1 / 1.25), "0": fit,
      Escape: () => select(""),
    };
    const f = keys[ev.key];
    if (!f) return;
    ev.preventDefault();
    ev.stopPropagation();
    f();
  };
  viewport.addEventListener("mouseover", onOver);
  viewport.addEventListener("mousemove", onMove);
  viewport.addEventListener("mouseout", onOut);
  viewport.addEventListener("pointerdown", onDown);
  viewport.addEventListener("pointermove", onDrag);
  viewport.addEventListener("pointerup", onUp);
  viewport.addEventListener("click", onClick);
  viewport.addEventListener("wheel", onWheel, { passive: false });
  viewport.addEventListener("keydown", onKey);

  model.on("change:svg", load);
  model.on("change:current", onCurrent);
  model.on("change:selected", onSelected);
  model.on("change:highlighted", onHighlighted);
  model.on("change:order", showStatus);
  load();

  return () => {
    model.off("change:svg", load);
    model.off("change:current", onCurrent);
    model.off("change:selected", onSelected);
    model.off("change:highlighted", onHighlighted);
    model.off("change:order", showStatus);
  };
}

export default { render };
