// The page: a lobby (/), a table (/t/ID), a replay (/replay, /replay/ID) and an about page
// (/about), each rendered from what the server answers. No build step: plain ES modules.
import { api, nameField, nameProblem, nameRefused, randomHex, store, takeSeat } from "./api.js";
import { h, replace } from "./dom.js";
import { LANGUAGES, _, chooseLanguage, lang, loadLanguage } from "./i18n.js";
import { specialLeadText, startText } from "./extras.js";
import { addLeaveButton, myTablesCard, noteVisit } from "./mine.js";
import { EDITIONS, ROUNDS } from "/meta.js";
import { levelOptions, showTable } from "./table.js";

// The page shown: a new <main> for every page, so that what an earlier page still builds when
// its answers come late (a slow network; the page left before it was drawn) goes into its own
// detached <main>, never over the page moved to.
let root = document.getElementById("app");
const toaster = document.getElementById("toast");
let leaveCurrent = () => {};
let routes = 0;
// What the page shown would lose if left now (a question to ask), or null: set by a page
// with work not yet kept (the pad's correction); asked before the app moves to another page
// (a link, Back), and by the browser before a reload or a closed tab.
let unkept = () => null;
let shownPath = location.pathname + location.search;

function mayLeave() {
  const question = unkept();
  return !question || window.confirm(question);
}

const ui = {
  toast(message) {
    // The same words again (another tab changing a game 12 times, say) renew the one
    // toast showing them: a stack of copies hid the page.
    const same = [...toaster.children].find((item) => item.textContent === message);
    const item = same || h("div", { class: "toast-item", role: "alert" }, message);
    if (same) clearTimeout(Number(same.dataset.timer));
    toaster.appendChild(item);  // (moved to the end: an alert inserted again is read again)
    item.dataset.at = String(performance.now());
    item.dataset.timer = String(setTimeout(() => item.remove(), 6000));
  },
  go(path) {
    if (!mayLeave()) return;
    history.pushState({}, "", path);
    route();
  },
  /** ``check`` says what leaving the page shown now would lose (null: nothing). */
  askBeforeLeaving(check) { unkept = check; },
  again: false,    // set by route(): the page drawn again in another language
  arrived: false,  // set by route(): moved to within the app (not the first page)
};

// ``again``: the same page drawn again, in another language: a page may keep what was typed
// and not yet kept (``ui.again``; the pad's names, its correction).
async function route(again = false) {
  const here = ++routes;
  ui.again = again;
  ui.arrived = here > 1 && !again;
  const current = () => here === routes;
  unkept = () => null;
  // a message about the page left (a link copied, a name refused) is not the next page's;
  // one shown as the page is left (why it is left) is
  if (!again) {
    for (const item of [...toaster.children]) {
      if (performance.now() - Number(item.dataset.at) < 1000) continue;
      clearTimeout(Number(item.dataset.timer));
      item.remove();
    }
  }
  shownPath = location.pathname + location.search;
  leaveCurrent();
  leaveCurrent = () => {};
  renderNav(again);
  // The page left stays in sight until the new one draws something, or is built: a page
  // coming slowly shows the old one (or "Loading…"), not an empty one, and another language
  // keeps the reader's place on the page.
  const into = h("main", { id: "app", tabindex: "-1" });
  const scrolled = window.scrollY;
  const swap = () => {
    drawn.disconnect();
    if (current() && root !== into) { root.replaceWith(into); root = into; }
  };
  const drawn = new MutationObserver(swap);
  drawn.observe(into, { childList: true });
  const path = location.pathname;
  const table = path.match(/^\/t\/([A-Za-z0-9]+)\/?$/);
  let replay;
  let leave = () => {};
  if (table) {
    noteVisit(table[1]);
    addLeaveButton(table[1], ui);
    leave = await showTable(into, table[1], ui);
  } else if ((replay = path.match(/^\/replay(?:\/([A-Za-z0-9]+))?\/?$/))) {
    // its own module, loaded only here: a table's first view does not carry it
    const { showReplay } = await import("./replay.js");
    if (current()) leave = await showReplay(into, replay[1] || null, ui);
  } else if (path === "/about") {
    await showAbout(into);
  } else if (path === "/pad") {
    // the pad's and the odds page's modules are loaded only there (as the replay's): a
    // table's first view waits for none of them
    const { showPad } = await import("./pad.js");
    if (current()) showPad(into, ui);
  } else if (path === "/odds") {
    const { showOdds } = await import("./odds.js");
    if (current()) showOdds(into, ui);
  } else if (path === "/") {
    await showLobby(into);
  } else {
    showNotFound(into);
  }
  // left while it was being built: what it opened (a table's connection) is closed at once
  if (!current()) { drawn.disconnect(); leave(); return; }
  swap();
  // the same page in another language keeps the reader's place; another page opens at
  // its top (a table made from the lobby's lower form opened past its seats and prompt)
  window.scrollTo(0, again ? scrolled : 0);
  leaveCurrent = leave;
  shownPath = location.pathname + location.search;  // as the page settled it (/pad?game=gone)
  // A page moved to takes the focus to its heading (read out, and the keyboard goes on
  // from there rather than from <body>; a table's goes to its prompt, table.js); drawn
  // again in another language, the focus goes back to the language menu (drawn anew too).
  // Not on the first page: that is the browser's own.
  const focus = into.querySelector("h1");
  if (focus) focus.setAttribute("tabindex", "-1");
  if (again) document.getElementById("lang").focus({ preventScroll: true });
  else if (focus && ui.arrived && !table) focus.focus({ preventScroll: true });
}

// ``again``: another language chosen: the menu stays as it was (open, on a phone, where
// the language menu is), so that the focus can go back to it.
function renderNav(again = false) {
  const nav = document.getElementById("nav");
  nav.setAttribute("aria-label", _("Main"));
  document.querySelector(".skip").textContent = _("Skip to the game");
  const select = h("select", { id: "lang", "aria-label": _("Language"), onchange: async (e) => {
    store.set("lang", e.target.value);
    localStorage.setItem("minodice.lang", e.target.value);
    await loadLanguage(e.target.value);
    route(true);
  } }, Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, selected: code === lang }, name)));
  // On a phone the links fold behind one menu button, so that the header is one row.
  const links = h("div", { class: "links", id: "nav-links" },
    h("a", { href: "/", onclick: link }, _("Play")),
    h("a", { href: "/pad", onclick: link }, _("Score pad")),
    h("a", { href: "/odds", onclick: link }, _("Odds")),
    h("a", { href: "/about", onclick: link }, _("About")));
  const menu = h("button", { class: "menu", "aria-expanded": "false", "aria-controls": "nav-links",
    "aria-label": _("Menu"), onclick: () => {
      const open = nav.classList.toggle("open");
      menu.setAttribute("aria-expanded", String(open));
    } }, "☰");
  const open = again && nav.classList.contains("open");
  nav.classList.toggle("open", open);
  menu.setAttribute("aria-expanded", String(open));
  // Escape closes the open menu, as a menu does (it stayed open under a dialog)
  nav.onkeydown = (event) => {
    if (event.key !== "Escape" || !nav.classList.contains("open")) return;
    event.stopPropagation();
    nav.classList.remove("open");
    menu.setAttribute("aria-expanded", "false");
    menu.focus();
  };
  replace(nav, h("a", { href: "/", class: "brand", onclick: link }, "Mino Dice"), menu, links, select);
}

// A tap or click outside the open menu closes it (it stayed open under a dialog).
document.addEventListener("click", (event) => {
  const nav = document.getElementById("nav");
  if (!nav || !nav.classList.contains("open") || nav.contains(event.target)) return;
  nav.classList.remove("open");
  const menu = nav.querySelector("button.menu");
  if (menu) menu.setAttribute("aria-expanded", "false");
});

// An address the page does not know: say so, with a way back (never the lobby in disguise).
function showNotFound(into) {
  replace(into, h("section", { class: "card" },
    h("h1", {}, _("Page not found")),
    h("p", {}, _("There is nothing at this address.")),
    h("p", {}, h("a", { href: "/", class: "button primary", onclick: link }, _("Back to the lobby")))));
}

function link(event) {
  if (event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  ui.go(event.currentTarget.getAttribute("href"));
}

// -- the lobby -----------------------------------------------------------------------------

async function showLobby(into) {
  // One name field for "Play now" and "Create a table" (each form had its own, the second
  // far down the page, and a name typed in one was not in the other).
  const quickName = nameField(h("input", { id: "quick-name", name: "name", required: true,
    autocomplete: "nickname", value: store.get("name", "") }));
  const quick = h("form", { class: "card quick", onsubmit: async (e) => {
    e.preventDefault();
    await createAndSit({ players: 4, edition: "mino", variant: "standard", bots: [null, "easy", "easy", "easy"],
      turn_seconds: null, public: false, advisor: true }, quickName);
  } },
  h("h1", {}, _("Mino Dice")),
  h("p", {}, _("Bid how many tricks your dice will win, then roll them one by one. Exactly right scores.")),
  h("label", { for: "quick-name" }, _("Your name")), quickName,
  h("button", { type: "submit", class: "primary big", id: "play-now" }, _("Play now against 3 bots")));

  const players = h("select", { id: "c-players", onchange: () => drawSeats() },
    Object.keys(ROUNDS).map(Number).map((n) => h("option", { value: n, selected: n === 4 }, String(n))));
  const edition = h("select", { id: "c-edition" },
    EDITIONS.map((e) => h("option", { value: e.name }, _(e.title))));
  const variant = h("select", { id: "c-variant" },
    h("option", { value: "standard" }, _("Standard scoring")), h("option", { value: "simplified" }, _("Simplified: no minus points, no bonus")));
  const clock = h("select", { id: "c-clock" },
    h("option", { value: "" }, _("No clock")), [30, 60, 120].map((s) => h("option", { value: s }, _("{s} s per decision", { s }))));
  const isPublic = h("input", { type: "checkbox", id: "c-public" });
  const advisor = h("input", { type: "checkbox", id: "c-advisor", checked: true });
  // RULES.md's open points, the usual reading first (sent only when one differs)
  const start = h("select", { id: "c-start" },
    ["rotate", "fixed"].map((v) => h("option", { value: v }, startText(v))));
  const specialLead = h("select", { id: "c-special-lead" },
    ["first-number", "no-colour"].map((v) => h("option", { value: v }, specialLeadText(v))));
  const seats = h("ol", { class: "seat-choices" });
  function drawSeats() {
    const n = Number(players.value);
    const items = [];
    for (let i = 1; i < n; i++) {
      items.push(h("li", {}, h("label", { for: `c-seat-${i}` }, _("Seat {n}", { n: i + 1 })),
        h("select", { id: `c-seat-${i}` }, h("option", { value: "" }, _("a person (invite)")),
          levelOptions())));
    }
    replace(seats, items);
  }
  drawSeats();
  const create = h("form", { class: "card create", onsubmit: async (e) => {
    e.preventDefault();
    const n = Number(players.value);
    const bots = [null];
    for (let i = 1; i < n; i++) bots.push(document.getElementById(`c-seat-${i}`).value || null);
    const body = { players: n, edition: edition.value, variant: variant.value, bots,
      turn_seconds: clock.value ? Number(clock.value) : null, public: isPublic.checked, advisor: advisor.checked };
    if (start.value !== "rotate" || specialLead.value !== "first-number") {
      body.rule_options = { start: start.value, special_lead: specialLead.value };
    }
    await createAndSit(body, quickName);
  } },
  h("h2", {}, _("Create a table")),
  h("p", { class: "hint" }, _("You play under the name entered at the top of the page.")),
  field("c-players", _("Players"), players),
  field("c-edition", _("Edition"), edition),
  field("c-variant", _("Scoring"), variant),
  h("fieldset", {}, h("legend", {}, _("Who sits in the other seats")), seats),
  field("c-clock", _("Turn clock"), clock),
  h("div", { class: "check" }, isPublic, h("label", { for: "c-public" }, _("Public: listed in the lobby"))),
  h("div", { class: "check" }, advisor, h("label", { for: "c-advisor" }, _("Allow the bid advisor"))),
  h("details", { class: "house-rules" }, h("summary", {}, _("House rules")),
    field("c-start", _("Start player of later rounds"), start),
    field("c-special-lead", _("Colour when a special die leads"), specialLead)),
  h("button", { type: "submit", class: "primary" }, _("Create the table")));

  const list = h("div", { class: "public-list", "aria-live": "polite" }, h("p", { class: "hint" }, _("Loading…")));
  const open = h("section", { class: "card open" }, h("h2", {}, _("Open tables")), list);
  replace(into, quick, myTablesCard(link), open, create);
  await refreshPublic(list);
}

function field(id, label, control) {
  return h("div", { class: "field" }, h("label", { for: id }, label), control);
}

async function refreshPublic(list) {
  let tables = [];
  let problem = null;
  try { tables = await api("GET", "/api/tables"); } catch (err) { problem = err; }
  if (!list.isConnected) return;
  replace(list, problem
    ? h("p", { class: "hint offline", role: "status" }, problem.code === "offline"
      ? _("Offline: the server cannot be reached, so the open tables are not known. The score pad works offline.")
      : problem.message)
    : tables.length ? h("ul", {}, tables.map((t) => h("li", {},
      h("a", { href: t.url, onclick: link }, _("{players} players, {free} free", { players: t.players, free: t.seats_free })),
      " ", h("small", {}, (t.names || []).join(", "))))) : h("p", { class: "hint" }, _("No public table is waiting. Create one!")));
  setTimeout(() => { if (list.isConnected) refreshPublic(list); }, 5000);
}

// ``field``: the lobby's name field (a name missing or too long takes the focus there).
async function createAndSit(settings, field) {
  const name = field.value.trim();
  const problem = nameProblem(name);
  if (problem) {
    ui.toast(problem);
    field.focus();
    return;
  }
  try {
    const table = await api("POST", "/api/tables", settings);
    store.set(`host.${table.table}`, table.host_token);
    await takeSeat(table.table, name, {}, table.commit);
    ui.go(table.url);
  } catch (err) {
    ui.toast(err.code === "bad_request" ? nameRefused() : err.message);
  }
}

// -- about -----------------------------------------------------------------------------------

async function showAbout(into) {
  let rules = [];
  try { rules = (await api("GET", `/api/rules/${lang}?edition=mino`)).paragraphs; } catch (err) { rules = []; }
  const dice = await (await import("./about.js")).diceSection();
  replace(into,
    h("section", { class: "card about" },
      h("h1", {}, _("About Mino Dice")),
      h("p", {}, _("Mino Dice is a trick-taking game with dice: you choose which die to play, but the face it shows is rolled. Everyone bids in secret how many tricks they will win; an exact bid scores.")),
      h("h2", { id: "rules" }, _("How to play")),
      rules.map((p) => h("p", {}, p)),
      dice,
      h("h2", {}, _("Credits")),
      h("ul", {},
        h("li", {}, _("Game design: Manfred Reindl")),
        h("li", {}, _("Graphics of the published game: Eckhard Freytag and Wanjin Gill")),
        h("li", {}, _("First published by Schmidt Spiele in 2016 as “Skull King – Das Würfelspiel”; published as “Mino Dice” by Playte, and by IELLO (“Mythical Dice”), Devir, GaGa Games and Rexhry.")),
        h("li", {}, _("Recommended as “Spiel der Spiele 2016 – Hit für Familien”."))),
      h("p", {}, _("This is an independent implementation, not made or endorsed by the designer or the publishers. Its dice and screens are drawn by us; none of the published artwork is used.")),
      h("p", {}, _("Every deal and roll comes from a stream the server commits to before anyone joins, mixed with seeds from the players' browsers; at the end of a game this page checks every die."))));
}

// -- start -------------------------------------------------------------------------------------

window.addEventListener("beforeunload", (event) => {
  if (unkept()) {
    event.preventDefault();
    event.returnValue = "";  // (older browsers ask only when it is set)
  }
});
window.addEventListener("popstate", () => {
  // A move within the page (only the #place changed: the replay's steps, a mistake's link)
  // is the page's own (its hashchange); routing it would build the page again, and the
  // replay's analysis would vanish until asked for anew.
  if (location.pathname + location.search === shownPath) return;
  // Back or Forward has moved the address already: put it back to stay
  if (!mayLeave()) { history.pushState({}, "", shownPath); return; }
  route();
});
// Offline: the service worker keeps the pages and their words for the score pad. It is
// registered once the page has loaded and drawn, so that its copying of every file does
// not compete with a table's first view.
if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => setTimeout(() => navigator.serviceWorker.register("/sw.js").catch(() => {}), 1000));
}
(async () => {
  await loadLanguage(chooseLanguage());
  if (!store.get("device")) store.set("device", randomHex(8));
  route();
})();
