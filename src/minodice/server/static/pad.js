// The score pad (/pad) for the physical game: names, edition and variant; each round every
// bid, then the tricks won and the bonuses; points and running totals by RULES.md; earlier
// rounds can be corrected. Games stay on this device (local storage) and the page works
// offline. Export/import format: docs/PAD.md.
import { store } from "./api.js";
import { andList, h, keepFocus, replace, say } from "./dom.js";
import { _, capital, lang, locale, word } from "./i18n.js";
import { EDITIONS, MAX_PLAYERS, MIN_PLAYERS } from "/meta.js";
import { ROUNDS, bonusValue, checkRound, maxGriffins, ranking, scoreGame } from "./pad-score.js";

// The editions by name: title and symbols (by role), from the server (/meta.js).
const EDITION = Object.fromEntries(EDITIONS.map((e) => [e.name, e]));

function dateText(time) {
  try { return new Date(time).toLocaleDateString(locale(), { dateStyle: "medium" }); }
  catch (err) { return new Date(time).toLocaleDateString(lang); }
}

function games() { return store.get("pad.games", {}); }
function storedGame(id) { const all = games(); return Object.hasOwn(all, id) ? all[id] : null; }
// Saves ``game`` unless the stored copy changed since this page read it (another tab or the
// installed app scored a round meanwhile): each save counts a revision, and a save made from
// an older revision is refused, so that a pad never silently replaces another; nor does a
// save bring back a game deleted meanwhile. Returns "saved", "changed" (another tab's
// version is stored), "deleted", or "failed" (the device's storage is full or off: the
// revision is not counted, so the next entry is not taken for another tab's).
function saveGame(game, { replace: replacing = false } = {}) {
  const all = games();
  const stored = Object.hasOwn(all, game.id) ? all[game.id] : null;
  if (!replacing && stored && (stored.rev || 0) !== (game.rev || 0)) return "changed";
  if (!replacing && !stored && (game.rev || 0) > 0) return "deleted";
  const rev = (stored && replacing ? stored.rev || 0 : game.rev || 0) + 1;
  const updated = Date.now();
  all[game.id] = { ...game, rev, updated };
  if (!store.set("pad.games", all)) return "failed";
  game.rev = rev;
  game.updated = updated;
  return "saved";
}
const cannotKeep = () => _("This device could not save it: its storage is full or turned off.");
// The one pad game listening for other tabs' changes (the page shows one at a time).
let listening = null;
// What the pad showed last, for the page drawn again in another language (``ui.again``): a
// game's round being entered or corrected, with the correction not yet scored; or the names
// typed for a new game. Only then: a correction left by a link or Back (asked first) is gone.
let shownGame = null;
let typedHome = null;

function newId() {
  const a = new Uint8Array(6);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function blankRound(n) {
  return { bids: Array(n).fill(0), won: Array(n).fill(0), griffins: Array(n).fill(0), mermaid: Array(n).fill(false), done: false };
}

/** What is wrong with round `roundNo` of `game` ({players, edition}), in the person's
 * language, rule and all: the same words for the round being entered and for a file's. */
function problemText(p, game, roundNo) {
  const name = p.player !== undefined ? game.players[p.player] : "";
  const [minotaur] = EDITION[game.edition].symbols.map((s) => word(s));
  const text = {
    bid: _("{name}: a bid is 0 to {n} in round {n}", { name, n: roundNo }),
    won: _("{name}: tricks won are 0 to {n}", { name, n: roundNo }),
    sum: _("The tricks add up to {total}, but in round {n} they must add up to {n}", { total: p.total, n: roundNo }),
    simplified: _("The simplified variant has no bonuses"),
    "one-minotaur": _("There is one {minotaur} die: only one bonus of it per round", { minotaur }),
    griffins: _("{name}: at most {k} other dice in a trick", { name, k: maxGriffins(game.players.length) }),
    "bonus-no-trick": _("{name}: a bonus needs a trick won", { name }),
  }[p.key];
  return `${text} (${p.rule})`;
}

// A game read from a file or from storage: checked for shape, so a broken file cannot break the page.
export function readGame(data) {
  const fail = (why) => { throw new Error(_("Not a score pad file: {why}", { why })); };
  if (!data || data.format !== "minodice-pad" || data.version !== 1) fail(_('"format" must be "minodice-pad", version 1'));
  const players = data.players;
  if (!Array.isArray(players) || players.length < MIN_PLAYERS || players.length > MAX_PLAYERS
      || !players.every((p) => typeof p === "string" && p.trim())
      || new Set(players).size !== players.length) fail(_("{min} to {max} distinct names", { min: MIN_PLAYERS, max: MAX_PLAYERS }));
  const long = players.find((p) => p.length > 24);
  if (long !== undefined) fail(_("a name is at most {max} characters, not {n}", { max: 24, n: long.length }));
  if (!Object.hasOwn(EDITION, data.edition)) fail(_('"edition" is one of: {names}', { names: EDITIONS.map((e) => e.name).join(", ") }));
  if (!["standard", "simplified"].includes(data.variant)) fail(_('"variant" is one of: {names}', { names: "standard, simplified" }));
  const n = players.length;
  if (!Array.isArray(data.rounds) || data.rounds.length > ROUNDS[n]) fail(_("at most {n} rounds", { n: ROUNDS[n] }));
  const intList = (x, ok) => Array.isArray(x) && x.length === n && x.every(ok);
  const rounds = data.rounds.map((r, i) => {
    if (!r || !intList(r.bids, Number.isInteger) || !intList(r.won, Number.isInteger)) fail(_("round {n}: \"bids\" and \"won\", one whole number per player", { n: i + 1 }));
    const griffins = r.griffins === undefined ? Array(n).fill(0) : r.griffins;
    const mermaid = r.mermaid === undefined ? Array(n).fill(false) : r.mermaid;
    if (!intList(griffins, Number.isInteger) || !intList(mermaid, (m) => typeof m === "boolean")) fail(_("round {n}: \"griffins\" (whole numbers) and \"mermaid\" (true or false), one per player", { n: i + 1 }));
    const round = { bids: r.bids, won: r.won, griffins, mermaid, done: r.done !== false };
    if (!round.done && i < data.rounds.length - 1) fail(_("round {n} is not scored, round {m} is", { n: i + 1, m: i + 2 }));
    // the first problem as the pad says it, rule and all ("won (R11)")
    const problems = round.done ? checkRound(i + 1, round, n, data.variant) : [];
    if (problems.length) fail(_("round {n}: {problem}", { n: i + 1, problem: problemText(problems[0], { players, edition: data.edition }, i + 1) }));
    return round;
  });
  // the pad always has the round being entered (unless the game is over)
  if (rounds.length < ROUNDS[n] && (!rounds.length || rounds[rounds.length - 1].done)) rounds.push(blankRound(n));
  // an id is also a key of the device's games and a link: anything else gets a new one
  const id = typeof data.id === "string" && /^[A-Za-z0-9-]{1,40}$/.test(data.id) ? data.id : newId();
  return { format: "minodice-pad", version: 1, id,
    // a time before the pad existed (negative, or 1970) is no time it was made
    created: Number(data.created) > Date.UTC(2020, 0) ? Number(data.created) : Date.now(),
    players: players.slice(), edition: data.edition,
    variant: data.variant, rounds };
}

export function exportGame(game) {
  return { format: "minodice-pad", version: 1, id: game.id, created: game.created, edition: game.edition,
    variant: game.variant, players: game.players,
    rounds: game.rounds.map((r) => ({ bids: r.bids, won: r.won, griffins: r.griffins, mermaid: r.mermaid, done: r.done })) };
}

export function toCsv(game) {
  const scored = scoreGame(game);
  const cell = (x) => {
    const text = String(x);
    const safe = /^[=+\-@\t\r]/.test(text) && !/^-?\d+$/.test(text) ? "'" + text : text; // no formulas
    return (/[",\n]/).test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const lines = [["round", ...game.players.flatMap((p) => [`${p} bid`, `${p} won`, `${p} bonus`, `${p} points`, `${p} total`])]];
  scored.forEach((s, i) => {
    const r = game.rounds[i];
    lines.push([s.round, ...game.players.flatMap((_p, j) => [r.bids[j], r.won[j], s.bonus[j], s.points[j], s.totals[j]])]);
  });
  return lines.map((l) => l.map(cell).join(",")).join("\r\n") + "\r\n";
}

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// -- the pages --------------------------------------------------------------------------------

export function showPad(root, ui) {
  const params = new URLSearchParams(location.search);
  const id = params.get("game");
  const game = id && storedGame(id);
  if (game) {
    const page = new PadGame(root, ui, game);
    if (ui.again && shownGame && shownGame.id === game.id && shownGame.rev === (game.rev || 0)) {
      Object.assign(page, { editing: shownGame.editing, stage: shownGame.stage, draft: shownGame.draft });
    }
    page.render();
  } else {
    // a link to a game this device does not have (deleted; another device's): said, and
    // the address is the list's
    if (id) {
      ui.toast(_("This game is not on this device."));
      history.replaceState(history.state, "", "/pad");
    }
    showPadHome(root, ui);
  }
}

function showPadHome(root, ui) {
  const list = Object.values(games()).sort((a, b) => (b.updated || 0) - (a.updated || 0));
  const names = h("ol", { class: "pad-names" });
  const addName = (value = "") => {
    const i = names.children.length;
    names.appendChild(h("li", {}, h("label", { for: `pad-name-${i}`, class: "sr-only" }, _("Player {n}", { n: i + 1 })),
      h("input", { id: `pad-name-${i}`, maxlength: 24, value, placeholder: _("Player {n}", { n: i + 1 }) })));
  };
  const typed = ui.again && typedHome ? typedHome : null;
  const kept = typed ? typed.names.slice(0, MAX_PLAYERS) : [];
  for (let i = 0; i < Math.max(4, kept.length); i++) addName(kept[i] || "");
  const edition = h("select", { id: "pad-edition" },
    EDITIONS.map((e) => h("option", { value: e.name, selected: typed && typed.edition === e.name }, _(e.title))));
  const variant = h("select", { id: "pad-variant" }, h("option", { value: "standard" }, _("Standard scoring")),
    h("option", { value: "simplified", selected: typed && typed.variant === "simplified" }, _("Simplified: no minus points, no bonus")));
  typedHome = typed;  // (drawn again twice, the names stay; another visit starts empty)
  const file = h("input", { type: "file", id: "pad-import", accept: "application/json,.json", onchange: async () => {
    try {
      const game = readGame(JSON.parse(await file.files[0].text()));
      if (storedGame(game.id) && !confirm(_("This device already has this game. Replace it?"))) return;
      if (saveGame(game, { replace: true }) !== "saved") { ui.toast(cannotKeep()); return; }
      ui.go(`/pad?game=${game.id}`);
    } catch (err) { ui.toast(err instanceof SyntaxError ? _("Not a score pad file: {why}", { why: "JSON" }) : err.message); }
  } });
  const form = h("form", { class: "card", oninput: () => {
    typedHome = { names: Array.from(names.querySelectorAll("input"), (i) => i.value), edition: edition.value, variant: variant.value };
  }, onsubmit: (e) => {
    e.preventDefault();
    const players = Array.from(names.querySelectorAll("input"), (i) => i.value.trim()).filter(Boolean);
    if (players.length < MIN_PLAYERS || players.length > MAX_PLAYERS) { ui.toast(_("A game needs 3 to 6 players (R1).")); return; }
    if (new Set(players).size !== players.length) { ui.toast(_("Names must be different.")); return; }
    const game = { format: "minodice-pad", version: 1, id: newId(), created: Date.now(), players,
      edition: edition.value, variant: variant.value, rounds: [blankRound(players.length)] };
    if (saveGame(game) !== "saved") { ui.toast(cannotKeep()); return; }
    ui.go(`/pad?game=${game.id}`);
  } },
  h("h1", {}, _("Score pad")),
  h("p", {}, _("For a game at a real table: enter the bids, then the tricks and bonuses; the pad does the sums by the rules.")),
  h("fieldset", {}, h("legend", {}, _("Players (3 to 6, in seating order)")), names,
    h("button", { type: "button", id: "pad-add-player", onclick: (e) => {
      if (names.children.length < MAX_PLAYERS) addName();
      // six is the most (R1): the button says so rather than doing nothing, and the
      // keyboard goes on in the name just added (a disabled button would drop it)
      e.currentTarget.disabled = names.children.length >= MAX_PLAYERS;
      names.lastElementChild.querySelector("input").focus();
    } }, _("Add a player"))),
  h("div", { class: "field" }, h("label", { for: "pad-edition" }, _("Edition")), edition),
  h("div", { class: "field" }, h("label", { for: "pad-variant" }, _("Scoring")), variant),
  h("button", { type: "submit", class: "primary big", id: "pad-start" }, _("Start scoring")));
  replace(root, form,
    h("section", { class: "card" }, h("h2", {}, _("Games on this device")),
      list.length ? h("ul", { class: "pad-list" }, list.map((g) => h("li", {},
        h("a", { href: `/pad?game=${g.id}`, onclick: (e) => { e.preventDefault(); ui.go(`/pad?game=${g.id}`); } },
          g.players.join(", ")), " ", h("small", {}, dateText(g.created)),
        " ", h("button", { class: "small", "aria-label": _("Delete the game of {names}, {date}", { names: g.players.join(", "), date: dateText(g.created) }), onclick: () => {
          if (!confirm(_("Delete this game from this device?"))) return;
          const all = games(); delete all[g.id]; store.set("pad.games", all); showPadHome(root, ui);
        } }, _("Delete"))))) : h("p", { class: "hint" }, _("None yet.")),
      h("label", { for: "pad-import" }, _("Import a game (JSON)")), file));
}

class PadGame {
  constructor(root, ui, game) {
    this.root = root;
    this.ui = ui;
    this.game = game;
    this.problems = [];
    this.draft = null; // a scored round being corrected: kept apart until scored again
    this.resume(game);
    // another tab or window changed this game: show its version (never save over it);
    // only while this game is the page shown (the app changes pages without reloading)
    this.onStorage = (event) => {
      const here = location.pathname === "/pad" && new URLSearchParams(location.search).get("game") === this.game.id;
      if (!here) { window.removeEventListener("storage", this.onStorage); return; }
      if (event.key !== null && event.key !== "minodice.pad.games") return;
      const stored = storedGame(this.game.id);
      if (!stored) this.settle("deleted");
      else if ((stored.rev || 0) !== (this.game.rev || 0)) {
        this.resume(stored);
        this.ui.toast(_("This game was changed in another tab or window: showing that version."));
        this.render();
      }
    };
    if (listening) window.removeEventListener("storage", listening);
    listening = this.onStorage;
    // A correction is kept apart until it is scored (stored, it would change the sheet
    // before it is checked), so leaving the page would drop it: with one that changes its
    // round, leaving asks first, as a form with unsaved changes does.
    ui.askBeforeLeaving(() => (this.changedCorrection()
      ? _("Leave without scoring the correction of round {n}?", { n: this.editing + 1 }) : null));
    window.addEventListener("storage", this.onStorage);
  }

  // Shows ``game`` at the round being entered, at the step it was left at (a reload keeps
  // the tricks and bonuses entered so far, not only the bids).
  resume(game) {
    this.game = game;
    this.editing = game.rounds.length - 1;
    const last = game.rounds[this.editing];
    this.stage = last && last.done ? "view" : last && last.step === "tricks" ? "tricks" : "bids";
    this.problems = [];
    this.draft = null;
  }

  // Keeps what was entered, unless another tab changed the game first: then that version
  // is shown and this entry is not saved.
  save() { return this.settle(saveGame(this.game)); }

  // What a save's result means on screen; whether the page goes on with this game as is.
  settle(result) {
    if (result === "saved") return true;
    if (result === "failed") {  // kept on screen; said once
      if (!this.warned) this.ui.toast(cannotKeep());
      this.warned = true;
      return true;
    }
    if (result === "deleted") {
      window.removeEventListener("storage", this.onStorage);
      this.ui.toast(_("This game was deleted in another tab or window."));
      this.draft = null;  // nothing left to correct: not asked about
      this.ui.go("/pad");
      return false;
    }
    const stored = storedGame(this.game.id);
    if (stored) this.resume(stored);
    this.ui.toast(_("This game was changed in another tab or window: showing that version. Your last entry was not saved."));
    this.render();
    return false;
  }

  // An entry changed in the round being entered: kept at once (a correction is kept apart
  // until it is scored).
  entered() {
    if (this.draft || this.save()) this.render();
  }

  // Drawn again, the keyboard stays on the control just used (a stepper's "+", a bonus's
  // menu); a step done, it goes to the round's heading.
  render() {
    keepFocus(this.root, () => this.draw(), ".pad-editor h2, .final h2");
  }

  /** A correction open that differs from the round as scored. */
  changedCorrection() {
    const scored = this.game.rounds[this.editing];
    return Boolean(this.draft) && Boolean(scored)
      && ["bids", "won", "griffins", "mermaid"].some((k) => JSON.stringify(this.draft[k]) !== JSON.stringify(scored[k]));
  }

  get n() { return this.game.players.length; }
  get total() { return ROUNDS[this.n]; }

  draw() {
    const g = this.game;
    shownGame = { id: g.id, rev: g.rev || 0, editing: this.editing, stage: this.stage, draft: this.draft };
    const scored = scoreGame(g);
    const over = scored.length === this.total;
    replace(this.root,
      h("section", { class: "card pad-head" },
        h("h1", {}, _("Score pad") + " · " + _(EDITION[g.edition].title)),
        h("p", {}, g.variant === "simplified" ? _("Simplified: no minus points, no bonus") : _("Standard scoring"))),
      over && this.stage === "view" ? this.finalCard(scored) : this.editor(),
      this.grid(scored),
      this.tools());
  }

  editor() {
    const g = this.game;
    const r = this.editing + 1;
    const entry = this.draft || g.rounds[this.editing];
    const [minotaur, griffin, mermaid] = EDITION[g.edition].symbols.map((s) => word(s));
    // a press keeps the focus on its button and says the new value (the output, drawn anew
    // with the page, would not be read out)
    const stepper = (id, label, value, max, set) => {
      const step = (next) => { set(next); this.entered(); say(`${label}: ${next}`); };
      return h("div", { class: "stepper" },
        h("button", { type: "button", "data-key": `${id}-less`, "aria-label": _("{what}: one less", { what: label }), onclick: () => step(Math.max(0, value - 1)) }, "−"),
        h("output", { id, "aria-label": label }, String(value)),
        h("button", { type: "button", "data-key": `${id}-more`, "aria-label": _("{what}: one more", { what: label }), onclick: () => step(Math.min(max, value + 1)) }, "+"));
    };
    const rows = g.players.map((name, p) => {
      const parts = [h("h3", {}, name),
        h("div", { class: "pad-field" }, h("span", {}, _("Bid")),
          stepper(`bid-${p}`, _("Bid of {name}", { name }), entry.bids[p], r, (v) => { entry.bids[p] = v; }))];
      if (this.stage === "tricks") {
        parts.push(h("div", { class: "pad-field" }, h("span", {}, _("Won")),
          stepper(`won-${p}`, _("Tricks won by {name}", { name }), entry.won[p], r, (v) => { entry.won[p] = v; })));
        if (g.variant === "standard") {
          // whose it is, for a screen reader going from control to control ("…, Ana")
          const griffinsText = capital(_("{griffin}s taken by the {minotaur}", { griffin, minotaur }));
          const mermaidText = capital(_("{minotaur} taken by a {mermaid}", { minotaur, mermaid }));
          parts.push(h("div", { class: "pad-field" },
            h("label", { for: `griffins-${p}` }, griffinsText),
            h("select", { id: `griffins-${p}`, "aria-label": `${griffinsText}, ${name}`, onchange: (e) => { entry.griffins[p] = Number(e.target.value); this.entered(); } },
              // at most the other players' dice of one trick, and the set's three griffins (R14)
              Array.from({ length: maxGriffins(this.n) + 1 }, (_x, k) => h("option", { value: k, selected: entry.griffins[p] === k }, String(k))))));
          parts.push(h("div", { class: "pad-field check" },
            h("input", { type: "checkbox", id: `mermaid-${p}`, checked: entry.mermaid[p], "aria-label": `${mermaidText}, ${name}`,
              onchange: (e) => { entry.mermaid[p] = e.target.checked; this.entered(); } }),
            h("label", { for: `mermaid-${p}` }, mermaidText)));
        }
      }
      return h("li", { class: "pad-player" }, parts);
    });
    const sum = entry.won.reduce((a, b) => a + b, 0);
    return h("section", { class: "card pad-editor", "aria-label": _("Round {n}", { n: r }) },
      h("h2", { tabindex: "-1" }, _("Round {n} of {total}", { n: r, total: this.total }) + " · " +
        (this.stage === "bids" ? _("Bids") : _("Tricks and bonuses"))),
      h("p", { class: "hint" }, this.stage === "bids" ? _("Everyone has bid? Enter each bid (0 to {n}).", { n: r })
        : _("Tricks entered: {sum} of {n}.", { sum, n: r })),
      h("ul", { class: "pad-players" }, rows),
      this.problems.length ? h("ul", { class: "problems", role: "alert" }, this.problems.map((p) => h("li", {}, this.problemText(p)))) : null,
      h("div", { class: "row" },
        this.stage === "bids"
          ? h("button", { class: "primary", id: "pad-next", onclick: () => this.bidsDone() }, _("Bids done: enter tricks"))
          : [h("button", { onclick: () => { this.stage = "bids"; entry.step = "bids"; this.problems = []; this.entered(); } }, _("Back to bids")),
            h("button", { class: "primary", id: "pad-score", onclick: () => this.scoreRound() }, _("Score this round"))],
        // a correction can be left as well as scored (it is kept apart until it is)
        this.draft ? h("button", { id: "pad-keep", onclick: () => { this.resume(this.game); this.render(); } },
          _("Keep the round as it was")) : null));
  }

  problemText(p) {
    return problemText(p, this.game, this.editing + 1);
  }

  bidsDone() {
    const entry = this.draft || this.game.rounds[this.editing];
    this.problems = checkRound(this.editing + 1, entry, this.n, this.game.variant, "bids");
    if (!this.problems.length) { this.stage = "tricks"; entry.step = "tricks"; }
    this.entered();
  }

  scoreRound() {
    const g = this.game;
    const entry = this.draft || g.rounds[this.editing];
    this.problems = checkRound(this.editing + 1, entry, this.n, g.variant);
    if (this.problems.length) { this.render(); return; }
    // scored on a copy: if another tab changed the game first, nothing here has changed
    const before = structuredClone(g.rounds);
    entry.done = true;
    delete entry.step;
    g.rounds[this.editing] = entry;
    this.draft = null;
    const last = g.rounds.length - 1;
    if (this.editing === last && g.rounds.length < this.total) {
      g.rounds.push(blankRound(this.n));
      this.editing = g.rounds.length - 1;
      this.stage = "bids";
    } else {
      // a correction: go back to the round being played (everything after recomputes), at
      // the step it was left at, as a reload shows it
      this.editing = g.rounds.length - 1;
      const current = g.rounds[this.editing];
      this.stage = current.done ? "view" : current.step === "tricks" ? "tricks" : "bids";
    }
    const result = saveGame(g);
    if (result === "changed" || result === "deleted") {
      g.rounds = before;
      this.settle(result);
      return;
    }
    this.settle(result);
    this.render();
  }

  grid(scored) {
    const g = this.game;
    return h("section", { class: "card pad-grid", "aria-label": _("Score sheet") },
      h("h2", {}, _("Score sheet")),
      h("div", { class: "scroll" }, h("table", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, _("Round")), g.players.map((p) => h("th", { scope: "col" }, h("span", { class: "who" }, p))), h("th", { scope: "col", class: "no-print" }, h("span", { class: "sr-only" }, _("Correct"))))),
        h("tbody", {}, scored.map((s, i) => h("tr", {},
          h("th", { scope: "row" }, String(s.round)),
          g.players.map((_p, j) => h("td", {},
            h("span", { class: "bw" }, `${g.rounds[i].bids[j]}/${g.rounds[i].won[j]}`),
            h("span", { class: "pts" }, (s.points[j] > 0 ? "+" : "") + s.points[j] + (s.bonus[j] ? " (" + _("Bonus") + " " + s.bonus[j] + ")" : "")),
            h("strong", { class: "tot" }, String(s.totals[j])))),
          h("td", { class: "no-print" }, h("button", { class: "small", id: `edit-${s.round}`, "aria-label": _("Correct round {n}", { n: s.round }), onclick: () => {
            this.editing = i; this.draft = structuredClone(g.rounds[i]); this.stage = "tricks"; this.problems = []; this.render();
            // the round reopened is above the sheet: brought into sight, its heading read out
            const heading = this.root.querySelector(".pad-editor h2");
            heading?.scrollIntoView({ block: "nearest" });
            heading?.focus({ preventScroll: true });
          } }, _("Correct")))))))),
      h("p", { class: "hint" }, _("Each cell: bid/won, points, running total.")));
  }

  finalCard(scored) {
    const totals = scored[scored.length - 1].totals;
    const order = ranking(totals);
    const winners = order.filter((o) => o.winner).map((o) => this.game.players[o.player]);
    return h("section", { class: "card final pad-final", "aria-label": _("Final ranking") },
      h("h2", { tabindex: "-1" }, _("Final ranking")),
      h("p", { class: "verdict" }, winners.length === 1
        ? _("{name} wins with {total} points!", { name: winners[0], total: order[0].total })
        : _("Shared victory: {names} with {total} points!", { names: andList(winners), total: order[0].total })),
      h("table", {}, h("tbody", {}, order.map((o) => h("tr", {}, h("td", {}, String(o.place)),
        h("th", { scope: "row" }, this.game.players[o.player]), h("td", {}, String(o.total)))))));
  }

  tools() {
    const g = this.game;
    const stamp = new Date(g.created).toISOString().slice(0, 10);
    return h("nav", { class: "toolbar no-print", "aria-label": _("Score pad tools") },
      h("button", { onclick: () => download(`mino-dice-pad-${stamp}.json`, "application/json", JSON.stringify(exportGame(g), null, 2)) }, _("Export (JSON)")),
      h("button", { onclick: () => download(`mino-dice-pad-${stamp}.csv`, "text/csv", toCsv(g)) }, _("Export (CSV)")),
      h("button", { onclick: () => window.print() }, _("Print")),
      h("a", { class: "button", href: "/pad", onclick: (e) => { e.preventDefault(); this.ui.go("/pad"); } }, _("All games")));
  }
}

export { bonusValue };
