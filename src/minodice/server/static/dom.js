import { locale } from "./i18n.js";

// A tiny DOM builder: h("button", {class: "x", onclick}, "text", child...). Text children
// become text nodes, so whatever a person typed (a name, a chat line) is shown literally.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "html") throw new Error("no raw HTML");
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

const SVG = "http://www.w3.org/2000/svg";
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Names joined with commas, each isolated (U+2068 … U+2069): two right-to-left names in
 * a row otherwise swap places, and one takes the comma and the words around it along. */
export function nameList(names) {
  return names.map(isolated).join(", ");
}

/** "Ana and Ben", "Ana, Ben und Cleo": names joined as the page's language joins them,
 * each isolated (see nameList). */
export function andList(names) {
  const isolatedNames = names.map(isolated);
  try { return new Intl.ListFormat(locale(), { style: "long", type: "conjunction" }).format(isolatedNames); }
  catch (err) { return isolatedNames.join(", "); }
}

/** One name isolated from the text around it (see nameList). */
export function isolated(name) {
  return `\u2068${name}\u2069`;
}

/** Draws a page again (``draw``) without losing the keyboard: the control that had the
 * focus (known by its ``data-key``, else its id) has it again in the page drawn anew, so
 * that a second press of "+" or of Space works as the first did. When that control is gone
 * (a step done), ``fallback`` (a selector, in ``root``) gets the focus, if given. */
export function keepFocus(root, draw, fallback = null) {
  const active = document.activeElement;
  const key = active && active !== root && root.contains(active) ? active.dataset.key || active.id : "";
  draw();
  if (!key || root.contains(document.activeElement) && document.activeElement !== root) return;
  const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`) || root.querySelector(`#${CSS.escape(key)}`)
    || (fallback && root.querySelector(fallback));
  again?.focus({ preventScroll: true });
}

/** Says ``text`` to a screen reader (a polite live region of the page's own, which stays
 * when the page is drawn anew: a region drawn anew with it is not read out). */
export function say(text) {
  let region = document.getElementById("say");
  if (!region) {
    region = h("div", { id: "say", class: "sr-only", "aria-live": "polite", "aria-atomic": "true" });
    document.body.appendChild(region);
  }
  // the same words again are read again (a second "+": "Bid of Ana: 2" after "… 1")
  region.textContent = "";
  setTimeout(() => { region.textContent = text; }, 30);
}
