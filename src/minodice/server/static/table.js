// The table page (/t/ID): join or watch, then render every view the server sends, in one
// direction (view → DOM), and send only what the view offers ("legal"). The server decides
// everything; the page shows, asks, and checks the one thing it must not trust: the dice.
import { api, diceSet, errorText, keepFair, nameField, nameProblem, nameRefused, newSeed, serverNow, store, takeSeat } from "./api.js";
import { die } from "./dice.js";
import { h, isolated, nameList, replace, s as svg } from "./dom.js";
import { chanceWithMargin, countUnread, houseRulesLine, marginNote, tableSettings } from "./extras.js";
import { verifyRecord } from "./fair.js";
import { _, capital, decimal, word } from "./i18n.js";
import { addLeaveButton } from "./mine.js";
import { reducedMotion, setSignal, signalOn, turnSignal } from "./signal.js";

import { EDITIONS, LEVELS } from "/meta.js";

const TITLES = Object.fromEntries(EDITIONS.map((e) => [e.name, e.title]));
const URGENT = 10;   // seconds: the turn clock's last seconds are shown as urgent

/** How long a finished trick stays at least (ms): the person's choice on this device.
 * The same with reduced motion: only the animation goes, never the time to read. */
function readingTime() { return store.get("reading", 2000); }
const GATHER_MS = 450;    // a finished trick's dice flying to its winner, after its reading time

export async function showTable(root, tableId, ui) {
  // A seat this device holds: its socket opens at once, beside the requests for the
  // table's details and dice, so that a first view waits for one round trip, not three.
  const early = store.get(`seat.${tableId}`) ? earlySocket(tableId) : null;
  let info;
  try {
    info = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
  } catch (err) {
    if (early) early.ws.close();
    showGone(root, err.code, err.message);
    return () => {};
  }
  const page = new TablePage(root, info, ui);
  await page.begin(early);
  return () => page.leave();
}

// A padlock, drawn (an emoji font is not on every device): a bid made and kept secret.
function lock() {
  return svg("svg", { viewBox: "0 0 12 14", width: "0.75em", height: "0.9em", "aria-hidden": "true", class: "lock" },
    svg("path", { d: "M3.5 6.5V4.5a2.5 2.5 0 0 1 5 0v2", fill: "none", stroke: "currentColor", "stroke-width": 1.6 }),
    svg("rect", { x: 1, y: 6, width: 10, height: 8, rx: 1.5, fill: "currentColor" }));
}

/** A table there is nothing to play at: unknown or expired (not_found), or set aside as
 * damaged; with the way back to the lobby. */
function showGone(root, code, message) {
  const damaged = code === "damaged";
  replace(root, h("section", { class: "card" },
    h("h1", {}, damaged ? _("This table cannot be played") : _("Table not found")),
    h("p", {}, damaged ? _("Its saved game is damaged, so the server has set it aside.") : message),
    h("p", {}, h("a", { href: "/" }, _("Back to the lobby")))));
}

function socketAddress(tableId, seat) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = seat ? `?token=${encodeURIComponent(seat.token)}` : "";
  return `${scheme}//${location.host}/ws/${tableId}${query}`;
}

/** A socket opened before the page can draw: it keeps what comes until the page takes it
 * over (and asks for the dice of the edition the first view names meanwhile). */
function earlySocket(tableId) {
  const early = { ws: new WebSocket(socketAddress(tableId, store.get(`seat.${tableId}`))), messages: [], opened: false, closed: false };
  early.ws.onopen = () => { early.opened = true; };
  early.ws.onclose = () => { early.closed = true; };
  early.ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "view") diceSet(message.view.edition).catch(() => null);
    early.messages.push(message);
  };
  return early;
}

class TablePage {
  constructor(root, info, ui) {
    this.root = root;
    this.info = info;
    this.ui = ui;
    this.takeFocus = Boolean(ui.arrived);  // the first view playing puts the focus in the game
    this.id = info.table;
    this.view = null;
    this.seq = -1;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.status = "connecting";
    this.showFaces = false;
    this.showPad = false;
    this.showTricks = false;
    this.showSettings = false;
    // the round whose summary was dismissed, remembered on this device (a reload keeps it)
    this.summaryFor = store.get(`summary.${this.id}`, 0);
    this.holdUntil = 0;             // a finished trick stays on the table until then
    this.held = null;               // the newest view, waiting for that moment
    this.heldTimeouts = [];         // what the turn clock did in the views passed over meanwhile
    this.sentTurn = null;           // the decision this page answered already (a double tap)
    this.sentOn = null;             // on which connection: one that died may have lost it
    this.notice = null;             // what the turn clock did: {text, until}
    this.fairness = null;
    this.advice = null;
    this.ticker = setInterval(() => this.tick(), 500);
    this.onResize = () => this.fit();
    window.addEventListener("resize", this.onResize);
    this.sections = {
      head: h("div", { class: "table-head" }),
      main: h("div", { class: "table-main" }),
      chat: this.chatPanel(),
    };
    this.live = h("div", { class: "sr-only", "aria-live": "polite", role: "status" });
  }

  get seat() { return store.get(`seat.${this.id}`); }

  async begin(early) {
    this.dice = await diceSet(this.info.edition);
    replace(this.root, this.sections.head, this.live, this.sections.main, this.sections.chat);
    if (!this.seat && this.info.status === "waiting" && this.info.seats_free > 0) {
      this.renderJoin();
    }
    if (!early) {
      this.connect();
      return;
    }
    // the early socket's messages, then its events, are this page's now
    this.listen(early.ws);
    if (early.opened) this.setStatus("online");
    for (const message of early.messages) this.receive(message);
    if (early.closed) this.ws.onclose();
  }

  leave() {
    this.closed = true;
    clearInterval(this.ticker);
    clearTimeout(this.holdTimer);
    clearTimeout(this.tookTimer);
    window.removeEventListener("resize", this.onResize);
    turnSignal(false, false);
    if (this.ws) this.ws.close();
  }

  // -- the connection -------------------------------------------------------------------

  connect() {
    if (this.closed) return;
    this.listen(new WebSocket(socketAddress(this.id, this.seat)));
    this.setStatus(this.retry ? "reconnecting" : "connecting");
  }

  listen(ws) {
    this.ws = ws;
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

  /** Whether the message went out: a line typed while the connection is down stays in its
   * field, for its writer to send again once it is back. */
  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    this.ui.toast(_("Not connected; trying again…"));
    return false;
  }

  /** One answer per decision: a second tap on a die or a bid before the view moves on is
   * ignored here rather than refused by the server. Sent on a connection that has died
   * since, it may never have arrived: on the new one the decision can be made again (the
   * server answers `stale` if it did arrive). The choice shows at once: the view that
   * answers it may wait for a finished trick's reading time, and meanwhile the buttons
   * looked as if the tap had done nothing (a second tap, of another bid, was ignored). */
  act(action) {
    const v = this.view;
    if (!v.turn || (this.sentTurn === v.turn && this.sentOn === this.ws)) return;
    if (!this.send({ type: "act", turn: v.turn, action })) return;
    [this.sentTurn, this.sentOn] = [v.turn, this.ws];
    this.sentKey = action.startsWith("bid ") ? `bid-${action.slice(4)}` : `die-${action.slice(5)}`;
    this.markSent(this.sentKey);
  }

  /** The decision's button ``key`` as sent (the others set back), or none (refused). */
  markSent(key) {
    for (const button of this.sections.main.querySelectorAll(".bid-button, .die-button")) {
      const sent = button.dataset.key === key;
      button.classList.toggle("sent", sent);
      button.classList.toggle("not-sent", Boolean(key) && !sent);
      if (sent) button.setAttribute("aria-pressed", "true"); else button.removeAttribute("aria-pressed");
    }
  }

  setStatus(status) {
    this.status = status;
    this.renderHead();
  }

  receive(message) {
    if (message.type === "view") {
      if (message.seq <= this.seq) return;
      this.seq = message.seq;
      // A finished trick stays readable: what follows it waits until its time is up.
      const wait = this.holdUntil - Date.now();
      if ((wait > 0 || this.gathering) && message.view.status === "playing") {
        // only the newest is shown then: what the clock did in the one it replaces is kept
        const passed = this.held || this.view;
        if (passed) this.heldTimeouts.push(...this.timeouts(passed, message.view, this.rolledSince(passed, message.view)));
        this.held = message.view;
        clearTimeout(this.holdTimer);
        if (!this.gathering) this.holdTimer = setTimeout(() => this.release(), wait);
        return;
      }
      clearTimeout(this.holdTimer);
      this.held = null;
      this.show(message.view);
    } else if (message.type === "chat") {
      this.addChat(message);
    } else if (message.type === "error") {
      if (message.code === "forbidden" && this.seat && !this.view) {
        store.remove(`seat.${this.id}`);   // a token from elsewhere: watch instead
        this.ws.close();
        return;
      }
      if (message.code === "not_found" || message.code === "damaged") {
        // The table is gone (it expired while watched, or was set aside): connecting
        // again would only hear the same, every few seconds for ever.
        this.leave();
        showGone(this.root, message.code, errorText(message.code));
        return;
      }
      if (message.code === "stale") return;  // that decision was answered already
      this.sentTurn = null;                    // refused or not saved: it may be tried again
      this.markSent(null);
      this.ui.toast(errorText(message.code));
    }
  }

  /** The finished trick's time is up: its dice go to the winner's seat, then the newest
   * view (whatever came meanwhile) is shown. */
  async release() {
    if (this.gathering || !this.held) return;
    this.gathering = true;
    try { await this.gather(); } finally { this.gathering = false; }
    const v = this.held;
    this.held = null;
    if (v && !this.closed) this.show(v);
  }

  /** The finished trick's dice fly to the seat that took it (at once, without a motion,
   * under prefers-reduced-motion: the trick has had its reading time either way). */
  gather() {
    const to = this.sections.main.querySelector(".seat.took");
    const rolls = [...this.sections.main.querySelectorAll(".trick .roll")];
    if (!to || !rolls.length || reducedMotion()) return Promise.resolve();
    const seat = to.getBoundingClientRect();
    const x = seat.left + seat.width / 2, y = seat.top + seat.height / 2;
    this.sections.main.querySelector(".trick .rolls").classList.add("gathering");
    return Promise.all(rolls.map((el, i) => {
      const r = el.getBoundingClientRect();
      const to = `translate(${Math.round(x - r.left - r.width / 2)}px, ${Math.round(y - r.top - r.height / 2)}px) scale(.35)`;
      return el.animate([{ transform: "none", opacity: 1 }, { transform: to, opacity: 0.15 }],
        { duration: GATHER_MS, delay: 40 * i, easing: "ease-in", fill: "forwards" }).finished.catch(() => null);
    }));
  }

  show(v) {
    const before = this.view;
    this.view = v;
    this.keepFairness(v);
    const finished = this.announce(before, v);
    if (finished && v.status === "playing") this.holdUntil = Date.now() + readingTime();
    // the trick goes to its winner: their seat lights up while the trick is shown, until
    // the next trick's first roll; a round's last trick, until its reading time is over
    // (the seat stayed lit through the next round's bidding, like a mark of its own)
    this.took = finished ? this.lastTrick(v).winner
      : (v.trick.length || v.phase === "bid" ? null : this.took);
    clearTimeout(this.tookTimer);
    if (finished && v.phase === "bid") {
      this.tookTimer = setTimeout(() => {
        if (this.closed || this.took === null || this.held || this.gathering) return;
        this.took = null;
        this.render(this.view);
      }, readingTime() + GATHER_MS + 100);
    }
    const yours = Boolean(v.turn) && v.status === "playing";
    turnSignal(yours, yours && (!before || before.turn !== v.turn));
    this.render(before);
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
    this.chatForm.hidden = !this.seat;
    this.chatNote.hidden = Boolean(this.seat);
    if (v.status === "waiting") {
      // One join form for the page: a view that arrives while a person types their name
      // (someone joins or leaves) must not wipe the name or take the focus away.
      const form = this.seat ? null : (this.join ||= this.joinForm());
      const focused = form && form.contains(document.activeElement) ? document.activeElement : null;
      replace(main, form, this.waitingPanel());
      if (focused) focused.focus();
      return;
    }
    // The page is drawn anew from each view; the focus stays on the same control (or,
    // if that control is gone, goes to the prompt), never to <body>.
    const active = document.activeElement;
    let key = active && main.contains(active) ? active.dataset.key || "prompt" : null;
    // moved here within the app (a table made, a link followed): the keyboard starts at the
    // prompt, unless it has gone somewhere meanwhile
    if (this.takeFocus && (!active || active === document.body)) key = "prompt";
    this.takeFocus = false;
    const parts = [];
    if (v.status === "finished") {
      parts.push(this.finalPanel());
      // the header's Leave speaks of a seat kept and a bot playing for it: over once the
      // game is (the final panel leads back to the lobby)
      document.getElementById("leave")?.remove();
    }
    parts.push(this.playArea(before));
    if (this.advice && v.phase === "bid") parts.push(this.advicePanel());
    parts.push(this.toolbar());
    if (this.showSettings) parts.push(this.settingsPanel());
    if (this.showTricks) parts.push(this.roundTricks());
    if (this.showPad || v.status === "finished") parts.push(this.scorePad());
    replace(main, ...parts);
    // (a control drawn disabled now, as a die rolled while others roll, cannot hold it)
    const same = key ? main.querySelector(`[data-key="${key}"]`) : null;
    const to = same && !same.disabled ? same : key ? main.querySelector("#prompt") : null;
    if (to) to.focus({ preventScroll: true });
    // drawn again before its answer came (a tool opened, the dice checked): still marked
    if (v.turn && this.sentTurn === v.turn && this.sentOn === this.ws) this.markSent(this.sentKey);
    this.fit();
  }

  /** The table fills the screen below the page's head, so that the seats above and the
   * controls below never leave it; the middle (the trick, a round's summary) gives way. */
  fit() {
    const play = this.sections.main.querySelector(".play");
    if (!play) return;
    play.style.setProperty("--top", `${Math.round(play.getBoundingClientRect().top + window.scrollY)}px`);
    // Where a seat is too narrow for "Total 40" (six seats on a phone) every seat shows the
    // number alone: one seat's "Total 10" beside another's "-10" read as two kinds of
    // figure. The word is still read out, and the seat's tooltip says it.
    const labels = [...play.querySelectorAll(".seat .stats .total-word")];
    for (const label of labels) label.classList.remove("sr-only");
    const tight = labels.some((label) => {
      const stats = label.closest(".stats");
      return stats.scrollWidth > stats.clientWidth + 1;
    });
    if (tight) for (const label of labels) label.classList.add("sr-only");
  }

  renderJoin() {
    replace(this.sections.main, this.join ||= this.joinForm());
  }

  joinForm() {
    const input = nameField(h("input", { id: "join-name", name: "name", required: true,
      autocomplete: "nickname", value: store.get("name", "") }));
    const form = h("form", { class: "card join", onsubmit: async (e) => {
      e.preventDefault();
      const problem = nameProblem(input.value.trim());
      if (problem) { this.ui.toast(problem); return; }
      try {
        const asked = input.value.trim();
        const seat = await takeSeat(this.id, asked, {}, (this.view || this.info).commit);
        // a name taken at the table gets a number: said, not found out from the seats
        if (seat.name && seat.name !== asked) this.ui.toast(_("{name} is taken at this table: you play as {seated}.", { name: asked, seated: seat.name }));
        addLeaveButton(this.id, this.ui);
        if (this.ws) this.ws.close();
        this.ws = null;
        this.seq = -1;
        this.view = null;
        this.connect();
      } catch (err) {
        this.ui.toast(err.code === "conflict" ? _("No seat is free any more; you can still watch.")
          : err.code === "bad_request" ? nameRefused() : err.message);
      }
    } },
    h("h2", {}, _("Join this table")),
    tableSettings(this.info, botName),
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
      houseRulesLine(v.rule_options),
      h("ul", { class: "seats" }, v.players.map((p, i) => h("li", {},
        p.name ? h("span", { class: "name", dir: "auto", title: names[i] }, names[i]) : h("em", {}, _("free seat")),
        p.bot ? h("span", { class: "tag" }, botName(p.bot)) : null,
        i === (this.seat && this.seat.seat) ? h("span", { class: "tag you" }, _("you")) : null))),
      invite(link, this.ui),
      host ? h("div", { class: "row host" }, h("label", { for: "fill-level" }, _("Fill empty seats with")), level,
        h("button", { class: "primary", onclick: async () => {
          try { await api("POST", `/api/tables/${this.id}/start`, { host_token: host, fill: level.value }); }
          catch (err) { this.ui.toast(err.message); }
        } }, _("Start now"))) : null);
  }

  /** The table: the other seats across the top (clockwise from yours), the prompt, the
   * middle where dice are rolled, your seat, your dice and your bid at the bottom. */
  playArea(before) {
    const v = this.view;
    const ring = this.ring();
    const seats = h("ol", { class: "players ring", "aria-label": _("Players") }, ring.map((i) => h("li", {}, this.seatChip(i))));
    seats.style.setProperty("--seats", ring.length);
    return h("section", { class: "play", "aria-label": _("Table") },
      v.you === null ? h("p", { class: "watching" }, _("You are watching: spectators see the table, never a hand.")) : null,
      seats,
      this.promptLine(),
      this.noticeLine(),
      h("div", { class: "felt" }, this.trickPanel(before), this.roundSummary()),
      // your seat, dice and bids (beside the table on a phone held sideways)
      h("div", { class: "controls" },
        v.you !== null ? h("div", { class: "players mine" }, this.seatChip(v.you)) : null,
        v.you !== null && v.status === "playing" ? this.handPanel() : null,
        v.phase === "bid" && v.turn ? this.bidPanel() : null));
  }

  /** The other seats as they sit across the top, clockwise from yours (every seat, in
   * order, for a spectator). */
  ring() {
    const v = this.view;
    const n = v.players.length;
    const ring = [];
    for (let k = 1; k <= n; k++) {
      const i = ((v.you ?? -1) + k) % n;
      if (i !== v.you) ring.push(i);
    }
    return ring;
  }

  seatChip(i) {
    const v = this.view;
    const p = v.players[i];
    const name = this.names()[i];
    const acting = v.status === "playing" && v.to_act.includes(i);
    const away = Boolean(p.autoplay) || (!p.bot && !p.connected);
    const notes = [];
    if (p.bot) notes.push(botName(p.bot));
    if (p.autoplay) notes.push(_("away: a bot plays"));
    else if (!p.bot && !p.connected) notes.push(_("offline"));
    if (i === v.you) notes.push(_("you"));
    return h("div", { class: "seat" + (acting ? " acting" : "") + (i === v.you ? " me" : "") + (away ? " away" : "") + (i === this.took ? " took" : ""), "data-seat": i },
      // a tap shows the whole name (kept across views until tapped again)
      h("div", { class: "name" + (this.expanded === i ? " full" : ""), dir: "auto", title: name,
        onclick: () => { this.expanded = this.expanded === i ? null : i; this.render(this.view); } },
        i === v.starter ? h("span", { class: "starter", title: _("start player") }, "◆ ", h("span", { class: "sr-only" }, _("start player") + ": ")) : null,
        name, acting ? h("span", { class: "sr-only" }, " · " + _("to act")) : null),
      h("div", { class: "stats" },
        // bid/won, as the score pad, the paper pad and the replay write it (won/bid here
        // read a made 0 of 4 as "4/0" beside the pad's "0/4")
        this.bidChip(i),
        // the word, not "Σ": fit() leaves the number alone where the seat is too narrow
        h("span", { class: "total", title: _("Total") }, h("span", { class: "total-word" }, _("Total")), " ", String(v.totals[i]))),
      notes.length ? h("div", { class: "notes", title: notes.join(", ") }, notes.join(" · ")) : null);
  }

  /** A seat's bid and tricks won ("2/1"); while the bids are secret (nothing won yet), a
   * lock for a bid made ("✓/0" read oddly) or "?" for one to come, each said in words. */
  bidChip(i) {
    const v = this.view;
    if (v.bids[i] !== null) {
      return h("span", { class: "won", title: `${_("Bid")} / ${_("Won")}` },
        h("span", { class: "sr-only" }, `${_("Bid")} ${v.bids[i]} · ${_("Won")} `),
        h("span", { "aria-hidden": "true" }, `${v.bids[i]}/`), String(v.tricks_won[i]));
    }
    const said = v.has_bid[i] ? _("Bid made, secret until everyone has bid") : _("No bid yet");
    return h("span", { class: "won" }, h("span", { class: v.has_bid[i] ? "secret" : "unbid", title: said },
      v.has_bid[i] ? lock() : h("span", { "aria-hidden": "true" }, "?"), h("span", { class: "sr-only" }, said)));
  }

  promptLine() {
    const v = this.view;
    const names = this.names();
    let text;
    if (v.status === "finished") text = _("The game is over.");
    else if (v.turn && v.phase === "bid") text = _("Your bid: 0 to {n}. Secret until all have bid.", { n: v.round });
    else if (v.turn) text = _("Your turn: choose a die to roll.");
    else if (v.phase === "bid") text = _("Waiting for bids: {names}", { names: nameList(v.to_act.map((s) => names[s])) });
    else text = _("Waiting for {name}…", { name: nameList(v.to_act.map((s) => names[s])) });
    return h("p", { class: "prompt" + (v.turn ? " yours" : ""), id: "prompt", tabindex: "-1" }, text,
      h("span", { class: "deadline", id: "deadline" }, this.deadlineText()));
  }

  deadlineText() {
    const v = this.view;
    if (!v || !v.deadline || v.status !== "playing") return "";
    return " · " + _("{s} s left", { s: this.secondsLeft() });
  }

  // the server's clock, not this device's: a phone's clock may be seconds or minutes off
  secondsLeft() { return Math.max(0, Math.ceil((this.view.deadline - serverNow()) / 1000)); }

  tick() {
    const el = this.root.querySelector("#deadline");
    if (el) {
      el.textContent = this.deadlineText();
      el.classList.toggle("urgent", Boolean(this.view && this.view.deadline) && this.secondsLeft() <= URGENT);
    }
    if (this.notice && Date.now() > this.notice.until) {
      this.notice = null;
      const line = this.root.querySelector("#notice");
      if (line) line.remove();
    }
  }

  noticeLine() {
    if (!this.notice) return null;
    return h("p", { class: "notice", id: "notice" }, "⏱ " + this.notice.text);
  }

  lastTrick(v = this.view) {
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
    // each die lies on the felt toward its thrower: the others' below their seats across
    // the top (one column a seat), yours in the row nearest you
    const ring = this.ring();
    const items = rolls.map((r, i) => {
      const rolling = v.trick.length && i >= seen && !reducedMotion();
      const winner = !v.trick.length && done && r.seat === done.winner;
      const leading = v.trick.length > 1 && r.seat === v.leading;
      // a die flies in from its thrower's side: yours from below, the others' from above
      const from = r.seat === v.you ? " from-me" : "";
      const what = `${word(r.die)} → ${word(r.face)}`;
      const li = h("li", { class: "roll" + (rolling ? " rolling" + from : "") + (winner ? " winner" : "") + (leading ? " leading" : "") + (r.seat === v.you ? " mine" : ""), "data-seat": r.seat },
        die(this.dice, this.kind(r.die), r.face, { size: 44 }),
        h("span", { class: "who", title: names[r.seat] }, winner || leading ? h("span", { "aria-hidden": "true" }, "★ ") : null, names[r.seat]),
        leading ? h("span", { class: "sr-only" }, " (" + _("winning so far") + ")") : null,
        h("span", { class: "what", title: what }, what));
      if (r.seat !== v.you) li.style.gridColumn = String(ring.indexOf(r.seat) + 1);
      return li;
    });
    const list = h("ul", { class: "rolls around" }, items);
    list.style.setProperty("--seats", ring.length);
    let caption;
    if (v.trick.length) caption = follow ? _("Follow: {colour}", { colour: word(this.kind(follow).colour) }) : _("No colour yet");
    else if (done) caption = this.trickWonText(done);
    else caption = _("No trick yet this round");
    return h("section", { class: "trick", "aria-label": _("Trick") },
      h("h2", {}, v.trick.length ? _("Trick {n}/{total}", { n: v.tricks.length + 1, total: v.round }) : _("Trick")),
      h("p", { class: "caption" }, caption),
      list);
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
          "data-key": `die-${k.name}`,
          "aria-label": choosing ? (allowed ? _("Roll {die}", { die: label }) : `${label}: ${this.whyBlocked()}`) : label,
          onclick: () => this.act(`roll ${k.name}`) },
        die(this.dice, k, null, { size: 44, label: false }),
        h("span", { class: "label" }, label, allowed ? "" : " ✗")),
        this.showFaces ? h("div", { class: "faces", "aria-label": _("Faces of {die}", { die: word(k.name) }) },
          k.faces.map((f) => die(this.dice, k, f, { size: 22 }))) : null);
    });
    return h("section", { class: "hand", "aria-label": _("Your dice") },
      h("h2", { class: "sr-only" }, _("Your dice")),
      kinds.length ? h("ul", { class: "dice" }, buttons) : h("p", { class: "hint" }, _("(none left this round)")),
      blocked ? h("p", { class: "why" }, "✗ " + this.whyBlocked()) : null);
  }

  whyBlocked() {
    const v = this.view;
    return _("You must follow {colour} or roll a special die.", { colour: word(this.kind(v.follow).colour) });
  }

  bidPanel() {
    const v = this.view;
    const bids = v.legal.filter((a) => a.startsWith("bid ")).map((a) => Number(a.slice(4)));
    return h("section", { class: "bid", "aria-label": _("Your bid") },
      h("h2", { class: "sr-only" }, _("Your bid")),
      h("div", { class: "bids", role: "group", "aria-label": _("Your bid") }, bids.map((b) =>
        h("button", { class: "bid-button", "data-key": `bid-${b}`, onclick: () => this.act(`bid ${b}`) }, String(b)))));
  }

  toolbar() {
    const v = this.view;
    const toggle = (label, key, on) => h("button", { "aria-pressed": String(on), "data-key": key,
      onclick: () => { this[key] = !this[key]; this.render(this.view); } }, label);
    const buttons = [
      toggle(_("Faces"), "showFaces", this.showFaces),
      toggle(_("Score pad"), "showPad", this.showPad),
      toggle(_("Tricks of this round"), "showTricks", this.showTricks),
      toggle(_("Sound and vibration"), "showSettings", this.showSettings),
      h("a", { class: "button", href: "/about#rules", target: "_blank" }, _("Rules")),
    ];
    if (v.advisor && v.you !== null && v.phase === "bid" && v.status === "playing") {
      buttons.push(h("button", { "data-key": "advice", onclick: () => this.askAdvice() }, _("Bid advice")));
    }
    // a finished game is shared by its replay, which anyone can step through (the
    // table's link would only show its results); a running one invites to the table
    if (v.status === "finished") {
      buttons.push(h("button", { "data-key": "share-replay", onclick: () => shareLink(`${location.origin}/replay/${this.id}`, this.ui) }, _("Share the replay")));
    } else if (v.you !== null) {
      buttons.push(h("button", { "data-key": "invite", onclick: () => shareLink(`${location.origin}/t/${this.id}`, this.ui) }, _("Invite")));
    }
    return h("nav", { class: "toolbar", "aria-label": _("Table tools") }, buttons);
  }

  settingsPanel() {
    const box = (name, label) => h("div", { class: "check" },
      h("input", { type: "checkbox", id: `signal-${name}`, checked: signalOn(name), "data-key": `signal-${name}`,
        onchange: (e) => setSignal(name, e.target.checked) }),
      h("label", { for: `signal-${name}` }, label));
    const reading = h("select", { id: "reading-time", "data-key": "reading-time", onchange: (e) => store.set("reading", Number(e.target.value)) },
      [1500, 2000, 3000, 5000].map((ms) => h("option", { value: ms, selected: ms === readingTime() }, _("{s} s", { s: decimal(ms / 1000, 1, false, 0) }))));
    return h("section", { class: "card settings", "aria-label": _("Sound and vibration") },
      h("h2", {}, _("Sound and vibration")),
      box("sound", _("A sound when it is your turn")),
      box("vibrate", _("Vibrate when it is your turn")),
      h("label", { for: "reading-time" }, _("A finished trick stays at least")), reading);
  }

  roundTricks() {
    const v = this.view;
    const names = this.names();
    const tricks = v.tricks.length || v.trick.length || !v.history.length ? v.tricks : v.history[v.history.length - 1].tricks;
    return h("section", { class: "card tricks", "aria-label": _("Tricks of this round") },
      h("h2", {}, _("Tricks of this round")),
      tricks.length ? h("ol", {}, tricks.map((t) => h("li", {},
        h("p", {}, this.trickWonText(t)),
        h("ul", { class: "rolls small" }, t.rolls.map((r) => h("li", { class: "roll" + (r.seat === t.winner ? " winner" : "") },
          die(this.dice, this.kind(r.die), r.face, { size: 30 }), h("span", { class: "who", title: names[r.seat] }, names[r.seat]))))))) :
        h("p", { class: "hint" }, _("No trick yet this round")));
  }

  async askAdvice() {
    const v = this.view;
    try {
      this.advice = await api("POST", "/api/advise", { players: v.players.length, round: v.round,
        seat: (v.you - v.starter + v.players.length) % v.players.length, hand: v.hand,
        edition: v.edition, variant: v.variant,
        special_lead: v.rule_options ? v.rule_options.special_lead : "first-number" });
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
          h("td", {}, String(b.bid)), h("td", {}, chanceWithMargin(b.make_chance, b.samples)),
          h("td", {}, decimal(b.expected_score, 1, true)))))),
      h("p", { class: "hint" }, adviceBasis(a), " ", marginNote()));
  }

  /** The last round's result, over the middle of the table (never pushing the seats or the
   * controls away); gone once dismissed (remembered) or once this round's first trick is. */
  roundSummary() {
    const v = this.view;
    const past = v.history[v.history.length - 1];
    if (!past || past.round <= this.summaryFor) return null;
    // gone at the round's first roll: the trick it would cover is being played
    if (v.status === "playing" && (v.tricks.length > 0 || v.trick.length > 0)) return null;
    const names = this.names();
    const dismiss = () => {
      this.summaryFor = past.round;
      store.set(`summary.${this.id}`, past.round);
      this.render(this.view);
    };
    const bonus = past.bonus.some((b) => b);  // the column only when someone earned one
    const heads = [_("Player"), _("Bid"), _("Won"), _("Points"), bonus ? _("Bonus") : null, _("Total")].filter(Boolean);
    // each figure with its heading (data-label): with large text on a phone a player's
    // figures lie in a row under their name, each after its heading (style.css); the
    // roles keep the table a table for a screen reader then
    const cell = (label, text) => h("td", { role: "cell", "data-label": label }, text);
    return h("section", { class: "summary", "aria-label": _("End of round {n}", { n: past.round }) },
      h("div", { class: "summary-head" }, h("h2", {}, _("End of round {n}", { n: past.round })),
        // a spectator closes it too (it goes by itself at the round's first roll)
        v.status === "playing" ? h("button", { class: "primary", "data-key": "continue", onclick: dismiss },
          v.you !== null ? _("Continue") : _("Close")) : null),
      h("table", { role: "table" }, h("thead", { role: "rowgroup" }, h("tr", { role: "row" }, heads.map((t) => h("th", { scope: "col", role: "columnheader", title: t }, t)))),
        h("tbody", { role: "rowgroup" }, names.map((n, i) => h("tr", { role: "row" }, h("th", { scope: "row", role: "rowheader" }, h("span", { class: "name", dir: "auto", title: n }, n)),
          cell(_("Bid"), String(past.bids[i])), cell(_("Won"), String(past.tricks_won[i])),
          cell(_("Points"), signed(past.points[i] - past.bonus[i])),
          bonus ? cell(_("Bonus"), past.bonus[i] ? signed(past.bonus[i]) : "") : null,
          cell(_("Total"), String(past.totals[i])))))));
  }

  scorePad() {
    const v = this.view;
    const names = this.names();
    return h("section", { class: "card pad", "aria-label": _("Score pad") },
      h("h2", {}, _("Score pad")),
      h("p", { class: "hint" }, `${_("Bid")}/${_("Won")} · ${_("Total")}`),
      houseRulesLine(v.rule_options),
      h("div", { class: "scroll" }, h("table", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, _("Round")), names.map((n) => h("th", { scope: "col" }, h("span", { class: "name", dir: "auto", title: n }, n))))),
        h("tbody", {}, v.history.map((p) => h("tr", {}, h("th", { scope: "row" }, String(p.round)),
          p.totals.map((t, i) => h("td", {}, h("span", { class: "bw" }, `${p.bids[i]}/${p.tricks_won[i]}`), " ", h("strong", {}, String(t))))))))));
  }

  finalPanel() {
    const v = this.view;
    const names = this.names();
    const order = names.map((_n, i) => i).sort((a, b) => v.totals[b] - v.totals[a]);
    const top = Math.max(...v.totals);
    const winners = order.filter((i) => v.totals[i] === top);
    const verdict = winners.length === 1
      ? _("{name} wins with {total} points!", { name: names[winners[0]], total: top })
      : _("Shared victory: {names} with {total} points!", { names: nameList(winners.map((w) => names[w])), total: top });
    const seat = this.seat;
    return h("section", { class: "card final", "aria-label": _("Final ranking") },
      h("h2", {}, _("Final ranking")),
      h("p", { class: "verdict" }, verdict),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, _("Place")), h("th", { scope: "col" }, _("Player")), h("th", { scope: "col" }, _("Total")))),
        h("tbody", {}, order.map((i) => h("tr", { class: i === v.you ? "me" : "" },
          h("td", {}, String(1 + v.totals.filter((t) => t > v.totals[i]).length)),
          h("th", { scope: "row" }, h("span", { class: "name", dir: "auto", title: names[i] }, names[i])), h("td", {}, String(v.totals[i])))))),
      this.fairnessLine(),
      // someone asked for a rematch: everyone here is told (it was seen only by who asked)
      v.rematch ? h("p", { class: "rematch", role: "status" }, _("A rematch is waiting at a new table.")) : null,
      h("div", { class: "row" },
        seat ? h("button", { class: "primary", "data-key": "rematch", onclick: () => this.rematch() }, v.rematch ? _("Join the rematch") : _("Rematch"))
          : v.rematch ? h("a", { class: "button primary", href: `/t/${v.rematch}`, id: "watch-rematch" }, _("Watch the rematch")) : null,
        h("a", { class: "button", href: `/replay/${this.id}`, id: "replay-link" }, _("Replay")),
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

  /** Tell what happened since `before`; true if a trick was finished. */
  announce(before, v) {
    if (!before) return false;
    const names = this.names();
    const lines = [];
    const done = this.lastTrick(v);
    const finished = this.finishedSince(before, v);
    const rolled = this.rolledSince(before, v);
    const sameTrick = finished || (v.tricks.length === (before.tricks || []).length && v.round === before.round);
    for (const r of rolled.slice(sameTrick ? (before.trick || []).length : 0)) {
      lines.push(_("{name} rolled {die}: {face}", { name: names[r.seat], die: word(r.die), face: word(r.face) }));
    }
    if (finished) lines.push(this.trickWonText(done));
    if (v.bids.every((b) => b !== null) && before.bids && before.bids.some((b) => b === null) && v.round === before.round) {
      lines.push(_("Bids revealed: {bids}", { bids: v.bids.map((b, i) => `${isolated(names[i])} ${b}`).join(", ") }));
    }
    const timeouts = [...new Set([...this.heldTimeouts, ...this.timeouts(before, v, rolled)])];
    this.heldTimeouts = [];
    if (timeouts.length) {
      this.notice = { text: timeouts.join(" "), until: Date.now() + 10000 };
      lines.unshift(...timeouts);
    }
    if (lines.length) this.live.textContent = lines.join(". ");
    return finished;
  }

  /** Whether a trick was finished between views ``before`` and ``v``. */
  finishedSince(before, v) {
    return Boolean(this.lastTrick(v)) && v.tricks.length + v.history.length * 100 >
      (before.tricks || []).length + (before.history || []).length * 100;
  }

  /** The rolls ``v`` shows of its trick, or of the trick finished since ``before``. */
  rolledSince(before, v) {
    return v.trick.length ? v.trick : (this.finishedSince(before, v) ? this.lastTrick(v).rolls : []);
  }

  /** The turn clock ran out for whom, and what the stand-in did for them (a bid stays
   * secret until all are in). The view does not say it: the page sees a person's decision
   * arrive after that decision's deadline without this page having sent it. */
  timeouts(before, v, rolled) {
    if (!before.deadline || before.status !== "playing" || serverNow() < before.deadline - 250) return [];
    const names = this.names();
    const out = [];
    for (const s of before.to_act) {
      const p = v.players[s];
      if (p.bot || p.autoplay || (s === v.you && this.sentTurn === before.turn)) continue;
      if (before.phase === "bid" && v.round === before.round && v.has_bid[s]) {
        out.push(s === v.you
          ? _("Your time ran out: a bid of {n} was made for you.", { n: v.bids[s] })
          : _("{name}'s time ran out: a bid was made for them.", { name: names[s] }));
      } else if (before.phase === "play") {
        const r = rolled.find((x) => x.seat === s && !(before.trick || []).some((y) => y.seat === s));
        if (r) out.push(s === v.you
          ? _("Your time ran out: {die} was rolled for you.", { die: word(r.die) })
          : _("{name}'s time ran out: {die} was rolled for them.", { name: names[s], die: word(r.die) }));
      }
    }
    return out;
  }

  // -- chat ---------------------------------------------------------------------------------

  chatPanel() {
    this.chatLog = h("ol", { class: "chat-log", role: "log", "aria-live": "polite", "aria-label": _("Chat") });
    const input = h("input", { id: "chat-text", maxlength: 200, autocomplete: "off", "aria-label": _("Message") });
    this.chatForm = h("form", { class: "chat-form", onsubmit: (e) => {
      e.preventDefault();
      const text = input.value;
      if (!text.trim()) return;
      // on its way on this connection already: a second Enter would say it twice
      if (this.pendingChat && this.pendingChat.text === text && this.pendingChat.ws === this.ws) return;
      if (this.send({ type: "chat", text })) this.pendingChat = { text, ws: this.ws };
    } }, input, h("button", { type: "submit" }, _("Send")));
    this.chatInput = input;
    this.chatNote = h("p", { class: "hint" }, _("Spectators cannot chat."));
    this.chatForm.hidden = !this.seat;
    this.chatNote.hidden = Boolean(this.seat);
    const chat = h("details", { class: "card chat" }, h("summary", {}, _("Chat")), this.chatLog, this.chatForm, this.chatNote);
    this.unread = countUnread(chat, `chat.${this.id}`);
    return chat;
  }

  /** A line leaves its field only once the server has relayed it back: a connection that
   * died unnoticed takes what is sent into it with it, and the line would be lost. Until
   * then it stays, to be sent again once the connection is back (a reconnect shows the
   * lines kept, so one that did arrive clears its field then). */
  addChat(message) {
    if (!this.unread(message)) return;   // sent again on a reconnect: shown already
    const pending = this.pendingChat;
    if (pending && this.seat && message.seat === this.seat.seat && message.text === pending.text) {
      if (this.chatInput.value === pending.text) this.chatInput.value = "";
      this.pendingChat = null;
    }
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
