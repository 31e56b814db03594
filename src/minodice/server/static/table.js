// The table page (/t/ID): join or watch, then render every view the server sends, in one
// direction (view → DOM), and send only what the view offers ("legal"). The server decides
// everything; the page shows, asks, and checks the one thing it must not trust: the dice.
import { api, diceSet, keepFair, newSeed, store, takeSeat } from "./api.js";
import { die } from "./dice.js";
import { h, replace } from "./dom.js";
import { verifyRecord } from "./fair.js";
import { _, capital, word } from "./i18n.js";

import { EDITIONS, LEVELS } from "/meta.js";

const TITLES = Object.fromEntries(EDITIONS.map((e) => [e.name, e.title]));

export async function showTable(root, tableId, ui) {
  let info;
  try {
    info = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
  } catch (err) {
    const damaged = err.code === "damaged";
    replace(root, h("section", { class: "card" },
      h("h1", {}, damaged ? _("This table cannot be played") : _("Table not found")),
      h("p", {}, damaged ? _("Its saved game is damaged, so the server has set it aside.") : err.message),
      h("p", {}, h("a", { href: "/" }, _("Back to the lobby")))));
    return () => {};
  }
  const page = new TablePage(root, info, ui);
  await page.begin();
  return () => page.leave();
}

class TablePage {
  constructor(root, info, ui) {
    this.root = root;
    this.info = info;
    this.ui = ui;
    this.id = info.table;
    this.view = null;
    this.seq = -1;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.status = "connecting";
    this.showFaces = false;
    this.showPad = false;
    this.summaryFor = 0;            // the round whose summary was dismissed
    this.announced = "";
    this.fairness = null;
    this.advice = null;
    this.chat = [];
    this.ticker = setInterval(() => this.tick(), 500);
    this.sections = {
      head: h("div", { class: "table-head" }),
      main: h("div", { class: "table-main" }),
      chat: this.chatPanel(),
    };
    this.live = h("div", { class: "sr-only", "aria-live": "polite", role: "status" });
  }

  get seat() { return store.get(`seat.${this.id}`); }

  async begin() {
    this.dice = await diceSet(this.info.edition);
    replace(this.root, this.sections.head, this.live, this.sections.main, this.sections.chat);
    if (!this.seat && this.info.status === "waiting" && this.info.seats_free > 0) {
      this.renderJoin();
    }
    this.connect();
  }

  leave() {
    this.closed = true;
    clearInterval(this.ticker);
    if (this.ws) this.ws.close();
  }

  // -- the connection -------------------------------------------------------------------

  connect() {
    if (this.closed) return;
    const seat = this.seat;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = seat ? `?token=${encodeURIComponent(seat.token)}` : "";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/${this.id}${query}`);
    this.ws = ws;
    this.setStatus(this.retry ? "reconnecting" : "connecting");
    ws.onopen = () => { this.retry = 0; this.setStatus("online"); };
    // A socket being replaced (a seat just taken) may still deliver a view: not ours any more.
    ws.onmessage = (event) => { if (ws === this.ws) this.receive(JSON.parse(event.data)); };
    ws.onclose = () => {
      if (this.closed || ws !== this.ws) return;
      this.setStatus("reconnecting");
      const wait = Math.min(8000, 300 * 2 ** this.retry++);
      setTimeout(() => this.connect(), wait);
    };
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
    else this.ui.toast(_("Not connected; trying again…"));
  }

  setStatus(status) {
    this.status = status;
    this.renderHead();
  }

  receive(message) {
    if (message.type === "view") {
      if (message.seq <= this.seq) return;
      const before = this.view;
      this.seq = message.seq;
      this.view = message.view;
      this.keepFairness(this.view);
      this.announce(before, this.view);
      this.render(before);
    } else if (message.type === "chat") {
      this.addChat(message);
    } else if (message.type === "error") {
      if (message.code === "forbidden" && this.seat && !this.view) {
        store.remove(`seat.${this.id}`);   // a token from elsewhere: watch instead
        this.ws.close();
        return;
      }
      this.ui.toast(message.code === "unavailable" ? _("The move could not be saved. Try again.") : message.message);
    }
  }

  // -- fair dice: what this device keeps, and revealing its seed ---------------------------

  keepFairness(v) {
    if (v.status === "waiting") keepFair(this.id, { commit: v.commit });
    if (!v.reveal) return;
    keepFair(this.id, { hashes: v.reveal.seed_hashes });
    if (v.you === null || !v.reveal.pending.includes(v.you) || this.revealing) return;
    const kept = store.get(`fair.${this.id}`, {});
    if (!kept.seed || kept.hash !== v.reveal.seed_hashes[v.you]) {
      // another device took this seat, or the server shows another commitment: the seed
      // here is not the one committed to, so it is not told (the server will draw one)
      this.ui.toast(_("This device does not hold the seed your seat committed to."));
      this.revealing = true;
      return;
    }
    this.revealing = true;
    api("POST", `/api/tables/${this.id}/reveal`, { token: this.seat.token, client_seed: kept.seed })
      .catch((err) => { this.revealing = false; this.ui.toast(err.message); });
  }

  // -- rendering ----------------------------------------------------------------------------

  names() { return (this.view ? this.view.players : this.info.players).map((p, i) => p.name || _("Seat {n}", { n: i + 1 })); }

  renderHead() {
    const v = this.view || this.info;
    const statusText = { online: _("Connected"), connecting: _("Connecting…"), reconnecting: _("Reconnecting…") }[this.status];
    const round = this.view && this.view.round ? _("Round {n}/{total}", { n: this.view.round, total: this.view.rounds }) : "";
    replace(this.sections.head,
      h("h1", {}, _(TITLES[v.edition] || EDITIONS[0].title)),
      round ? h("span", { class: "round" }, round) : null,
      h("span", { class: `conn conn-${this.status}`, role: "status" }, statusText));
  }

  render(before) {
    this.renderHead();
    const v = this.view;
    const main = this.sections.main;
    if (v.status === "waiting") {
      // One join form for the page: a view that arrives while a person types their name
      // (someone joins or leaves) must not wipe the name or take the focus away.
      const form = this.seat ? null : (this.join ||= this.joinForm());
      const focused = form && form.contains(document.activeElement) ? document.activeElement : null;
      replace(main, form, this.waitingPanel());
      if (focused) focused.focus();
      return;
    }
    const parts = [];
    parts.push(this.promptLine());
    if (v.status === "finished") parts.push(this.finalPanel());
    const summary = this.roundSummary();
    if (summary) parts.push(summary);
    parts.push(this.trickPanel(before));
    if (v.you !== null && v.status === "playing") parts.push(this.handPanel());
    if (v.phase === "bid" && v.turn) parts.push(this.bidPanel());
    if (this.advice && v.phase === "bid") parts.push(this.advicePanel());
    parts.push(this.playersPanel());
    parts.push(this.toolbar());
    if (this.showPad || v.status === "finished") parts.push(this.scorePad());
    replace(main, ...parts);
  }

  renderJoin() {
    replace(this.sections.main, this.join ||= this.joinForm());
  }

  joinForm() {
    const input = h("input", { id: "join-name", name: "name", maxlength: 24, required: true,
      autocomplete: "nickname", value: store.get("name", "") });
    const form = h("form", { class: "card join", onsubmit: async (e) => {
      e.preventDefault();
      try {
        await takeSeat(this.id, input.value.trim(), {}, (this.view || this.info).commit);
        if (this.ws) this.ws.close();
        this.ws = null;
        this.seq = -1;
        this.view = null;
        this.connect();
      } catch (err) { this.ui.toast(err.message); }
    } },
    h("h2", {}, _("Join this table")),
    h("label", { for: "join-name" }, _("Your name")), input,
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, _("Take a seat"))),
    h("p", { class: "hint" }, _("Or just watch: spectators see the table, never a hand.")));
    return form;
  }

  waitingPanel() {
    const v = this.view;
    const names = this.names();
    const host = store.get(`host.${this.id}`);
    const link = `${location.origin}/t/${this.id}`;
    const free = v.players.filter((p) => !p.name).length;
    const level = h("select", { id: "fill-level", "aria-label": _("Bots for the empty seats") },
      levelOptions("easy"));
    return h("section", { class: "card" },
      h("h2", {}, _("Waiting for players")),
      h("p", {}, _("{free} of {total} seats are free.", { free, total: v.players.length })),
      h("ul", { class: "seats" }, v.players.map((p, i) => h("li", {},
        p.name ? names[i] : h("em", {}, _("free seat")),
        p.bot ? h("span", { class: "tag" }, botName(p.bot)) : null,
        i === (this.seat && this.seat.seat) ? h("span", { class: "tag you" }, _("you")) : null))),
      invite(link, this.ui),
      host ? h("div", { class: "row host" }, h("label", { for: "fill-level" }, _("Fill empty seats with")), level,
        h("button", { class: "primary", onclick: async () => {
          try { await api("POST", `/api/tables/${this.id}/start`, { host_token: host, fill: level.value }); }
          catch (err) { this.ui.toast(err.message); }
        } }, _("Start now"))) : null);
  }

  promptLine() {
    const v = this.view;
    const names = this.names();
    let text;
    if (v.status === "finished") text = _("The game is over.");
    else if (v.turn && v.phase === "bid") text = _("Your bid: 0 to {n}. Secret until all have bid.", { n: v.round });
    else if (v.turn) text = _("Your turn: choose a die to roll.");
    else if (v.phase === "bid") text = _("Waiting for bids: {names}", { names: v.to_act.map((s) => names[s]).join(", ") });
    else text = _("Waiting for {name}…", { name: v.to_act.map((s) => names[s]).join(", ") });
    return h("p", { class: "prompt" + (v.turn ? " yours" : ""), id: "prompt" }, text,
      h("span", { class: "deadline", id: "deadline" }, this.deadlineText()));
  }

  deadlineText() {
    const v = this.view;
    if (!v || !v.deadline || v.status !== "playing") return "";
    const left = Math.max(0, Math.ceil((v.deadline - Date.now()) / 1000));
    return " · " + _("{s} s left", { s: left });
  }

  tick() {
    const el = document.getElementById("deadline");
    if (el) el.textContent = this.deadlineText();
  }

  playersPanel() {
    const v = this.view;
    const names = this.names();
    const rows = v.players.map((p, i) => {
      const bid = v.bids[i] !== null ? String(v.bids[i]) : (v.has_bid[i] ? "✓" : "?");
      const notes = [];
      if (p.bot) notes.push(botName(p.bot));
      if (p.autoplay) notes.push(_("away: a bot plays"));
      else if (!p.bot && !p.connected) notes.push(_("offline"));
      if (i === v.you) notes.push(_("you"));
      return h("tr", { class: (v.to_act.includes(i) ? "acting " : "") + (i === v.you ? "me" : "") },
        h("th", { scope: "row" }, i === v.starter ? h("span", { class: "starter", title: _("start player"), "aria-label": _("start player") }, "◆ ") : null,
          names[i], notes.length ? h("small", {}, " (" + notes.join(", ") + ")") : null),
        h("td", { "aria-label": _("Bid") }, bid),
        h("td", {}, String(v.tricks_won[i])),
        h("td", {}, String(v.totals[i])));
    });
    return h("table", { class: "players" },
      h("caption", { class: "sr-only" }, _("Players")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, _("Player")), h("th", { scope: "col" }, _("Bid")),
        h("th", { scope: "col" }, _("Won")), h("th", { scope: "col" }, _("Total")))),
      h("tbody", {}, rows));
  }

  lastTrick() {
    const v = this.view;
    if (v.trick.length) return null;
    if (v.tricks.length) return v.tricks[v.tricks.length - 1];
    const past = v.history[v.history.length - 1];
    return past && past.tricks && past.tricks.length ? past.tricks[past.tricks.length - 1] : null;
  }

  trickPanel(before) {
    const v = this.view;
    const names = this.names();
    const done = this.lastTrick();
    const rolls = v.trick.length ? v.trick : (done ? done.rolls : []);
    const seen = before && before.trick ? before.trick.length : 0;
    const follow = v.trick.length ? v.follow : null;
    const items = rolls.map((r, i) => {
      const rolling = v.trick.length && i >= seen && !reducedMotion();
      const winner = !v.trick.length && done && r.seat === done.winner;
      return h("li", { class: "roll" + (rolling ? " rolling" : "") + (winner ? " winner" : "") },
        die(this.dice, this.kind(r.die), r.face, { size: 52 }),
        h("span", { class: "who" }, names[r.seat]),
        h("span", { class: "what" }, `${word(r.die)} → ${word(r.face)}`));
    });
    let caption;
    if (v.trick.length) caption = follow ? _("Follow: {colour}", { colour: word(this.kind(follow).colour) }) : _("No colour yet");
    else if (done) caption = this.trickWonText(done);
    else caption = _("No trick yet this round");
    return h("section", { class: "card trick", "aria-label": _("Trick") },
      h("h2", {}, v.trick.length ? _("Trick {n}/{total}", { n: v.tricks.length + 1, total: v.round }) : _("Trick")),
      h("p", { class: "caption" }, caption),
      h("ul", { class: "rolls" }, items));
  }

  kind(name) { return this.dice.kinds.find((k) => k.name === name) || { name, colour: "gray", special: false }; }

  trickWonText(trick) {
    return _("{name} wins the trick: {reason}", { name: this.names()[trick.winner], reason: reasonText(this.dice, trick.why) });
  }

  handPanel() {
    const v = this.view;
    const legal = new Set(v.legal.filter((a) => a.startsWith("roll ")).map((a) => a.slice(5)));
    const choosing = v.phase === "play" && v.turn;
    const counts = {};
    for (const k of v.hand) counts[k] = (counts[k] || 0) + 1;
    const kinds = this.dice.kinds.filter((k) => counts[k.name]);
    let blocked = false;
    const buttons = kinds.map((k) => {
      const allowed = !choosing || legal.has(k.name);
      if (!allowed) blocked = true;
      const label = word(k.name) + (counts[k.name] > 1 ? ` ×${counts[k.name]}` : "");
      return h("li", {},
        h("button", { class: "die-button" + (allowed ? "" : " blocked"), disabled: !choosing || !allowed,
          "aria-label": choosing ? (allowed ? _("Roll {die}", { die: label }) : `${label}: ${this.whyBlocked()}`) : label,
          onclick: () => this.send({ type: "act", turn: v.turn, action: `roll ${k.name}` }) },
        die(this.dice, k, null, { size: 56, label: false }),
        h("span", { class: "label" }, label, allowed ? "" : " ✗")),
        this.showFaces ? h("div", { class: "faces", "aria-label": _("Faces of {die}", { die: word(k.name) }) },
          k.faces.map((f) => die(this.dice, k, f, { size: 22 }))) : null);
    });
    return h("section", { class: "card hand", "aria-label": _("Your dice") },
      h("h2", {}, _("Your dice")),
      kinds.length ? h("ul", { class: "dice" }, buttons) : h("p", { class: "hint" }, _("(none left this round)")),
      blocked ? h("p", { class: "why" }, "✗ " + this.whyBlocked()) : null);
  }

  whyBlocked() {
    const v = this.view;
    return _("You must follow {colour} or roll a special die (R9).", { colour: word(this.kind(v.follow).colour) });
  }

  bidPanel() {
    const v = this.view;
    const bids = v.legal.filter((a) => a.startsWith("bid ")).map((a) => Number(a.slice(4)));
    return h("section", { class: "card bid", "aria-label": _("Your bid") },
      h("h2", {}, _("Your bid")),
      h("div", { class: "bids", role: "group", "aria-label": _("Your bid") }, bids.map((b) =>
        h("button", { class: "bid-button", onclick: () => this.send({ type: "act", turn: v.turn, action: `bid ${b}` }) }, String(b)))),
      h("p", { class: "hint" }, _("Bids stay secret until everyone has bid.")));
  }

  toolbar() {
    const v = this.view;
    const buttons = [
      h("button", { "aria-pressed": String(this.showFaces), onclick: () => { this.showFaces = !this.showFaces; this.render(this.view); } }, _("Faces")),
      h("button", { "aria-pressed": String(this.showPad), onclick: () => { this.showPad = !this.showPad; this.render(this.view); } }, _("Score pad")),
      h("a", { class: "button", href: "/about#rules", target: "_blank" }, _("Rules")),
    ];
    if (v.advisor && v.you !== null && v.phase === "bid" && v.status === "playing") {
      buttons.push(h("button", { onclick: () => this.askAdvice() }, _("Bid advice")));
    }
    buttons.push(h("button", { onclick: () => shareLink(`${location.origin}/t/${this.id}`, this.ui) }, _("Invite")));
    return h("nav", { class: "toolbar", "aria-label": _("Table tools") }, buttons);
  }

  async askAdvice() {
    const v = this.view;
    try {
      this.advice = await api("POST", "/api/advise", { players: v.players.length, round: v.round,
        seat: (v.you - v.starter + v.players.length) % v.players.length, hand: v.hand,
        edition: v.edition, variant: v.variant });
      this.advice.round = v.round;
      this.render(this.view);
    } catch (err) { this.ui.toast(err.message); }
  }

  advicePanel() {
    const a = this.advice;
    if (a.round !== this.view.round) return null;
    return h("section", { class: "card advice", "aria-label": _("Bid advisor") },
      h("h2", {}, _("Bid advisor")),
      h("p", {}, h("strong", {}, _("Best bid: {bid}", { bid: a.best_bid }))),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, _("Bid")), h("th", {}, _("Makes it")), h("th", {}, _("Expected score")))),
        h("tbody", {}, a.bids.map((b) => h("tr", { class: b.bid === a.best_bid ? "best" : "" },
          h("td", {}, String(b.bid)), h("td", {}, `${Math.round(b.make_chance * 100)}%`),
          h("td", {}, (b.expected_score >= 0 ? "+" : "") + b.expected_score.toFixed(1)))))),
      h("p", { class: "hint" }, adviceBasis(a)));
  }

  roundSummary() {
    const v = this.view;
    const past = v.history[v.history.length - 1];
    if (!past || past.round <= this.summaryFor) return null;
    if (v.status === "playing" && v.tricks.length > 0) { this.summaryFor = past.round; return null; }
    const names = this.names();
    return h("section", { class: "card summary", "aria-label": _("End of round {n}", { n: past.round }) },
      h("h2", {}, _("End of round {n}", { n: past.round })),
      h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, [_("Player"), _("Bid"), _("Won"), _("Points"), _("Bonus"), _("Total")].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, names.map((n, i) => h("tr", {}, h("th", { scope: "row" }, n), h("td", {}, String(past.bids[i])),
          h("td", {}, String(past.tricks_won[i])), h("td", {}, signed(past.points[i] - past.bonus[i])),
          h("td", {}, past.bonus[i] ? signed(past.bonus[i]) : ""), h("td", {}, String(past.totals[i]))))))),
      v.status === "playing" ? h("button", { onclick: () => { this.summaryFor = past.round; this.render(this.view); } }, _("Continue")) : null);
  }

  scorePad() {
    const v = this.view;
    const names = this.names();
    return h("section", { class: "card pad", "aria-label": _("Score pad") },
      h("h2", {}, _("Score pad")),
      h("div", { class: "scroll" }, h("table", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, _("Round")), names.map((n) => h("th", { scope: "col" }, n)))),
        h("tbody", {}, v.history.map((p) => h("tr", {}, h("th", { scope: "row" }, String(p.round)),
          p.totals.map((t, i) => h("td", { title: `${_("Bid")} ${p.bids[i]} · ${_("Won")} ${p.tricks_won[i]}` }, String(t)))))))));
  }

  finalPanel() {
    const v = this.view;
    const names = this.names();
    const order = names.map((_n, i) => i).sort((a, b) => v.totals[b] - v.totals[a]);
    const top = Math.max(...v.totals);
    const winners = order.filter((i) => v.totals[i] === top);
    const verdict = winners.length === 1
      ? _("{name} wins with {total} points!", { name: names[winners[0]], total: top })
      : _("Shared victory: {names} with {total} points!", { names: winners.map((w) => names[w]).join(", "), total: top });
    const seat = this.seat;
    return h("section", { class: "card final", "aria-label": _("Final ranking") },
      h("h2", {}, _("Final ranking")),
      h("p", { class: "verdict" }, verdict),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, _("Place")), h("th", { scope: "col" }, _("Player")), h("th", { scope: "col" }, _("Total")))),
        h("tbody", {}, order.map((i) => h("tr", { class: i === v.you ? "me" : "" },
          h("td", {}, String(1 + v.totals.filter((t) => t > v.totals[i]).length)),
          h("th", { scope: "row" }, names[i]), h("td", {}, String(v.totals[i])))))),
      this.fairnessLine(),
      h("div", { class: "row" },
        seat ? h("button", { class: "primary", onclick: () => this.rematch() }, _("Rematch")) : null,
        h("a", { class: "button", href: `/api/tables/${this.id}/record`, download: `minodice-${this.id}.json` }, _("Download the record")),
        h("a", { class: "button", href: "/" }, _("Back to the lobby"))));
  }

  fairnessLine() {
    if (!this.fairness) {
      this.fairness = { pending: true };
      this.checkFairness();
    }
    const f = this.fairness;
    let text;
    if (f.pending) text = _("Checking the dice…");
    else if (f.ok) text = _("Fair dice: all {n} rolls and {deals} deals verified from the revealed seeds.", { n: f.rolls, deals: f.deals });
    else text = _("Not verified: {problem}", { problem: f.message });
    return h("p", { class: "fairness " + (f.pending ? "" : f.ok ? "ok" : "bad"), id: "fairness", role: "status" }, text);
  }

  async checkFairness() {
    try {
      const record = await api("GET", `/api/tables/${this.id}/record`);
      // what this device kept; without it (a page opened mid-game), the commitment the
      // server showed live, which a record from another game cannot match either
      const kept = { commit: this.view.commit, ...store.get(`fair.${this.id}`, {}), table: this.id };
      this.fairness = await verifyRecord(record, this.dice, kept, this.view);
    } catch (err) {
      this.fairness = { ok: false, message: err.message };
    }
    this.render(this.view);
  }

  async rematch() {
    try {
      const { seed, hash } = await newSeed();
      const answer = await api("POST", `/api/tables/${this.id}/rematch`, { token: this.seat.token, client_seed_hash: hash });
      if (answer.token) {
        store.set(`seat.${answer.table}`, { seat: answer.seat, token: answer.token });
        keepFair(answer.table, { seed, hash, seat: answer.seat, commit: answer.commit });
      }
      if (answer.host_token) store.set(`host.${answer.table}`, answer.host_token);
      this.ui.go(`/t/${answer.table}`);
    } catch (err) { this.ui.toast(err.message); }
  }

  // -- what changed, said aloud (screen readers) and shown ---------------------------------

  announce(before, v) {
    if (!before) return;
    const names = this.names();
    const lines = [];
    if (v.trick.length > (before.trick || []).length) {
      const r = v.trick[v.trick.length - 1];
      lines.push(_("{name} rolled {die}: {face}", { name: names[r.seat], die: word(r.die), face: word(r.face) }));
    }
    const done = this.lastTrick();
    const beforeDone = (before.tricks || []).length + (before.history || []).length * 100;
    const nowDone = v.tricks.length + v.history.length * 100;
    if (done && nowDone > beforeDone) lines.push(this.trickWonText(done));
    if (v.bids.every((b) => b !== null) && before.bids && before.bids.some((b) => b === null) && v.round === before.round) {
      lines.push(_("Bids revealed: {bids}", { bids: v.bids.map((b, i) => `${names[i]} ${b}`).join(", ") }));
    }
    if (lines.length) this.live.textContent = lines.join(". ");
  }

  // -- chat ---------------------------------------------------------------------------------

  chatPanel() {
    this.chatLog = h("ol", { class: "chat-log", role: "log", "aria-live": "polite", "aria-label": _("Chat") });
    const input = h("input", { id: "chat-text", maxlength: 200, autocomplete: "off", "aria-label": _("Message") });
    const form = h("form", { class: "chat-form", onsubmit: (e) => {
      e.preventDefault();
      const text = input.value;
      if (!text.trim()) return;
      if (!this.seat) { this.ui.toast(_("Spectators cannot chat.")); return; }
      this.send({ type: "chat", text });
      input.value = "";
    } }, input, h("button", { type: "submit" }, _("Send")));
    return h("details", { class: "card chat" }, h("summary", {}, _("Chat")), this.chatLog, form);
  }

  addChat(message) {
    this.chatLog.appendChild(h("li", {}, h("strong", {}, message.name), ": ", message.text));
    while (this.chatLog.children.length > 100) this.chatLog.firstChild.remove();
    this.chatLog.scrollTop = this.chatLog.scrollHeight;
  }
}

// An <option> for each of the server's bot levels (/meta.js), weakest first; `chosen`
// (if given) is selected.
export function levelOptions(chosen) {
  return LEVELS.map((b) => h("option", { value: b, selected: b === chosen }, botName(b)));
}

export function botName(level) {
  return { random: _("random bot"), easy: _("easy bot"), medium: _("medium bot"), hard: _("hard bot"),
    expert: _("expert bot") }[level] || level;
}

export function reasonText(dice, why) {
  const mermaid = dice.symbols[2];
  const face = why.face;
  switch (why.reason) {
    case "all-three": return _("all three symbols: {mermaid} wins", { mermaid: word(mermaid) });
    case "beats": return _("{winner} beats {loser}", { winner: word(face), loser: word(why.beaten) });
    case "only-symbol": return _("{symbol} beats numbers and flags", { symbol: word(face) });
    case "same-symbol": return _("several {symbol}s: the last rolled wins", { symbol: word(face) });
    case "highest": return _("{number} is highest", { number: face });
    case "tie": return _("{number} is highest; the later roll wins a tie", { number: face });
    default: return _("only flags: the leader wins");
  }
}

function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export function invite(link, ui) {
  return h("div", { class: "invite" },
    h("label", { for: "invite-link" }, _("Invite link")),
    h("div", { class: "row" },
      h("input", { id: "invite-link", readonly: true, value: link, onfocus: (e) => e.target.select() }),
      h("button", { onclick: () => shareLink(link, ui) }, _("Copy or share"))));
}

export async function shareLink(link, ui) {
  try {
    if (navigator.share) { await navigator.share({ title: "Mino Dice", url: link }); return; }
    await navigator.clipboard.writeText(link);
    ui.toast(_("Link copied: {link}", { link }));
  } catch (err) {
    ui.toast(_("Copy this link: {link}", { link }));
  }
}

export { capital };

/** What the bid advisor's figures rest on, exactly: every bid's first look, then the
 * most promising bids' second (each bid's count comes with the answer). */
export function adviceBasis(a) {
  const counts = a.bids.map((b) => b.samples);
  const first = Math.min(...counts);
  const most = Math.max(...counts);
  if (first === most) {
    return _("From {n} simulated rounds for every bid, everyone playing for their bid.", { n: first });
  }
  const bids = a.bids.filter((b) => b.samples === most).map((b) => b.bid).join(", ");
  return _("From {first} simulated rounds for every bid and {most} in all for each of the most promising ({bids}), everyone playing for their bid.", { first, most, bids });
}

/** A round's points with their sign; the bid's points and the bonus are shown apart
 * (a round's score is their sum), so that nobody adds the bonus twice. */
function signed(n) { return (n > 0 ? "+" : "") + n; }
