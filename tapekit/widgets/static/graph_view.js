// tapekit GraphView: the browser half of tapekit/widgets/graph_view.py (an anywidget ESM
// module, no build step). The SVG from Graphviz is inserted once; every later change
// (current step, selection, highlighted path) only toggles CSS classes on its elements.
// For the keyboard and a screen reader: the viewport is one focusable control (role
// "application": the arrow keys are its own) named by the graph's one-sentence description,
// a polite live region says each move, and the long description is a <details> below.

const NS = "tk-gv";
let uid = 0;                              // ids for aria-describedby, unique in the page

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

// One node as a sentence (what the live region says when the keys move to it); the same words
// as graph_view.py `node_sentence`.
function sentence(id, info) {
  if (!info) return `${id}.`;
  const parts = [`${id}: ${info.op}` + (info.args ? ` of ${info.args}` : "")];
  if (info.value) parts.push(`value ${info.value}`);
  if (info.grad) parts.push(`gradient ${info.grad}`);
  if (info.note) parts.push(info.note);
  return parts.join("; ") + ".";
}

// A node shape's box from its own attributes (Graphviz writes absolute coordinates: an
// ellipse's centre and radii, a polygon's points, a path's x,y pairs). getBBox would need a
// layout: before one (an output drawn while its notebook is still hidden, as in Notebook 7)
// it gives 0,0,0,0 and the word "current" landed at the graph's corner, widening the node.
function shapeBox(shape) {
  if (shape.tagName === "ellipse") {
    const [cx, cy, rx, ry] = ["cx", "cy", "rx", "ry"].map((a) => parseFloat(shape.getAttribute(a)));
    if ([cx, cy, rx, ry].some(Number.isNaN)) return null;
    return { x: cx - rx, y: cy - ry, width: 2 * rx };
  }
  const text = shape.getAttribute(shape.tagName === "path" ? "d" : "points") || "";
  const nums = (text.match(/-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi) || []).map(Number);
  if (nums.length < 4) return null;
  const xs = nums.filter((_, i) => i % 2 === 0), ys = nums.filter((_, i) => i % 2 === 1);
  const x = Math.min(...xs);
  return { x, y: Math.min(...ys), width: Math.max(...xs) - x };
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
    b.setAttribute("aria-label", title);    // "zoom out (-)", not "minus"
    b.addEventListener("click", fn);
    bar.appendChild(b);
    return b;
  };
  const status = document.createElement("span");
  status.className = `${NS}-status`;
  status.setAttribute("role", "status");   // polite: said after what the reader is saying
  status.setAttribute("aria-live", "polite");
  status.setAttribute("aria-atomic", "true");
  const help = document.createElement("span");
  help.className = `${NS}-help`;
  help.id = `${NS}-help-${++uid}`;
  help.textContent = "Arrow keys move from node to node in step order, Home and End to the " +
    "first and last; Enter or Space selects the node (again: unselects); plus and minus zoom, " +
    "0 shows the whole graph; Escape leaves the graph. The text description follows it.";
  const viewport = document.createElement("div");
  viewport.className = `${NS}-viewport`;
  viewport.tabIndex = 0;
  viewport.setAttribute("role", "application");
  viewport.setAttribute("aria-roledescription", "graph");
  viewport.setAttribute("aria-describedby", help.id);
  // JupyterLab (Lumino) must not treat our arrow keys as notebook shortcuts.
  viewport.setAttribute("data-lm-suppress-shortcuts", "true");
  viewport.setAttribute("data-p-suppress-shortcuts", "true");
  const stage = document.createElement("div");
  stage.className = `${NS}-stage`;
  stage.setAttribute("aria-hidden", "true");   // the picture; its words are below and in the live region
  viewport.appendChild(stage);
  const tip = document.createElement("div");
  tip.className = `${NS}-tooltip`;
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  const details = document.createElement("details");
  details.className = `${NS}-description`;
  el.append(bar, viewport, help, tip, details);

  function words() {                 // the accessible name and the long description
    viewport.setAttribute("aria-label", model.get("label") || "computation graph");
    const d = model.get("description") || {};
    details.textContent = "";
    const summary = document.createElement("summary");
    summary.textContent = "Text description";
    details.appendChild(summary);
    const para = (s) => { const p = document.createElement("p"); p.textContent = s; details.appendChild(p); };
    (d.intro || []).forEach(para);
    if ((d.items || []).length) {
      const ol = document.createElement("ol");
      for (const s of d.items) { const li = document.createElement("li"); li.textContent = s; ol.appendChild(li); }
      details.appendChild(ol);
    }
    (d.outro || []).forEach(para);
    details.hidden = !(d.intro || d.items || d.outro);
  }

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

  // Colour is never the only sign: the current node also carries the word "current" above it,
  // highlighted nodes a dotted border, the selected one a dashed border (graph_view.css).
  const BADGE = { current: "current", selected: "selected" };
  function mark(kind, ids) {
    for (const e of marked[kind]) {
      e.classList.remove(`${NS}-${kind}`);
      e.querySelector(`:scope > text.${NS}-badge-${kind}`)?.remove();
    }
    const els = [];
    const want = new Set(ids.filter(Boolean));
    for (const id of want) { const g = idx.nodes.get(id); if (g) els.push(g); }
    if (kind === "highlighted" && want.size > 1) {
      for (const [s, d, g] of idx.edges) if (want.has(s) && want.has(d)) els.push(g);
    }
    for (const e of els) {
      e.classList.add(`${NS}-${kind}`);
      if (BADGE[kind] && e.classList.contains("node")) badge(e, kind);
    }
    marked[kind] = els;
  }
  function badge(g, kind) {          // the word above the node, in the node's own coordinates
    const shape = g.querySelector(":scope > polygon, :scope > ellipse, :scope > path");
    const box = shape && shapeBox(shape);
    if (!box) return;
    const t = document.createElementNS(SVG_NS, "text");
    t.setAttribute("class", `${NS}-badge ${NS}-badge-${kind}`);
    t.setAttribute("x", box.x + (kind === "selected" ? box.width : 0));
    t.setAttribute("y", box.y - 3);
    t.setAttribute("text-anchor", kind === "selected" ? "end" : "start");
    t.textContent = BADGE[kind];
    g.appendChild(t);
  }
  let said = "";
  function say(text) {                // the live region: one line, said politely
    if (!text || text === said) return;
    said = text;
    status.textContent = text;
  }
  function showStatus() {
    if (!model.get("narrate")) { say(model.get("announcement")); return; }
    const nodes = model.get("nodes") || {};
    const cur = model.get("current");
    if (cur) say(sentence(cur, nodes[cur]));
  }
  function onCurrent() { mark("current", [model.get("current")]); reveal(model.get("current")); showStatus(); }
  function onSelected() {
    const sel = model.get("selected");
    mark("selected", [sel]);
    if (model.get("narrate") && sel) say(`selected ${sentence(sel, (model.get("nodes") || {})[sel])}`);
  }
  function onHighlighted() { mark("highlighted", model.get("highlighted")); }
  function onAnnouncement() { if (!model.get("narrate")) say(model.get("announcement")); }

  function load() {
    stage.textContent = "";
    svg = parseSvg(model.get("svg") || "");
    if (!svg) { stage.textContent = "(no graph)"; return; }
    const vb = svg.viewBox && svg.viewBox.baseVal;
    w0 = (vb && vb.width) || parseFloat(svg.getAttribute("width")) || 400;
    h0 = (vb && vb.height) || parseFloat(svg.getAttribute("height")) || 300;
    // room above the top row of nodes for their "current" / "selected" words
    const PAD = 14;
    if (vb && vb.width) svg.setAttribute("viewBox", `${vb.x} ${vb.y - PAD} ${vb.width} ${vb.height + PAD}`);
    h0 += PAD;
    svg.setAttribute("width", w0); svg.setAttribute("height", h0);
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
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
  function toggle() {                 // Enter / Space: select the current node, or unselect it
    const cur = model.get("current");
    select(cur && model.get("selected") === cur ? "" : cur);
  }
  function leave() {                  // Escape: focus goes back to the notebook (its cell)
    let up = el.parentElement;
    while (up && !(up.hasAttribute("tabindex") && up !== viewport)) up = up.parentElement;
    viewport.blur();
    if (up) up.focus({ preventScroll: true });
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
    onMove(ev);                        // beside the pointer from the start, not where it last was
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
      Enter: toggle, " ": toggle,
      "+": () => zoom(1.25), "=": () => zoom(1.25), "-": () => zoom(1 / 1.25), "0": fit,
      Escape: leave,
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

  const handlers = [["change:svg", load], ["change:current", onCurrent],
    ["change:selected", onSelected], ["change:highlighted", onHighlighted],
    ["change:order", showStatus], ["change:announcement", onAnnouncement],
    ["change:label", words], ["change:description", words]];
  for (const [event, fn] of handlers) model.on(event, fn);
  words();
  load();

  return () => { for (const [event, fn] of handlers) model.off(event, fn); };
}

export default { render };
