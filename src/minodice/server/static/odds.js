// Odds for the dice behind your screen (/odds), for the physical game: before bidding, each
// bid's chance and expected score (the server's bid advisor, the `hard` bot's model); during
// a trick, each of your dice's chance to take it. The model is stated under every answer.
import { api, diceSet, errorText, store } from "./api.js";
import { die } from "./dice.js";
import { h, keepFocus, replace, say } from "./dom.js";
import { chanceWithMargin, marginNote, specialLeadText } from "./extras.js";
import { _, decimal, lang, word } from "./i18n.js";
import { EDITIONS, ROUNDS } from "/meta.js";

// The dice a person chose, as kept (``saved``, from this device's storage, so checked): only
// kinds of this set, as many as it has, eight at most; rolls of its faces, fewer than the
// players; bids of the other seats.
function keepDice(state, saved, dice) {
  const kinds = new Map(dice.kinds.map((k) => [k.name, k]));
  const count = (n) => (Number.isInteger(n) && n > 0 ? n : 0);
  let held = 0;
  for (const [name, n] of Object.entries(saved.hand && typeof saved.hand === "object" ? saved.hand : {})) {
    const k = kinds.get(name);
    const take = k ? Math.min(count(n), k.count, 8 - held) : 0;
    if (take > 0) { state.hand[name] = take; held += take; }
  }
  state.rolled = (Array.isArray(saved.rolled) ? saved.rolled : []).filter((r) => r && kinds.has(r.die)
    && kinds.get(r.die).faces.some((f) => f === r.face)).slice(0, state.players - 1)
    .map((r) => ({ die: r.die, face: r.face }));
  for (const [p, bid] of Object.entries(saved.announced && typeof saved.announced === "object" ? saved.announced : {})) {
    const seat = Number(p);
    if (Number.isInteger(seat) && seat >= 0 && seat < state.players && seat !== state.position
      && Number.isInteger(bid) && bid >= 0 && bid <= Math.max(held, 1)) state.announced[seat] = bid;
  }
}

export async function showOdds(root, ui) {
  // kept on this device, so read with care: anything not as this page writes it is left out
  const stored = store.get("odds", {});
  const saved = stored && typeof stored === "object" ? stored : {};
  const players = Number.isInteger(saved.players) && Object.hasOwn(ROUNDS, saved.players) ? saved.players : 4;
  const state = {
    mode: saved.mode === "trick" ? "trick" : "bid",
    edition: EDITIONS.some((e) => e.name === saved.edition) ? saved.edition : "mino", players,
    variant: saved.variant === "simplified" ? "simplified" : "standard",
    // R9's open point, as the table at home plays it (RULES.md's default unless told)
    specialLead: saved.specialLead === "no-colour" ? "no-colour" : "first-number",
    position: Number.isInteger(saved.position) && saved.position >= 0 && saved.position < players ? saved.position : 0,
    hand: {}, rolled: [], announced: {}, answer: null, busy: false,
  };
  let dice;
  try {
    dice = await diceSet(state.edition);
  } catch (err) {
    // the page works with the server only (every answer is computed there): say so, with a
    // way to try again, never a "Loading…" for ever
    replace(root, h("section", { class: "card" }, h("h1", {}, _("Odds for your dice")),
      h("p", { class: "error", role: "alert" }, err.message),
      h("button", { type: "button", class: "primary", onclick: () => showOdds(root, ui) }, _("Try again"))));
    return;
  }

  keepDice(state, saved, dice);
  // the dice chosen are kept too: a reload, Back or another language shows them again
  const remember = () => store.set("odds", { mode: state.mode, edition: state.edition, players: state.players,
    position: state.position, variant: state.variant, specialLead: state.specialLead,
    hand: state.hand, rolled: state.rolled, announced: state.announced });
  const size = () => Object.values(state.hand).reduce((a, b) => a + b, 0);
  // During a trick the dice rolled are in sight too: a kind's dice held and rolled are at
  // most the set's (one minotaur: held, it cannot be rolled as well)
  const rolledOf = (name) => (state.mode === "trick" ? state.rolled.filter((r) => r.die === name).length : 0);
  const left = (k) => k.count - (state.hand[k.name] || 0) - rolledOf(k.name);
  const noMore = (k) => (k.count === 1 ? _("The set has only one {kind} die.", { kind: word(k.name) })
    : _("The set has only {n} {kind} dice.", { n: k.count, kind: word(k.name) }));
  // A limit reached: the button stays in the keyboard's way (a disabled one drops the
  // focus) but says it can do nothing now, and why.
  const limit = (why) => (why ? { "aria-disabled": "true", title: why } : {});
  let kindChosen = null;  // the kind of die last chosen to add to the trick

  // The server's reason for a refusal is English: the known ones in the reader's words.
  function refusal(err) {
    const reason = String(err.detail || "");
    let m = /^the \S+ set has only (\d+) (\S+) di(?:e|ce)$/.exec(reason);
    if (m) {
      const k = dice.kinds.find((x) => x.name === m[2]);
      return k ? noMore(k) : errorText(err.code);
    }
    m = /^(\d+) dice rolled already: a trick of (\d+) players is over$/.exec(reason);
    if (m) return _("A trick of {p} players has {n} dice rolled before yours at most.", { p: Number(m[2]), n: Number(m[2]) - 1 });
    if (/^not enough dice left in the bag/.test(reason)) return _("Not enough dice are left in the bag for the other players' hands: fewer dice, or fewer players.");
    // another reason: said in English only on an English page
    return err.code === "bad_request" && reason && lang === "en" ? `${err.message} ${reason}` : err.message;
  }

  async function ask() {
    const hand = dice.kinds.flatMap((k) => Array(state.hand[k.name] || 0).fill(k.name));
    if (!hand.length) { ui.toast(_("Tap the dice behind your screen first.")); return; }
    state.busy = true;
    draw();
    try {
      if (state.mode === "bid") {
        const announced = Array.from({ length: state.players }, (_x, p) => (p in state.announced ? state.announced[p] : null));
        state.answer = { mode: "bid", data: await api("POST", "/api/advise", { players: state.players, round: hand.length,
          seat: state.position, hand, edition: state.edition, variant: state.variant,
          announced: announced.some((b) => b !== null) ? announced : null, special_lead: state.specialLead }) };
      } else {
        state.answer = { mode: "trick", data: await api("POST", "/api/odds/trick", { players: state.players, hand,
          rolled: state.rolled, edition: state.edition, special_lead: state.specialLead }) };
      }
    } catch (err) {
      state.answer = null;
      // a refusal's reason is the server's (in English: "the mino set has only 1 minotaur
      // die"): said in the reader's words
      ui.toast(refusal(err));
    }
    state.busy = false;
    draw();
    // on a phone the answer opens below the screen: brought into sight, and read out
    const shown = document.getElementById("odds-answer");
    if (shown) {
      shown.scrollIntoView({ block: "nearest" });
      shown.querySelector("h2")?.focus({ preventScroll: true });
    } else if (document.activeElement === document.body) {
      root.querySelector("#odds-go")?.focus({ preventScroll: true });  // (refused: ask again)
    }
  }

  function picker() {
    return h("ul", { class: "odds-dice" }, dice.kinds.map((k) => {
      const count = state.hand[k.name] || 0;
      const full = size() >= 8 ? _("At most 8 dice behind your screen.") : left(k) <= 0 ? noMore(k) : null;
      const change = (d) => {
        if (d > 0 && full) return;
        const next = Math.max(0, Math.min(k.count, count + d));
        if (next === count) return;
        state.hand[k.name] = next;
        state.answer = null;
        // a bid announced is at most the round's (as many as your dice): the menu offers no more
        for (const [p, bid] of Object.entries(state.announced)) if (bid > Math.max(size(), 1)) delete state.announced[p];
        remember();
        draw();
        say(`${word(k.name)}: ${next}`);
      };
      return h("li", {}, die(dice, k, null, { size: 40 }),
        h("span", { class: "label" }, word(k.name)),
        h("div", { class: "stepper" },
          h("button", { type: "button", "data-key": `less-${k.name}`, "aria-label": _("{what}: one less", { what: word(k.name) }), onclick: () => change(-1) }, "−"),
          h("output", { "aria-label": word(k.name) }, String(count)),
          h("button", { type: "button", "data-key": `more-${k.name}`, "aria-label": _("{what}: one more", { what: word(k.name) }),
            ...limit(full), onclick: () => change(1) }, "+")));
    }));
  }

  function bidInputs() {
    const r = size();
    // choices whose words wrap, not a menu (it cut "Du beginnst die R…" at large text)
    const positions = h("fieldset", { class: "odds-seats", id: "odds-position" }, h("legend", {}, _("Your seat")),
      Array.from({ length: state.players }, (_x, p) => h("label", {},
        h("input", { type: "radio", name: "odds-seat", id: `odds-seat-${p}`, value: p, checked: p === state.position, onchange: () => {
          state.position = p;
          delete state.announced[state.position];  // your own bid is not announced to you
          state.answer = null; remember(); draw();
        } }),
        p === 0 ? _("You start the round") : _("{n} after the start player", { n: p }))));
    const announced = Array.from({ length: state.players }, (_x, p) => p).filter((p) => p !== state.position).map((p) =>
      h("li", {}, h("label", { for: `odds-bid-${p}` }, p === 0 ? _("The start player") : _("{n} after the start player", { n: p })),
        h("select", { id: `odds-bid-${p}`, onchange: (e) => {
          if (e.target.value === "") delete state.announced[p]; else state.announced[p] = Number(e.target.value);
          // the answer shown was for other bids (drawn again, the list would fold up)
          state.answer = null;
          remember();
          root.querySelector("#odds-answer")?.remove();
        } }, h("option", { value: "" }, _("not known")),
        Array.from({ length: Math.max(r, 1) + 1 }, (_y, b) => h("option", { value: b, selected: state.announced[p] === b }, String(b))))));
    // the scoring decides the best bid (R15: a missed bid scores 0, no bonuses)
    const variant = h("select", { id: "odds-variant", onchange: (e) => { state.variant = e.target.value; state.answer = null; remember(); draw(); } },
      h("option", { value: "standard", selected: state.variant === "standard" }, _("Standard scoring")),
      h("option", { value: "simplified", selected: state.variant === "simplified" }, _("Simplified: no minus points, no bonus")));
    return [
      h("div", { class: "field" }, h("label", { for: "odds-variant" }, _("Scoring")), variant),
      positions,
      h("p", { class: "hint" }, r ? _("Round {n}: {n} dice behind your screen.", { n: r }) : _("Round: as many as your dice.")),
      h("details", { open: Object.keys(state.announced).length > 0 }, h("summary", {}, _("Bids already announced (optional)")), h("ul", { class: "announced" }, announced)),
    ];
  }

  function trickInputs() {
    // only dice that may still be rolled: none of a kind all in sight (held or rolled)
    const open = dice.kinds.filter((k) => left(k) > 0);
    const chosen = open.find((k) => k.name === kindChosen) || open[0];
    const kind = h("select", { id: "odds-rolled-kind", "aria-label": _("Die rolled") }, dice.kinds.map((k) =>
      h("option", { value: k.name, disabled: left(k) <= 0, selected: k === chosen }, word(k.name))));
    const face = h("select", { id: "odds-rolled-face", "aria-label": _("Face shown") });
    const faces = () => {
      const k = dice.kinds.find((x) => x.name === kind.value);
      replace(face, [...new Set(k.faces.map(String))].map((f) => h("option", { value: f }, word(f))));
    };
    kind.addEventListener("change", () => { kindChosen = kind.value; faces(); });
    if (chosen) faces();
    const trickFull = state.rolled.length >= state.players - 1
      ? _("A trick of {p} players has {n} dice rolled before yours at most.", { p: state.players, n: state.players - 1 })
      : !chosen ? _("Every die of the set is in sight.") : null;
    // R9: the first number die rolled sets the colour; under the house rule "no colour", a
    // trick a special die leads has none
    const kinds = state.rolled.map((r) => dice.kinds.find((k) => k.name === r.die));
    const noColour = state.specialLead === "no-colour" && kinds.length > 0 && kinds[0] && kinds[0].special;
    const follow = noColour ? null : kinds.find((k) => k && !k.special);
    return [
      h("h3", {}, _("Rolled in this trick so far")),
      state.rolled.length ? h("ol", { class: "rolls" }, state.rolled.map((r, i) => h("li", { class: "roll" },
        die(dice, dice.kinds.find((k) => k.name === r.die), r.face, { size: 40 }),
        h("button", { class: "small", "data-key": `remove-${i}`, "aria-label": _("Remove"), onclick: () => {
          state.rolled.splice(i, 1); state.answer = null; remember(); draw();
          // (the last one removed: the keyboard goes on at Add)
          if (document.activeElement === document.body) root.querySelector("#odds-add")?.focus();
        } }, "×"))))
        : h("p", { class: "hint" }, _("Nothing yet: you lead.")),
      h("p", {}, follow ? _("Follow: {colour}", { colour: word(follow.colour) }) : noColour ? _("No colour") : _("No colour yet")),
      h("div", { class: "row" }, kind, face, h("button", { type: "button", id: "odds-add", ...limit(trickFull), onclick: () => {
        if (trickFull) return;
        const k = dice.kinds.find((x) => x.name === kind.value);
        if (!k || left(k) <= 0) return;
        const f = /^\d+$/.test(face.value) ? Number(face.value) : face.value;
        state.rolled.push({ die: kind.value, face: f });
        say(_("Rolled in this trick so far") + ": " + state.rolled.length);
        state.answer = null;
        remember();
        draw();
      } }, _("Add"))),
    ];
  }

  function answer() {
    const a = state.answer;
    if (!a) return null;
    if (a.mode === "bid") {
      const d = a.data;
      return h("section", { class: "card advice", id: "odds-answer", "aria-live": "polite" },
        h("h2", { tabindex: "-1" }, _("Best bid: {bid}", { bid: d.best_bid })),
        h("table", {}, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, _("Bid")), h("th", { scope: "col" }, _("Makes it")), h("th", { scope: "col" }, _("Expected score")))),
          h("tbody", {}, d.bids.map((b) => h("tr", { class: b.bid === d.best_bid ? "best" : "" },
            h("td", {}, String(b.bid)), h("td", {}, chanceWithMargin(b.make_chance, b.samples)),
            h("td", {}, decimal(b.expected_score, 1, true)))))),
        h("h3", {}, _("Tricks won when playing for {bid}:", { bid: d.best_bid })),
        h("ul", { class: "bars" }, d.tricks_distribution.map((p, k) => (p > 0 ? h("li", {},
          h("span", { class: "k" }, String(k)), h("span", { class: "bar", "data-w": Math.round(p * 100) }), h("span", {}, `${Math.round(p * 100)}%`)) : null))),
        h("p", { class: "hint model" }, _("Model: the other dice are dealt at random from the dice you cannot see; everyone bids by their dice's strength (or as announced) and plays for their bid; {n} simulated rounds for the best bid, the others fewer.", { n: d.samples }) + " " + marginNote()));
    }
    const d = a.data;
    return h("section", { class: "card advice", id: "odds-answer", "aria-live": "polite" },
      h("h2", { tabindex: "-1" }, _("Chance to take this trick")),
      h("table", {}, h("tbody", {}, d.dice.map((x) => h("tr", { class: x.legal ? "" : "blocked" },
        // a die that may not be rolled now gets no chance: it is not a choice
        h("th", { scope: "row" }, word(x.die)), h("td", {}, x.legal ? chanceWithMargin(x.chance, d.samples) : "—"),
        h("td", {}, x.legal ? "" : _("✗ follow {colour}", { colour: word(dice.kinds.find((k) => k.name === d.follow).colour) })))))),
      h("p", { class: "hint model" }, (d.later > 0
        ? _("Model: the {n} players still to roll hold as many dice as you, dealt at random from the dice not in sight, and each rolls a die they may roll at random; {samples} simulated tricks.", { n: d.later, samples: d.samples })
        : _("Model: you roll last, so only the face your die shows is left to chance; {samples} simulated tricks.", { samples: d.samples })) + " " + marginNote()));
  }

  // Drawn again, the keyboard stays on the control just used (a die's "+", a menu).
  function draw() { keepFocus(root, drawPage); }

  function drawPage() {
    const edition = h("select", { id: "odds-edition", onchange: async (e) => {
      try { dice = await diceSet(e.target.value); } catch (err) { ui.toast(err.message); draw(); return; }
      state.edition = e.target.value; state.hand = {}; state.rolled = []; state.answer = null;
      remember(); draw();
    } }, EDITIONS.map((e) => h("option", { value: e.name, selected: state.edition === e.name }, _(e.title))));
    const players = h("select", { id: "odds-players", onchange: (e) => {
      state.players = Number(e.target.value); state.position = Math.min(state.position, state.players - 1);
      // a trick of fewer players holds fewer dice rolled before yours
      state.rolled = state.rolled.slice(0, state.players - 1);
      state.announced = {}; state.answer = null; remember(); draw();
    } }, Object.keys(ROUNDS).map(Number).map((n) => h("option", { value: n, selected: n === state.players }, String(n))));
    const specialLead = h("select", { id: "odds-special-lead", onchange: (e) => {
      state.specialLead = e.target.value; state.answer = null; remember(); draw();
    } }, ["first-number", "no-colour"].map((v) => h("option", { value: v, selected: state.specialLead === v }, specialLeadText(v))));
    const tab = (mode, label) => h("button", { role: "tab", id: `odds-tab-${mode}`, "aria-selected": String(state.mode === mode), class: state.mode === mode ? "primary" : "",
      onclick: () => { state.mode = mode; state.answer = null; remember(); draw(); } }, label);
    const r = size();
    const tooMany = state.mode === "bid" && r > ROUNDS[state.players];
    replace(root,
      h("section", { class: "card" },
        h("h1", {}, _("Odds for your dice")),
        h("div", { class: "row", role: "tablist" }, tab("bid", _("Before bidding")), tab("trick", _("During a trick"))),
        h("div", { class: "field" }, h("label", { for: "odds-edition" }, _("Edition")), edition),
        h("div", { class: "field" }, h("label", { for: "odds-players" }, _("Players")), players),
        h("details", { class: "house-rules", open: state.specialLead !== "first-number" },
          h("summary", {}, _("House rules")),
          h("div", { class: "field" }, h("label", { for: "odds-special-lead" }, _("Colour when a special die leads")), specialLead)),
        h("h2", {}, _("Your dice")), picker(),
        state.mode === "bid" ? bidInputs() : trickInputs(),
        tooMany ? h("p", { class: "why" }, _("A {p}-player game has {n} rounds at most (R2).", { p: state.players, n: ROUNDS[state.players] })) : null,
        h("button", { class: "primary big", id: "odds-go", disabled: state.busy || tooMany || !r, onclick: ask },
          state.busy ? _("Computing…") : _("Show the odds"))),
      answer());
    for (const bar of root.querySelectorAll(".bar")) bar.style.width = `${bar.dataset.w * 2}px`;
  }

  draw();
}
