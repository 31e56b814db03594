// The server's HTTP side (docs/PROTOCOL.md) and what the page keeps on this device.
import { seedHash } from "./fair.js";
import { _ } from "./i18n.js";

/** An error the page shows: its message is in the reader's words (errorText), whatever
 * the server's English text (kept as `detail`, for whoever debugs). */
export class ApiError extends Error {
  constructor(code, detail) { super(errorText(code)); this.code = code; this.detail = detail; }
}

/** The server's error codes in the reader's words (its own text is English, for logs). */
export function errorText(code) {
  return {
    offline: _("The server cannot be reached. Check your connection and try again."),
    not_found: _("This table does not exist, or it has expired."),
    forbidden: _("Only a player of this table may do that."),
    conflict: _("That is no longer possible: the table has moved on."),
    not_your_turn: _("It is not your turn."),
    illegal: _("That move is not allowed now."),
    rate_limited: _("Too fast: wait a moment, then try again."),
    busy: _("The server is busy; try again shortly."),
    unavailable: _("The move could not be saved. Try again."),
    damaged: _("Its saved game is damaged, so the server has set it aside."),
    too_large: _("That is too long."),
    bad_request: _("The server refused this request."),
    bad_message: _("The server did not understand the page; reload it."),
  }[code] || _("The server refused this.");
}

// A 503 with Retry-After changed nothing (the table was changing hands between server
// processes, or its store was away a moment): sent again at most RETRIES more times, each
// after the longer of its Retry-After and a backoff doubling from half a second (at most
// 8 s, with some jitter), then the last refusal is shown.
export const RETRIES = 4;

export function retryDelay(response, attempt) {
  if (response.status !== 503) return null;
  const after = Number.parseFloat(response.headers.get("retry-after") || "");
  if (!Number.isFinite(after)) return null;
  return Math.min(8, Math.max(after, 0.5 * 2 ** attempt)) * (1 + Math.random() / 4) * 1000;
}

// The server's clock, from its answers' Date headers. An answer's Date is a whole second the
// server's clock had passed when it wrote the answer (uvicorn renews the header once a
// second: it is at most 2 s behind), after this page asked (at `sent`, this device's time)
// and before the page got it (at `got`): the offset (server − device) is at least
// Date − got, and less than Date + 2 s − sent. Each answer narrows that range. A device
// whose clock is in it (as a clock kept by the network's time is; or within a second above
// it, as the header's renewal may come late on a busy server) is finer than the header and
// is trusted; one that is outside (a phone set by hand, 45 s fast) is corrected to the
// range's middle, so that its turn clock counts the server's seconds. The time an answer
// takes widens its range, never moves it: on a slow network (2 s an answer) a right clock
// was taken for a slow one, and the page's turn clock gave 10 s of an 8 s turn.
const DATE_LAG = 2000;
const LATE_DATE = 1000;
let lowerOffset = null;
let upperOffset = null;

function noteServerClock(response, sent, got) {
  const date = Date.parse(response.headers.get("date") || "");
  // (a copy the service worker kept, offline: its Date is the day it was kept)
  if (!Number.isFinite(date) || response.headers.get("x-minodice-kept")) return;
  const lower = date - got;
  const upper = date + DATE_LAG - sent;
  if (lowerOffset === null || Math.max(lowerOffset, lower) > Math.min(upperOffset, upper)) {
    // the first answer, or one that does not fit the others (this device's clock was set
    // meanwhile): from this one alone
    [lowerOffset, upperOffset] = [lower, upper];
  } else {
    [lowerOffset, upperOffset] = [Math.max(lowerOffset, lower), Math.min(upperOffset, upper)];
  }
}

/** The server's time now, as far as this page can tell (milliseconds since 1970). */
export function serverNow() {
  if (lowerOffset === null || (lowerOffset <= 0 && upperOffset >= -LATE_DATE)) return Date.now();
  return Date.now() + (lowerOffset + upperOffset) / 2;
}

export async function api(method, path, body) {
  let response;
  for (let attempt = 0; ; attempt++) {
    const sent = Date.now();
    try {
      response = await fetch(path, {
        method, headers: body ? { "content-type": "application/json" } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      throw new ApiError("offline", "no answer");
    }
    noteServerClock(response, sent, Date.now());
    const wait = attempt < RETRIES ? retryDelay(response, attempt) : null;
    if (wait === null) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  let data = null;
  try { data = await response.json(); } catch (err) { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || "error", error.message || "");
  }
  return data;
}

export const store = {
  get(key, fallback = null) {
    try { const v = localStorage.getItem("minodice." + key); return v === null ? fallback : JSON.parse(v); }
    catch (err) { return fallback; }
  },
  // Whether it was kept (a full or turned-off storage refuses: private mode, a quota).
  set(key, value) {
    try { localStorage.setItem("minodice." + key, JSON.stringify(value)); return true; } catch (err) { return false; }
  },
  remove(key) { try { localStorage.removeItem("minodice." + key); } catch (err) { /* ignore */ } },
};

export function randomHex(bytes) {
  const a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

// What this device keeps to check a table's dice (minodice-fair-2): its seat's seed and the
// hash it committed to, the commitment seen before the first roll, every seat's commitment
// as published before any seed was revealed. What is kept first is never overwritten.
export function keepFair(table, fields) {
  const kept = store.get(`fair.${table}`, {});
  for (const [k, v] of Object.entries(fields)) if (v != null && kept[k] == null) kept[k] = v;
  store.set(`fair.${table}`, kept);
}

// A new seed for a seat and its commitment; the seed stays here until every seat committed.
export async function newSeed() {
  const seed = randomHex(16);
  return { seed, hash: await seedHash(seed) };
}

// A name as the server counts it (minodice.core.names.NAME_MAX): code points. An input's
// maxlength counts UTF-16 units instead (an emoji is 2, a family emoji 11 for 7 code
// points), so a maxlength of 24 would refuse a legal name with emoji: see nameField.
export const NAME_MAX = 24;

/** ``text`` as the characters people see (grapheme clusters; code points where the
 * browser cannot tell them). */
function graphemes(text) {
  if (typeof Intl.Segmenter !== "function") return [...text];
  return [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)].map((g) => g.segment);
}

function codePoints(parts) { return parts.reduce((n, part) => n + [...part].length, 0); }

/** Make `input` a name field: it stops at NAME_MAX characters as they are typed or pasted,
 * as a maxlength would, but counting as the server does: code points, and not the spaces
 * before and after the name, which the server trims (they counted while typing). When it
 * cuts, it says so under the field (a pasted name lost its end unseen). Its maxlength
 * (four times NAME_MAX: no legal name is longer in UTF-16, with room for spaces around it)
 * is the browser's own ceiling, never below a legal name. */
export function nameField(input) {
  input.maxLength = 4 * NAME_MAX;
  const note = document.createElement("p");
  note.className = "hint name-cut";
  note.setAttribute("role", "status");
  note.hidden = true;
  const cut = () => {
    const value = input.value;
    const name = value.trim();
    if ([...name].length <= NAME_MAX) return false;
    // the spaces around the name go first; then what is past the limit, from just before
    // the caret (what was typed or pasted last), as a maxlength takes only the start of a
    // paste; a whole character as people see it at a time (a family emoji cut at 24 code
    // points left "👨‍👩" of it)
    const lead = value.length - value.trimStart().length;
    const at = Math.min(Math.max((input.selectionEnd ?? value.length) - lead, 0), name.length);
    const after = graphemes(name.slice(at));
    const before = graphemes(name.slice(0, at));
    while (before.length && codePoints(before) + codePoints(after) > NAME_MAX) before.pop();
    while (after.length && codePoints(after) > NAME_MAX) after.pop();
    const kept = before.join("");
    input.value = kept + after.join("");
    input.setSelectionRange(kept.length, kept.length);
    return true;
  };
  // said while it cuts (typing on at the limit too), gone once the name is edited within it
  const check = () => {
    const shortened = cut();
    if (shortened && input.parentNode && !note.isConnected) {
      note.id = `${input.id || "name"}-cut`;
      input.after(note);
    }
    const said = _("Cut to {n} characters, the most a name may have.", { n: NAME_MAX });
    if (shortened && note.textContent !== said) note.textContent = said;
    note.hidden = !shortened;
    if (shortened) input.setAttribute("aria-describedby", note.id);
    else input.removeAttribute("aria-describedby");
  };
  // (not in the middle of an IME composition: at its end)
  input.addEventListener("input", (event) => { if (!event.isComposing) check(); });
  input.addEventListener("compositionend", check);
  cut();
  return input;
}

// The server's rule (minodice.core.names.name_problem), so that a name it would refuse is
// refused before anything is made for it (a table created for a name of zero-width spaces
// stayed, empty, in the lobby's list): no control, line-separator or format character but
// the joiners and the tags of a flag's emoji, no lone surrogate, and something visible.
const JOINER = /^[\u200c\u200d\u{e0020}-\u{e007f}]$/u;
const NEVER = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}]/u;
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;
const BLANKS = "\u115f\u1160\u3164\uffa0\u2800";

/** What is wrong with a name before it is sent (null: nothing the page can tell). */
export function nameProblem(name) {
  if (!name) return _("Please enter your name.");
  const chars = [...name];
  if (chars.length > NAME_MAX) return _("A name is at most {n} characters.", { n: NAME_MAX });
  if (chars.some((c) => NEVER.test(c) || (/\p{Cf}/u.test(c) && !JOINER.test(c)))
      || !chars.some((c) => VISIBLE.test(c) && !BLANKS.includes(c))) return nameRefused();
  return null;
}

/** A name the server refused (400): what else it can be, the length being checked here. */
export function nameRefused() {
  return _("This name cannot be used: it needs a letter, digit or symbol, and no control characters.");
}

// Take a seat and remember its token and seed on this device (a reload keeps the seat).
export async function takeSeat(table, name, extra = {}, commit = null) {
  const { seed, hash } = await newSeed();
  const seat = await api("POST", `/api/tables/${table}/seats`, { name, client_seed_hash: hash, ...extra });
  store.set(`seat.${table}`, { seat: seat.seat, token: seat.token });
  keepFair(table, { seed, hash, seat: seat.seat, commit });
  store.set("name", name);
  return seat;
}

// One request per edition, even when asked again before the first answer came.
const dice = {};
export function diceSet(edition) {
  if (!dice[edition]) dice[edition] = api("GET", `/api/dice/${edition}`).catch((err) => { delete dice[edition]; throw err; });
  return dice[edition];
}
