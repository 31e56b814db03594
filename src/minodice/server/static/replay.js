// The replay viewer (/replay, /replay/TABLE#r3t2): a finished game's record, stepped through
// bid by bid and roll by roll, with each trick's winner and why and the score pad as it
// stood; lichess's analysis board is the model. Loaded only on these pages (app.js imports
// it when asked), so a table's first view does not pay for it.
// The rules are the page's own (fair.js replays records to check their dice; pad-score.js
// scores rounds); the server is only asked for a finished table's record and its analysis.
import { ApiError, api, diceSet } from "./api.js";
import { die } from "./dice.js";
import { h, isolated, replace } from "./dom.js";
import { resolve, ruleOptions } from "./fair.js";
import { _, decimal, word } from "./i18n.js";
import { ROUNDS, roundPoints } from "./pad-score.js";
import { reasonText } from "./table.js";

class BadRecord extends Error {}

const signed = (x) => decimal(x, 1, true);
const percent = (x) => `${Math.round(100 * x)}%`;

// A record (RECORD.md) played through: per round its starter, hands, bids, tricks (rolls,
// winner, why) and, once complete, points and running totals. A record that breaks the
// rules is refused with the place and the rule, as `minodice replay` does.
export function replayRecord(record, dice) {
  if (!record || record.format !== "minodice-record" || record.version !== 1) {
    throw new BadRecord(_("This is not a Mino Dice game record."));
  }
  const players = record.players;
  const n = Array.isArray(players) ? players.length : 0;
  if (!ROUNDS[n] || players.some((p) => typeof p !== "string" || !p) || new Set(players).size !== n) {
    throw new BadRecord("players: 3 to 6 distinct names (R1)");
  }
  const kinds = Object.fromEntries(dice.kinds.map((k) => [k.name, k]));
  const first = record.first_starter === undefined ? 0 : record.first_starter;
  if (!Number.isInteger(first) || first < 0 || first >= n) throw new BadRecord("first_starter is no seat (R5)");
  const rules = ruleOptions(record, BadRecord);
  if (!Array.isArray(record.rounds) || record.rounds.length > ROUNDS[n]) throw new BadRecord("rounds: more than the game has (R2)");
  const rounds = [];
  let totals = Array(n).fill(0);
  for (let r = 1; r <= record.rounds.length; r++) {
    const round = record.rounds[r - 1] || {};
    const at = `round ${r}`;
    if (!Array.isArray(round.bids)) break; // a round still being bid: nothing to show
    const hands = round.hands;
    if (!Array.isArray(hands) || hands.length !== n || hands.some((hand) => !Array.isArray(hand) || hand.length !== r || hand.some((k) => !kinds[k]))) {
      throw new BadRecord(`${at}: not one hand of ${r} dice of this set per player (R4)`);
    }
    if (round.bids.length !== n || round.bids.some((b) => !Number.isInteger(b) || b < 0 || b > r)) {
      throw new BadRecord(`${at}: not one bid of 0 to ${r} per player (R6)`);
    }
    const starter = rules.starter(first, r, n);
    const held = hands.map((hand) => hand.slice());
    const won = Array(n).fill(0);
    const bonus = Array(n).fill(0);
    const tricks = [];
    let leader = starter;
    for (const [t, trick] of (round.tricks || []).entries()) {
      if (t >= r || !Array.isArray(trick) || !trick.length || trick.length > n) throw new BadRecord(`${at}, trick ${t + 1}: not a trick (R2, R8)`);
      let follow = null;
      const rolls = trick.map((roll, q) => {
        const where = `${at}, trick ${t + 1}, roll ${q + 1}`;
        const p = (leader + q) % n;
        const kind = kinds[roll && roll.die];
        if (!roll || roll.player !== p) throw new BadRecord(`${where}: ${players[p]} rolls now (R7, R8)`);
        if (!kind || !held[p].includes(roll.die)) throw new BadRecord(`${where}: ${players[p]} holds no such die (R8)`);
        if (follow && !kind.special && roll.die !== follow && held[p].includes(follow)) throw new BadRecord(`${where}: ${players[p]} must follow ${follow} (R9)`);
        if (!kind.faces.map(String).includes(String(roll.face))) throw new BadRecord(`${where}: the die has no such face (R8)`);
        held[p].splice(held[p].indexOf(roll.die), 1);
        if (!follow && rules.setsColour(kind, q)) follow = roll.die;
        return { player: p, die: roll.die, face: String(roll.face) };
      });
      if (rolls.length < n) {
        if (r !== record.rounds.length || t !== round.tricks.length - 1) throw new BadRecord(`${at}, trick ${t + 1}: a roll is missing (R8)`);
        tricks.push({ rolls, winner: null });
        break;
      }
      const result = resolve(rolls, dice.symbols);
      const winner = rolls[result.winner].player;
      won[winner]++;
      bonus[winner] += result.bonus;
      tricks.push({ rolls, winner, index: result.winner, why: { reason: result.reason, face: rolls[result.winner].face, beaten: result.beaten } });
      leader = winner;
    }
    const complete = tricks.length === r && tricks[r - 1].winner !== null;
    const before = totals;
    let points = null;
    if (complete) {
      points = round.bids.map((b, p) => roundPoints(b, won[p], r, bonus[p], record.variant || "standard").points);
      totals = totals.map((x, p) => x + points[p]);
    }
    rounds.push({ round: r, starter, hands, bids: round.bids, tricks, won, points, before, totals: complete ? totals : null });
  }
  if (!rounds.length) throw new BadRecord(_("This record has no round with bids yet."));
  return { players, n, dice, rounds, total: ROUNDS[n], table: record.fairness && record.fairness.table };
}

// Every place of the game, in order: a round's bids (t 0), then each roll of each trick.
export function positions(game) {
  const out = [];
  for (const round of game.rounds) {
    out.push({ r: round.round, t: 0, k: 0 });
    round.tricks.forEach((trick, t) => trick.rolls.forEach((_r, k) => out.push({ r: round.round, t: t + 1, k: k + 1 })));
  }
  return out;
}

// "#r3" (round 3's bids), "#r3t2" (its second trick, every die rolled), "#r3t2d1" (one die).
export function placeHash(game, at) {
  if (!at.t) return `r${at.r}`;
  const size = game.rounds[at.r - 1].tricks[at.t - 1].rolls.length;
  return at.k >= size ? `r${at.r}t${at.t}` : `r${at.r}t${at.t}d${at.k}`;
}

function indexOfHash(game, places, hash) {
  return places.findIndex((p) => `#${placeHash(game, p)}` === hash);
}

// A decision the analysis counts as a mistake: beyond the noise and significant (analyses
// stored before that test came: beyond the noise).
function isMistake(d, analysis) {
  return d.mistake !== undefined ? d.mistake : d.loss > analysis.noise_points;
}

// The page ------------------------------------------------------------------------------

// The record file opened last (and its analysis's id, once asked for): the page drawn again
// (another language, Back from another page) shows it again, at the place in the address,
// rather than asking for the file anew.
let openedFile = null;

export async function showReplay(root, tableId, ui) {
  const body = h("div", { class: "replay-body" });
  const picker = h("input", { type: "file", id: "replay-file", accept: ".json,application/json", onchange: async (e) => {
    const file = e.target.files && e.target.files[0];
    if (!file) return;
    try {
      const record = JSON.parse(await file.text());
      const kept = { record, uploadId: null };
      if (!await open(record, null, false, kept)) return;
      openedFile = kept;
      // the arrow keys step at once (the file box, focused, would keep them)
      view.next.focus();
    } catch (err) { problem(err); }
  } });
  const header = h("section", { class: "card replay-head" }, h("h1", {}, _("Replay")),
    tableId ? null : h("div", { class: "field" }, h("label", { for: "replay-file" }, _("Open a game record (JSON)")), picker));
  replace(root, header, body);
  let view = null;
  let left = false;  // the page was left: a record still coming makes no view (its keys)

  function problem(err) {
    const text = err instanceof BadRecord || err instanceof ApiError ? err.message : _("This is not a Mino Dice game record.");
    replace(body, h("p", { class: "error", role: "alert" }, _("This record cannot be replayed: {problem}", { problem: text })));
  }

  // ``atHash``: start at the place the address names (a link; the page drawn again).
  // Whether a view was made (not if the page was left meanwhile).
  async function open(record, id, atHash, kept = null) {
    const dice = await diceSet(record && record.dice_set ? record.dice_set : "mino");
    const game = replayRecord(record, dice);
    if (left) return false;
    if (view) view.stop();
    view = new ReplayView(body, game, id, ui, record, atHash, kept);
    return true;
  }

  if (tableId) {
    try {
      await open(await api("GET", `/api/tables/${tableId}/record`), tableId, true);
    } catch (err) {
      // 409: the game is still being played (its record is not out before its end); a table
      // that is not there has no table to go back to
      const text = err.code === "conflict" ? _("The replay is ready when the game is over.") : err.message;
      replace(body, h("p", { class: "error", role: "alert" }, text), err.code === "not_found"
        ? h("a", { class: "button", href: "/" }, _("Back to the lobby"))
        : h("a", { class: "button", href: `/t/${tableId}` }, _("Back to the table")));
    }
  } else if (openedFile) {
    try { await open(openedFile.record, null, true, openedFile); } catch (err) { problem(err); }
  } else {
    replace(body, h("p", { class: "hint" }, _("Pick a record file, or open a finished table's replay from the lobby.")));
  }
  return () => { left = true; if (view) view.stop(); };
}

class ReplayView {
  // `record`: as read (a finished table's, or a file's); a file's is sent to the server
  // when its analysis is asked for (POST /api/analyses), and followed by the id it gets.
  // `kept`: a file's {record, uploadId} (null for a table's), kept by the page too: the
  // analysis's id, once asked for, is the file's, shown again when the page is drawn again.
  constructor(body, game, tableId, ui, record, atHash, kept) {
    this.body = body;
    this.game = game;
    this.tableId = tableId;
    this.record = record;
    this.file = kept;
    this.ui = ui;
    this.places = positions(game);
    this.analysis = null;
    const found = atHash ? indexOfHash(game, this.places, location.hash) : -1;
    this.at = found >= 0 ? found : 0;
    this.status = h("p", { class: "replay-where", "aria-live": "polite", id: "replay-where" });
    this.prev = h("button", { type: "button", id: "replay-prev", "aria-label": _("Previous step"), onclick: () => this.go(this.at - 1) }, "◀");
    this.next = h("button", { type: "button", id: "replay-next", "aria-label": _("Next step"), onclick: () => this.go(this.at + 1) }, "▶");
    this.roundSelect = h("select", { id: "replay-round", "aria-label": _("Round"), onchange: (e) => this.go(this.places.findIndex((p) => p.r === Number(e.target.value) && !p.t)) },
      game.rounds.map((r) => h("option", { value: r.round }, _("Round {n}/{total}", { n: r.round, total: game.total }))));
    this.content = h("div", { class: "replay-content" });
    this.extra = h("div", { class: "replay-extra" });
    replace(body, h("div", { class: "row replay-nav" }, this.prev, this.roundSelect, this.next), this.status, this.content, this.extra);
    this.keys = (e) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
      const to = { ArrowLeft: this.at - 1, ArrowRight: this.at + 1, Home: 0, End: this.places.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      this.go(to);
    };
    // a place the game does not have (#r9 of 8 rounds, typed): the address goes back to
    // naming the place shown
    this.hash = () => {
      const i = indexOfHash(game, this.places, location.hash);
      if (i < 0) this.render();
      else if (i !== this.at) this.go(i);
    };
    let start = null;
    this.down = (e) => { start = [e.clientX, e.clientY]; };
    this.up = (e) => {
      if (!start) return;
      const [dx, dy] = [e.clientX - start[0], e.clientY - start[1]];
      start = null;
      if (Math.abs(dx) > 40 && Math.abs(dx) > 2 * Math.abs(dy)) this.go(this.at + (dx < 0 ? 1 : -1));
    };
    document.addEventListener("keydown", this.keys);
    window.addEventListener("hashchange", this.hash);
    this.content.addEventListener("pointerdown", this.down);
    this.content.addEventListener("pointerup", this.up);
    this.render();
    if (tableId || kept.uploadId) this.askAnalysis("GET");
    else this.offerAnalysis(null);
  }

  stop() {
    this.stopped = true;
    document.removeEventListener("keydown", this.keys);
    window.removeEventListener("hashchange", this.hash);
    if (this.timer) clearTimeout(this.timer);
  }

  go(index) {
    if (index < 0 || index >= this.places.length || index === this.at) return;
    this.at = index;
    this.render();
  }

  render() {
    const game = this.game;
    const at = this.places[this.at];
    const round = game.rounds[at.r - 1];
    const names = game.players;
    // the address names the place (a link to it, Back to it, the page drawn again); a view
    // left while its record came late does not touch the address of the page moved to
    // (only the #place: a path the router keeps as the page's, with its ?query, stays as it is)
    if (!this.stopped) history.replaceState(history.state, "", `${location.pathname}${location.search}#${placeHash(game, at)}`);
    this.prev.disabled = this.at === 0;
    this.next.disabled = this.at === this.places.length - 1;
    this.roundSelect.value = String(at.r);
    const trick = at.t ? round.tricks[at.t - 1] : null;
    const shown = trick ? trick.rolls.slice(0, at.k) : [];
    const done = trick && at.k === trick.rolls.length && trick.winner !== null;
    // tricks won and dice held as they stood at this step
    const won = Array(game.n).fill(0);
    const held = round.hands.map((hand) => hand.slice());
    round.tricks.slice(0, at.t).forEach((tr, i) => {
      const last = i === at.t - 1;
      (last ? shown : tr.rolls).forEach((roll) => held[roll.player].splice(held[roll.player].indexOf(roll.die), 1));
      if (!last || done) if (tr.winner !== null) won[tr.winner]++;
    });
    const over = done && at.t === round.round;
    const totals = over ? round.totals : round.before;
    const where = at.t
      ? _("Round {n}/{total}", { n: at.r, total: game.total }) + " · " + _("Trick {n}/{total}", { n: at.t, total: at.r })
      : _("Round {n}/{total}", { n: at.r, total: game.total }) + " · " + _("Bids");
    this.status.textContent = `${where} (${this.at + 1}/${this.places.length})`;
    const next = trick && !done && at.k < trick.rolls.length ? trick.rolls[at.k].player : null;
    const seats = h("ol", { class: "replay-seats" }, names.map((name, p) => h("li", {
      class: (trick && trick.winner === p && done ? "winner " : "") + (next === p ? "turn" : ""), "data-seat": p },
    h("div", { class: "seat-line" },
      h("span", { class: "name", dir: "auto", title: name }, name, p === round.starter ? " ★" : ""),
      h("span", { class: "figures" }, `${_("Bid")} ${round.bids[p]} · ${_("Won")} ${won[p]} · `, h("strong", { class: "total" }, String(totals[p])))),
    h("div", { class: "seat-dice", "aria-label": _("Dice of {name}", { name }) }, this.heldDice(held[p])))));
    let caption;
    if (!trick) caption = _("{name} starts this round.", { name: isolated(names[round.starter]) });
    else if (done) caption = _("{name} wins the trick: {reason}", { name: isolated(names[trick.winner]), reason: reasonText(game.dice, trick.why) });
    else caption = _("{name} rolls next.", { name: isolated(names[next]) });
    const middle = h("section", { class: "card trick replay-trick", "aria-label": _("Trick"), "data-round": at.r, "data-trick": at.t,
      "data-winner": done ? trick.winner : null },
    h("p", { class: "caption" }, caption),
    trick ? h("ul", { class: "rolls" }, shown.map((roll, i) => h("li", { class: done && i === trick.index ? "won" : "" },
      die(game.dice, this.kind(roll.die), roll.face, { size: 44 }),
      h("span", { class: "label" }, `${names[roll.player]}: ${word(roll.die)} → ${word(roll.face)}`)))) : null);
    replace(this.content, h("section", { class: "card" }, seats), middle, this.notes(at), this.pad(over ? at.r : at.r - 1));
  }

  kind(name) { return this.game.dice.kinds.find((k) => k.name === name); }

  /** The dice a seat holds, a kind at a time: the die as the table draws it in a hand (no
   * letters on it) and its whole name, "Rot ×2" (two letters, "ro", were red in German and
   * purple in Portuguese). */
  heldDice(held) {
    const counts = new Map();
    for (const k of held) counts.set(k, (counts.get(k) || 0) + 1);
    return [...counts].map(([k, n]) => {
      const drawn = die(this.game.dice, this.kind(k), null, { size: 22, label: false });
      drawn.setAttribute("aria-hidden", "true");  // the word beside it says it
      return h("span", { class: "held" }, drawn, word(k) + (n > 1 ? ` ×${n}` : ""));
    });
  }

  // -- the analysis (#19): asked of the server, shown beside each decision -------------------

  // A table's analysis is asked of the table; a file's is sent, then followed by its id
  // (a server that no longer has it, or another process of it, is sent the record again).
  async askAnalysis(method) {
    let job = null;
    try {
      if (this.tableId) job = await api(method, `/api/tables/${this.tableId}/analysis`);
      else job = await this.askUploaded(method);
    } catch (err) {
      if (method === "POST" || err.code !== "not_found") this.ui.toast(err.message);
    }
    if (this.stopped || !this.extra.isConnected) return;
    this.offerAnalysis(job);
  }

  async askUploaded(method) {
    if (method === "GET" && this.file.uploadId) {
      try { return await api("GET", `/api/analyses/${this.file.uploadId}`); } catch (err) { if (err.code !== "not_found") throw err; }
    }
    const job = await api("POST", "/api/analyses", this.record);
    this.file.uploadId = job.id;
    return job;
  }

  offerAnalysis(job) {
    if (job && job.status === "done") {
      this.analysis = job.analysis;
      this.byPlace = new Map(job.analysis.decisions.map((d) => [`${d.round}.${d.trick || 0}.${d.seat}`, d]));
      replace(this.extra, this.summary());
      this.render();
      return;
    }
    const button = h("button", { type: "button", id: "analyse", class: "primary", onclick: () => this.askAnalysis("POST") }, _("Analyse"));
    const running = job && job.status === "running";
    replace(this.extra, h("section", { class: "card analysis" },
      h("h2", {}, _("Analysis")),
      running
        ? h("p", { role: "status" }, h("progress", { max: job.total, value: job.done }), " ",
          _("Analysing: {done} of {total} decisions", { done: job.done, total: job.total }))
        : h("p", {}, _("Every decision weighed from what that player could see: expected points lost, the chance of making the bid, the best choice."), " ", button),
      job && job.status === "failed" ? h("p", { class: "error" }, job.message || "") : null));
    if (running) this.timer = setTimeout(() => this.askAnalysis("GET"), 1000);
  }

  // The decision(s) of this step: every seat's bid, or the die just rolled.
  notes(at) {
    if (!this.analysis) return null;
    const names = this.game.players;
    const round = this.game.rounds[at.r - 1];
    const line = (d, what) => h("li", { class: isMistake(d, this.analysis) ? "mistake" : "" },
      what, " ", _("expected {points} points, makes the bid {chance}.", { points: signed(d.expected_score_chosen), chance: percent(d.make_chance_chosen) }), " ",
      d.chosen === d.best ? _("The best choice.")
        : _("Best: {best} (expected {points}, {chance}); {lost} points lost.", { best: d.kind === "bid" ? d.best : word(d.best),
          points: signed(d.expected_score_best), chance: percent(d.make_chance_best), lost: decimal(d.loss) }));
    let items;
    if (!at.t) {
      items = names.map((name, p) => {
        const d = this.byPlace.get(`${at.r}.0.${p}`);
        return d ? line(d, _("{name} bid {bid}:", { name: isolated(name), bid: d.chosen })) : null;
      });
    } else if (at.k) {
      const roll = round.tricks[at.t - 1].rolls[at.k - 1];
      const d = this.byPlace.get(`${at.r}.${at.t}.${roll.player}`);
      items = [d ? line(d, _("{name} rolled {die}:", { name: isolated(names[roll.player]), die: word(roll.die) }))
        : h("li", {}, _("{name} had no choice of die.", { name: isolated(names[roll.player]) }))];
    }
    return h("section", { class: "card analysis-notes", "aria-label": _("Analysis") }, h("ul", {}, items));
  }

  // Per player: points lost a round, mistaken bids, and the biggest mistakes as links to
  // their place in the replay.
  summary() {
    const mistakes = (s) => s.biggest_mistakes.filter((d) => isMistake(d, this.analysis)).map((d) => {
      const at = { r: d.round, t: d.trick || 0, k: 0 };
      if (d.trick) at.k = this.game.rounds[d.round - 1].tricks[d.trick - 1].rolls.findIndex((roll) => roll.player === d.seat) + 1;
      const where = d.trick ? _("Round {r}, trick {t}", { r: d.round, t: d.trick }) : _("Round {r}, bid", { r: d.round });
      return h("li", {}, h("a", { href: `#${placeHash(this.game, at)}` }, where), " ",
        _("{lost} points lost", { lost: decimal(d.loss) }));
    });
    return h("section", { class: "card analysis" }, h("h2", {}, _("Analysis")),
      h("ul", {}, this.analysis.summary.map((s) => {
        const worst = mistakes(s);
        return h("li", { "data-seat": s.seat },
          _("{name}: {lost} points lost a round; bids above the best bid: {high}, below it: {low}.", {
            name: isolated(s.player), lost: decimal(s.points_lost_per_round), high: s.bids_too_high, low: s.bids_too_low }),
          worst.length ? h("ul", { class: "mistakes", "aria-label": _("Biggest mistakes") }, worst)
            : h("p", { class: "hint" }, _("No mistake beyond the noise.")));
      })),
      this.analysis.finished === false ? h("p", { class: "hint" }, _("The game stopped before its end.")) : null);
  }

  // The score pad as it stood: every round finished by this step.
  pad(upTo) {
    const game = this.game;
    const rows = game.rounds.slice(0, upTo);
    return h("section", { class: "card pad-now", "aria-label": _("Score pad") },
      h("h2", {}, _("Score pad")),
      h("div", { class: "scroll" }, h("table", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, _("Round")), game.players.map((name) => h("th", { scope: "col", title: name }, name)))),
        h("tbody", {}, rows.map((round) => h("tr", { "data-round": round.round, "data-totals": round.totals.join(",") },
          h("th", { scope: "row" }, String(round.round)),
          round.totals.map((t, p) => h("td", {},
            h("span", { class: "small" }, `${round.bids[p]}/${round.won[p]} `), h("strong", {}, String(t))))))))));
  }
}
