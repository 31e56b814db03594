// Small things around the table, kept out of table.js (the table's layout lives there):
// the join page's summary of the table's settings, the chat's count of unread lines, and
// a simulated chance with its margin of error (the table's advisor and the odds page).
import { store } from "./api.js";
import { h } from "./dom.js";
import { _ } from "./i18n.js";
import { EDITIONS } from "/meta.js";

// The settings a person is asked to join: edition, scoring, seats (who is a bot), clock,
// advisor; from GET /api/tables/ID. (botName: the table's words for a bot level.)
export function tableSettings(info, botName) {
  const edition = EDITIONS.find((e) => e.name === info.edition);
  const rows = [
    [_("Edition"), edition ? _(edition.title) : info.edition],
    [_("Scoring"), info.variant === "simplified" ? _("Simplified: no minus points, no bonus") : _("Standard scoring")],
    // a bot by its name, as the seats show it once seated, and its level; a free seat as
    // free ("Seat 2" alone read as if someone of that name sat there)
    [_("Players"), info.players.map((p, i) => p.bot ? (p.name ? `${p.name} (${botName(p.bot)})` : botName(p.bot))
      : p.name || _("Seat {n} (free)", { n: i + 1 })).join(", ")],
    [_("Turn clock"), info.turn_seconds ? _("{s} s per decision", { s: info.turn_seconds }) : _("No clock")],
    [_("Bid advisor"), info.advisor === false ? _("not allowed") : _("allowed")],
  ];
  const options = info.rule_options;
  if (options) {  // only a table that plays RULES.md's open points otherwise says so
    rows.push([_("Start player of later rounds"), startText(options.start)],
      [_("Colour when a special die leads"), specialLeadText(options.special_lead)]);
  }
  return h("dl", { class: "table-settings" }, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

// A table's house rules in one line (the score pad's and the waiting room's), as the
// terminal's rules screen says them; null at a table that plays RULES.md's defaults.
export function houseRulesLine(options) {
  if (!options) return null;
  return h("p", { class: "hint house-rules-note" }, `${_("House rules")}: `
    + `${_("Start player of later rounds")}: ${startText(options.start)}; `
    + `${_("Colour when a special die leads")}: ${specialLeadText(options.special_lead)}.`);
}

// RULES.md's open points (R5, R9) in words: the create form's choices and the join page's.
export function startText(start) {
  return start === "fixed" ? _("Always the same") : _("Clockwise");
}

export function specialLeadText(lead) {
  return lead === "no-colour" ? _("No colour") : _("The first number die's");
}

// The chat's summary line counts the lines that came while it was closed. The server sends
// its kept lines again on every connection (a reload, a reconnect): a line this page has
// already is dropped (null), and one older than the newest line seen on this device (its
// time, remembered per table under `key`) is shown but not counted again.
export function countUnread(details, key) {
  const summary = details.querySelector("summary");
  const badge = h("span", { class: "unread", "aria-live": "polite" });
  summary.appendChild(badge);
  const have = new Set();
  let seen = store.get(key, 0);
  let newest = 0;
  let unread = 0;
  const show = () => {
    badge.textContent = unread ? " " + _("({n} new)", { n: unread }) : "";
  };
  const look = () => {
    unread = 0;
    show();
    if (newest > seen) store.set(key, seen = newest);
  };
  details.addEventListener("toggle", () => { if (details.open) look(); });
  return (line) => {
    const id = `${line.at} ${line.seat} ${line.text}`;
    if (have.has(id)) return false;
    have.add(id);
    newest = Math.max(newest, line.at);
    if (details.open) look();
    else if (line.at > seen) { unread++; show(); }
    return true;
  };
}

/** A simulated chance as a player reads it: "62%", and how far off the simulation may be
 * ("±4", percentage points), so that two bids a point apart are not taken as ranked. The
 * margin is the farther end of the 95% Wilson interval: a chance never seen in 60 rounds
 * ("0%") may still be 6%, where the plain ±1.96·√(p(1−p)/n) would say ±0. */
export function chanceWithMargin(chance, samples) {
  const shown = `${Math.round(chance * 100)}%`;
  const margin = samples > 0 ? Math.round(100 * wilsonMargin(chance, samples)) : 0;
  return margin > 0 ? [shown, " ", h("small", { class: "margin" }, `±${margin}`)] : shown;
}

export function wilsonMargin(p, n, z = 1.96) {
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return Math.max(p - (centre - half), centre + half - p);
}

export function marginNote() {
  return _("± is the simulation's margin of error (95%).");
}
