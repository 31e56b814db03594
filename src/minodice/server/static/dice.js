// Our own dice, drawn in SVG: a colour *and* a pattern for every colour, a shape for the
// special dice, so that no die is told apart by colour alone (colour-blind players,
// prefers-contrast). The published artwork is not used.
import { s } from "./dom.js";
import { word } from "./i18n.js";

const FILL = { brown: "#8a5a2b", green: "#23824e", blue: "#1d64c8", red: "#d12b2b",
  yellow: "#f2c200", purple: "#7a3db0", gray: "#8d8d8d", black: "#262626" };
const INK = { yellow: "#111", gray: "#111" };
// One pattern per number colour (the specials have their own shape and icon).
const PATTERN = { red: null, yellow: "dots", purple: "diagonal", gray: "cross", black: "bars",
  blue: "columns" };

let patternsAdded = false;
function defs() {
  const make = (id, ...children) => s("pattern", { id, width: 8, height: 8,
    patternUnits: "userSpaceOnUse" }, ...children);
  const ink = "rgba(255,255,255,.45)";
  return s("defs", {},
    make("pat-dots", s("circle", { cx: 4, cy: 4, r: 1.6, fill: "rgba(0,0,0,.35)" })),
    make("pat-diagonal", s("path", { d: "M-2 10 L10 -2 M-2 2 L2 -2 M6 10 L10 6", stroke: ink, "stroke-width": 2 })),
    make("pat-cross", s("path", { d: "M0 4 H8 M4 0 V8", stroke: "rgba(0,0,0,.3)", "stroke-width": 1.4 })),
    make("pat-bars", s("path", { d: "M0 2 H8 M0 6 H8", stroke: ink, "stroke-width": 1.2 })),
    make("pat-columns", s("path", { d: "M2 0 V8 M6 0 V8", stroke: ink, "stroke-width": 1.2 })));
}

// A sprite with the patterns, once per page (referenced by every die).
export function ensurePatterns() {
  if (patternsAdded) return;
  patternsAdded = true;
  const svg = s("svg", { width: 0, height: 0, "aria-hidden": "true", class: "sprite" }, defs());
  document.body.appendChild(svg);
}

const ICONS = [
  // role 0: minotaur / skull-king — horns over a head
  "M20 44 Q14 26 26 22 Q24 30 30 32 L50 32 Q56 30 54 22 Q66 26 60 44 Q58 58 40 60 Q22 58 20 44 Z",
  // role 1: griffin / pirate — a wing
  "M16 54 Q22 28 52 18 Q46 28 60 28 Q50 36 62 40 Q48 46 56 54 Q38 50 16 54 Z",
  // role 2: mermaid — a tail
  "M40 16 Q52 34 44 48 L56 62 Q44 60 40 54 Q36 60 24 62 L36 48 Q28 34 40 16 Z",
];
const FLAG = "M28 16 V64 M28 18 L58 28 L28 38";

function symbolRole(diceSet, name) {
  return diceSet.symbols.indexOf(name);
}

// The fewest first letters (two at least) of a number kind's name that no other number kind
// of the set starts with (a special die shows its symbol): "bla" and "blu", not "bl" twice.
export function shortName(diceSet, kind) {
  const own = word(kind.name);
  const others = diceSet.kinds.filter((k) => !k.special && k.name !== kind.name).map((k) => word(k.name).toLowerCase());
  let n = 2;
  while (n < own.length && others.some((o) => o.startsWith(own.slice(0, n).toLowerCase()))) n += 1;
  return own.slice(0, n);
}

// kind: {name, colour, special}; face: a record face (number, "flag", symbol) or null.
// label: write the kind's first letters on a number die that shows no face; off where a
// text next to the die names it (the hand's buttons), so that a button's visible text is
// its name (WCAG 2.5.3) and nothing is read twice.
export function die(diceSet, kind, face, { size = 48, label = true } = {}) {
  ensurePatterns();
  const fill = FILL[kind.colour] || "#777";
  const ink = kind.special ? "#fff" : (INK[kind.colour] || "#fff");
  const title = face === null || face === undefined ? word(kind.name)
    : `${word(kind.name)}: ${word(face)}`;
  const parts = [s("title", {}, title)];
  if (kind.special) {
    parts.push(s("rect", { x: 4, y: 4, width: 72, height: 72, rx: 20, fill, stroke: "#f5d76e", "stroke-width": 5 }));
  } else {
    parts.push(s("rect", { x: 4, y: 4, width: 72, height: 72, rx: 12, fill, stroke: "rgba(0,0,0,.55)", "stroke-width": 3 }));
    const pattern = PATTERN[kind.colour];
    if (pattern) parts.push(s("rect", { x: 4, y: 4, width: 72, height: 72, rx: 12, fill: `url(#pat-${pattern})` }));
  }
  const shown = face === null || face === undefined ? null : String(face);
  if (shown === "flag") {
    parts.push(s("path", { d: FLAG, fill: ink, stroke: ink, "stroke-width": 4, "stroke-linejoin": "round" }));
  } else if (shown !== null && /^\d+$/.test(shown)) {
    parts.push(s("text", { x: 40, y: 54, "text-anchor": "middle", "font-size": 40, "font-weight": 700, fill: ink,
      stroke: ink === "#fff" ? "rgba(0,0,0,.5)" : "none", "stroke-width": 1 }, shown));
  } else {
    const role = symbolRole(diceSet, shown === null ? kind.name : shown);
    if (role >= 0) parts.push(s("path", { d: ICONS[role], fill: ink, opacity: shown === null ? 0.9 : 1 }));
    else if (shown === null && label) {
      parts.push(s("text", { x: 40, y: 52, "text-anchor": "middle", "font-size": 30, "font-weight": 700, fill: ink },
        shortName(diceSet, kind)));
    }
  }
  const svg = s("svg", { viewBox: "0 0 80 80", width: size, height: size, class: "die-svg", role: "img",
    "aria-label": title }, ...parts);
  return svg;
}
