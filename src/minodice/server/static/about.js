// About: every die of both editions, its count in the set and its six faces, drawn from
// the dice sets the server serves (/api/dice/EDITION, the engine's own data files).
// Loaded only on /about.
import { diceSet } from "./api.js";
import { die } from "./dice.js";
import { h } from "./dom.js";
import { _, word } from "./i18n.js";
import { EDITIONS } from "/meta.js";

export async function diceSection() {
  const sets = await Promise.all(EDITIONS.map(async (e) => {
    try { return { edition: e, dice: await diceSet(e.name) }; } catch (err) { return null; }
  }));
  return h("section", { class: "dice-sets" },
    h("h2", { id: "dice" }, _("The dice")),
    sets.filter(Boolean).map(({ edition, dice }) => h("div", { class: "dice-set", "data-edition": edition.name },
      h("h3", {}, _(edition.title)),
      h("p", {}, _("{count} dice in the bag.", { count: dice.kinds.reduce((n, k) => n + k.count, 0) })),
      h("ul", { class: "dice-kinds" }, dice.kinds.map((kind) => h("li", { "data-kind": kind.name, "data-count": kind.count },
        h("span", { class: "kind-name" }, die(dice, kind, null, { size: 28 }), " ", word(kind.name), " ×", String(kind.count)),
        h("span", { class: "faces", "aria-label": _("Faces of {die}", { die: word(kind.name) }) + ": " + kind.faces.map(word).join(", ") },
          kind.faces.map((f) => die(dice, kind, f, { size: 26 })))))))));
}
