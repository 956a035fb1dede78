// tapekit's small controls (tapekit/widgets/controls.py): a labelled native range input, and a
// polite live region. One anywidget module for both (the model's `_kind` says which). Every
// text is set with textContent, never as HTML.

function slider({ model, el }) {
  el.classList.add("tk-slider");
  const label = document.createElement("label");
  const name = document.createElement("span");
  name.className = "tk-slider-name";
  const input = document.createElement("input");
  input.type = "range";
  const out = document.createElement("output");
  out.className = "tk-slider-readout";
  out.setAttribute("aria-hidden", "true");   // the input says its own value (aria-valuetext)
  label.append(name, input);
  el.append(label, out);

  const text = (v) => {
    const d = model.get("decimals");
    return d === null || d === undefined ? String(v) : Number(v).toFixed(d);
  };
  function update() {
    name.textContent = model.get("description");
    input.min = model.get("min");
    input.max = model.get("max");
    const step = model.get("step");
    input.step = step === null || step === undefined ? "any" : step;
    input.value = model.get("value");
    input.disabled = model.get("disabled");
    const said = model.get("value_text");
    if (said) input.setAttribute("aria-valuetext", said);
    else input.removeAttribute("aria-valuetext");
    out.textContent = text(model.get("value"));
  }
  input.addEventListener("input", () => {
    out.textContent = text(input.value);
    model.set("value", Number(input.value));
    model.save_changes();
  });
  // Notebook 7 and JupyterLab must not take the arrow keys for their own shortcuts.
  input.setAttribute("data-lm-suppress-shortcuts", "true");
  input.addEventListener("keydown", (ev) => ev.stopPropagation());
  const keys = ["value", "min", "max", "step", "description", "disabled", "value_text", "decimals"];
  for (const k of keys) model.on(`change:${k}`, update);
  update();
  return () => { for (const k of keys) model.off(`change:${k}`, update); };
}

function live({ model, el }) {
  el.classList.add("tk-live");
  el.setAttribute("role", "status");       // polite: said after what the reader is saying
  el.setAttribute("aria-live", "polite");
  el.setAttribute("aria-atomic", "true");
  const show = () => {
    el.textContent = model.get("text");
    el.classList.toggle("tk-live-unseen", !model.get("shown"));
  };
  model.on("change:text", show);
  model.on("change:shown", show);
  show();
  return () => { model.off("change:text", show); model.off("change:shown", show); };
}

function render(args) {
  return args.model.get("_kind") === "live" ? live(args) : slider(args);
}

export default { render };
