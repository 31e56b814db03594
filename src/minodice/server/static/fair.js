// Fair dice (docs/PROTOCOL.md, minodice-fair-2 and -1), checked in the browser: the page
// trusts no server to say its dice were fair. It keeps on this device the commitment it saw
// before the first roll and its own seed, and at the end checks the record against both,
// recomputes every deal and roll from the revealed seeds, and replays the whole game by the
// rules (who rolls, dice held, R9, trick winners, scores) as `minodice verify` does.
// WebCrypto does the hashing where the page is a secure context (https, localhost); on a
// plain-http address in a home network it is missing, so a small SHA-256 stands in.
import { ROUNDS, roundPoints } from "./pad-score.js";

const enc = new TextEncoder();

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}
function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

// -- SHA-256 for pages without WebCrypto (FIPS 180-4) ------------------------------------
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);

export function sha256Plain(data) {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const bits = data.length * 8;
  const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 4, bits >>> 0);
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  h.forEach((x, i) => ov.setUint32(i * 4, x));
  return out;
}

function hmacPlain(key, message) {
  let k = key.length > 64 ? sha256Plain(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  const ipad = block.map((b) => b ^ 0x36);
  const opad = block.map((b) => b ^ 0x5c);
  return sha256Plain(concat(opad, sha256Plain(concat(ipad, message))));
}

const subtle = globalThis.crypto && globalThis.crypto.subtle;

export async function sha256(data) {
  return subtle ? new Uint8Array(await subtle.digest("SHA-256", data)) : sha256Plain(data);
}

async function hmacFor(key) {
  if (!subtle) return async (message) => hmacPlain(key, message);
  const cryptoKey = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" },
    false, ["sign"]);
  return async (message) => new Uint8Array(await subtle.sign("HMAC", cryptoKey, message));
}

// -- the stream, deals and rolls -----------------------------------------------------------

const FAIR1 = "minodice-fair-1";
const FAIR2 = "minodice-fair-2";

class Stream {
  constructor(hmac, label) { this.hmac = hmac; this.label = label; this.index = 0; this.buffer = new Uint8Array(0); }
  async word() {
    if (this.buffer.length < 8) {
      const block = await this.hmac(enc.encode(this.label + ":" + this.index++));
      this.buffer = concat(this.buffer, block);
    }
    let x = 0n;
    for (let i = 0; i < 8; i++) x = (x << 8n) | BigInt(this.buffer[i]);
    this.buffer = this.buffer.slice(8);
    return x;
  }
  async draw(m) {
    const M = BigInt(m);
    const bound = (2n ** 64n / M) * M;
    for (;;) {
      const x = await this.word();
      if (x < bound) return Number(x % M);
    }
  }
}

// A seat's commitment to its seed (fair-2): sha256 of its UTF-8, in hex.
export async function seedHash(seed) { return bytesToHex(await sha256(enc.encode(seed))); }

function counts(list) {
  const c = new Map();
  for (const x of list) c.set(x, (c.get(x) || 0) + 1);
  return c;
}
function sameMultiset(a, b) {
  if (!Array.isArray(a) || a.length !== b.length) return false;
  const ca = counts(a);
  const cb = counts(b);
  for (const [k, v] of ca) if (cb.get(k) !== v) return false;
  return true;
}
const isHex = (x, n) => typeof x === "string" && x.length === n && /^[0-9a-f]*$/i.test(x);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

class Refused extends Error {
  constructor(message, where = {}) { super(message); Object.assign(this, where); }
}

// RULES.md's open points as a record plays them (its "rule_options", docs/RECORD.md):
// starter(first, r, n), the start player of round r (R5), and setsColour(kind, q), whether
// the q-th roll (from 0) of a die of `kind` sets the colour of a trick that has none (R9).
// A record without them plays the defaults; anything else under the key is refused with
// `Fail` (each checker's own error class).
export function ruleOptions(record, Fail) {
  const options = record.rule_options === undefined ? {} : record.rule_options;
  if (!options || typeof options !== "object" || Array.isArray(options)
      || Object.keys(options).some((k) => k !== "start" && k !== "special_lead")) {
    throw new Fail("rule_options: an object of start and special_lead");
  }
  const start = options.start === undefined ? "rotate" : options.start;
  const lead = options.special_lead === undefined ? "first-number" : options.special_lead;
  if (!["rotate", "fixed"].includes(start)) throw new Fail("rule_options: start is rotate or fixed (R5)");
  if (!["first-number", "no-colour"].includes(lead)) throw new Fail("rule_options: special_lead is first-number or no-colour (R9)");
  return {
    starter: (first, r, n) => (start === "fixed" ? first : (first + r - 1) % n),
    setsColour: (kind, q) => !kind.special && (q === 0 || lead === "first-number"),
  };
}

// R10 and R14 for one trick, given as [{player, die, face}] with the faces as strings:
// {winner: the roll's index, bonus, reason, beaten} (reason: the names of the engine's
// rules.Reason, which the table's words translate; beaten: the symbol a symbol beat).
export function resolve(rolls, symbols) {
  const role = rolls.map((r) => symbols.indexOf(String(r.face)));
  const shown = new Set(role.filter((x) => x >= 0));
  if (shown.size) {
    // minotaur (0) beats griffin (1), griffin beats mermaid (2), mermaid beats minotaur
    const win = shown.size === 3 ? 2 : shown.size === 1 ? [...shown][0]
      : shown.has(0) && shown.has(1) ? 0 : shown.has(1) ? 1 : 2;
    const index = role.lastIndexOf(win);
    const bonus = win === 0 ? 30 * role.filter((x) => x === 1).length
      : win === 2 && shown.has(0) ? 50 : 0;
    const other = [...shown].find((x) => x !== win);
    const reason = shown.size === 3 ? "all-three" : shown.size === 2 ? "beats"
      : role.filter((x) => x === win).length > 1 ? "same-symbol" : "only-symbol";
    return { winner: index, bonus, reason, beaten: shown.size === 2 ? symbols[other] : undefined };
  }
  let best = 0;
  let index = 0;
  rolls.forEach((r, i) => {
    const v = r.face === "flag" ? 0 : Number(r.face);
    if (v > 0 && v >= best) { best = v; index = i; }
  });
  const tied = best > 0 && rolls.filter((r) => Number(r.face) === best).length > 1;
  return { winner: index, bonus: 0, reason: best ? (tied ? "tie" : "highest") : "only-flags" };
}

// Check a finished game's record: its fairness key, what this device kept (`mine`:
// {table, seat, seed, commit, hashes}, any of them missing), and the game as the page saw
// it live (`seen`: the final view, whose history holds every round's bids and totals).
// Returns {ok, deals, rolls, totals} or {ok: false, round, trick, roll, message}.
export async function verifyRecord(record, diceSet, mine = {}, seen = null) {
  try {
    return await check(record, diceSet, mine || {}, seen);
  } catch (err) {
    if (err instanceof Refused) return { ok: false, ...err, message: err.message };
    return { ok: false, message: "not a record: " + err.message };
  }
}

async function check(record, diceSet, mine, seen) {
  const fair = record.fairness;
  if (!fair || (fair.scheme !== FAIR1 && fair.scheme !== FAIR2)) throw new Refused("no minodice-fair proof in this record");
  const players = record.players;
  const n = Array.isArray(players) ? players.length : 0;
  if (!ROUNDS[n] || players.some((p) => typeof p !== "string" || !p || p.length > 32) || new Set(players).size !== n) {
    throw new Refused("the players are not 3 to 6 distinct names of at most 32 characters");
  }
  if ((record.dice_set || "mino") !== diceSet.name) throw new Refused("the record is of another dice set");
  const seeds = fair.client_seeds;
  if (!isHex(fair.server_seed, 64) || !Array.isArray(seeds) || seeds.length !== n || seeds.some((s) => typeof s !== "string")) {
    throw new Refused("the fairness key is malformed");
  }
  const seed = hexToBytes(fair.server_seed);
  const commit = String(fair.commit).toLowerCase();
  if (bytesToHex(await sha256(seed)) !== commit) throw new Refused("the revealed seed does not match the commitment");
  if (mine.commit && mine.commit !== commit) {
    throw new Refused(`this is not the game you saw: its commitment ${commit.slice(0, 12)}… is not the ${String(mine.commit).slice(0, 12)}… shown before the first roll`);
  }
  const mac = async (key, text) => (await hmacFor(key))(enc.encode(text));
  let key;
  if (fair.scheme === FAIR2) {
    const hashes = fair.client_seed_hashes;
    const replaced = fair.replaced;
    if (!Array.isArray(hashes) || hashes.length !== n || !Array.isArray(replaced)) throw new Refused("the fairness key is malformed");
    if (mine.table && fair.table !== mine.table) throw new Refused("this record is of another table");
    if (mine.hashes && !same(mine.hashes, hashes)) throw new Refused("the seeds' commitments are not those published before any seed was revealed");
    for (let p = 0; p < n; p++) {
      if (replaced.includes(p)) {
        const want = bytesToHex(await mac(seed, `${FAIR2}:replace:${p}`)).slice(0, 32);
        if (seeds[p] !== want) throw new Refused(`${players[p]}'s seed was replaced, but not by the one the server seed fixes`);
      } else if (await seedHash(seeds[p]) !== String(hashes[p]).toLowerCase()) {
        throw new Refused(`${players[p]}'s revealed seed does not match their commitment`);
      }
    }
    if (mine.seed != null && !replaced.includes(mine.seat) && seeds[mine.seat] !== mine.seed) {
      throw new Refused("your own seed is not the one in the record");
    }
    const starter = new Stream(await hmacFor(await mac(seed, `${FAIR2}:first-starter`)), FAIR2);
    if (record.first_starter !== await starter.draw(n)) throw new Refused("the first start player is not the one the server seed fixes");
    key = await mac(seed, JSON.stringify([FAIR2, fair.table, diceSet.name, record.variant || "standard", players, seeds]));
  } else {
    if (mine.seed != null && seeds[mine.seat] !== mine.seed) throw new Refused("your own seed is not the one in the record");
    key = await sha256(concat(seed, enc.encode("|" + seeds.join("|"))));
  }
  const stream = new Stream(await hmacFor(key), fair.scheme);
  return replay(record, diceSet, stream, seen);
}

async function replay(record, diceSet, stream, seen) {
  const players = record.players;
  const n = players.length;
  const kinds = Object.fromEntries(diceSet.kinds.map((k) => [k.name, { ...k, faces: k.faces.map(String) }]));
  const bagOrder = diceSet.kinds.flatMap((k) => Array(k.count).fill(k.name));
  const first = record.first_starter === undefined ? 0 : record.first_starter;
  const rounds = record.rounds;
  if (!Number.isInteger(first) || first < 0 || first >= n) throw new Refused("the first start player is no seat (R5)");
  const rules = ruleOptions(record, Refused);
  if (!Array.isArray(rounds) || rounds.length !== ROUNDS[n]) {
    throw new Refused(`the record has ${Array.isArray(rounds) ? rounds.length : 0} of ${ROUNDS[n]} rounds: not a finished game`);
  }
  const totals = Array(n).fill(0);
  let rolls = 0;
  for (let r = 1; r <= rounds.length; r++) {
    const round = rounds[r - 1];
    const bag = bagOrder.slice();
    for (let i = bag.length - 1; i > 0; i--) {
      const j = await stream.draw(i + 1);
      [bag[i], bag[j]] = [bag[j], bag[i]];
    }
    const held = [];
    for (let p = 0; p < n; p++) {
      if (!sameMultiset(round.hands[p], bag.slice(p * r, (p + 1) * r))) {
        throw new Refused(`round ${r}: the hand of ${players[p]} does not follow from the seeds`, { round: r, player: p });
      }
      held.push(round.hands[p].slice());
    }
    const bids = round.bids;
    if (!Array.isArray(bids) || bids.length !== n || bids.some((b) => !Number.isInteger(b) || b < 0 || b > r)) {
      throw new Refused(`round ${r}: not one bid of 0 to ${r} per player (R6)`, { round: r });
    }
    const tricks = round.tricks;
    if (!Array.isArray(tricks) || tricks.length !== r) throw new Refused(`round ${r} has not its ${r} tricks: not a finished game`, { round: r });
    const won = Array(n).fill(0);
    const bonus = Array(n).fill(0);
    let leader = rules.starter(first, r, n);
    for (let t = 1; t <= r; t++) {
      const trick = tricks[t - 1];
      if (!Array.isArray(trick) || trick.length !== n) throw new Refused(`round ${r}, trick ${t}: not one roll per player (R8)`, { round: r, trick: t });
      let follow = null;
      const shown = [];
      for (let q = 1; q <= n; q++) {
        const roll = trick[q - 1] || {};
        const where = { round: r, trick: t, roll: q, player: roll.player };
        const at = `round ${r}, trick ${t}, roll ${q}`;
        const p = (leader + q - 1) % n;
        if (roll.player !== p) throw new Refused(`${at}: ${players[p]} rolls now, not another (R7, R8)`, where);
        const kind = kinds[roll.die];
        const index = held[p].indexOf(roll.die);
        if (!kind || index < 0) throw new Refused(`${at}: ${players[p]} holds no ${String(roll.die).slice(0, 20)} die (R8)`, where);
        if (follow && !kind.special && roll.die !== follow && held[p].includes(follow)) {
          throw new Refused(`${at}: ${players[p]} must follow ${follow} (R9)`, where);
        }
        held[p].splice(index, 1);
        if (!follow && rules.setsColour(kind, q - 1)) follow = roll.die;
        const face = kind.faces[await stream.draw(6)];
        if (String(roll.face) !== face) throw new Refused(`${at}: shows ${String(roll.face).slice(0, 20)}, the seeds roll ${face}`, where);
        shown.push({ player: p, die: roll.die, face });
        rolls++;
      }
      const result = resolve(shown, diceSet.symbols);
      leader = shown[result.winner].player;
      won[leader]++;
      bonus[leader] += result.bonus;
    }
    for (let p = 0; p < n; p++) totals[p] += roundPoints(bids[p], won[p], r, bonus[p], record.variant || "standard").points;
    const live = seen && seen.history && seen.history[r - 1];
    if (live && (!same(live.bids, bids) || !same(live.totals, totals))) {
      throw new Refused(`round ${r}: the record's bids or scores are not those shown during the game`, { round: r });
    }
  }
  if ((record.fairness.scheme === FAIR2 || record.totals !== undefined) && !same(record.totals, totals)) {
    throw new Refused("the record's totals are not what its bids and tricks score");
  }
  if (seen && seen.totals && !same(seen.totals, totals)) throw new Refused("the final scores are not those shown during the game");
  return { ok: true, deals: rounds.length, rolls, totals };
}
