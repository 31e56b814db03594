// minodice-fair-1 (docs/PROTOCOL.md), checked in the browser: the page trusts no server
// to say its dice were fair; it recomputes every deal and roll from the revealed seeds.
// WebCrypto does the hashing where the page is a secure context (https, localhost); on a
// plain-http address in a home network it is missing, so a small SHA-256 stands in.

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

async function sha256(data) {
  return subtle ? new Uint8Array(await subtle.digest("SHA-256", data)) : sha256Plain(data);
}

async function hmacFor(key) {
  if (!subtle) return async (message) => hmacPlain(key, message);
  const cryptoKey = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" },
    false, ["sign"]);
  return async (message) => new Uint8Array(await subtle.sign("HMAC", cryptoKey, message));
}

// -- the stream, deals and rolls -----------------------------------------------------------

class Stream {
  constructor(hmac) { this.hmac = hmac; this.index = 0; this.buffer = new Uint8Array(0); }
  async word() {
    if (this.buffer.length < 8) {
      const block = await this.hmac(enc.encode("minodice-fair-1:" + this.index++));
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

function counts(list) {
  const c = new Map();
  for (const x of list) c.set(x, (c.get(x) || 0) + 1);
  return c;
}
function sameMultiset(a, b) {
  if (a.length !== b.length) return false;
  const ca = counts(a);
  const cb = counts(b);
  for (const [k, v] of ca) if (cb.get(k) !== v) return false;
  return true;
}

// Check a finished game's record against its "fairness" key and the dice set (the server's
// /api/dice/EDITION: kinds in bag order with counts and faces). Returns
// {ok, deals, rolls} or {ok: false, round, trick, roll, message}.
export async function verifyRecord(record, diceSet) {
  const fair = record.fairness;
  if (!fair || fair.scheme !== "minodice-fair-1") {
    return { ok: false, message: "no minodice-fair-1 proof in this record" };
  }
  const seed = hexToBytes(fair.server_seed);
  if (bytesToHex(await sha256(seed)) !== String(fair.commit).toLowerCase()) {
    return { ok: false, message: "the revealed seed does not match the commitment" };
  }
  const key = await sha256(concat(seed, enc.encode("|" + fair.client_seeds.join("|"))));
  const stream = new Stream(await hmacFor(key));
  const faces = Object.fromEntries(diceSet.kinds.map((k) => [k.name, k.faces.map(String)]));
  const bagOrder = diceSet.kinds.flatMap((k) => Array(k.count).fill(k.name));
  const players = record.players.length;
  let rolls = 0;
  for (let r = 1; r <= record.rounds.length; r++) {
    const round = record.rounds[r - 1];
    const bag = bagOrder.slice();
    for (let i = bag.length - 1; i > 0; i--) {
      const j = await stream.draw(i + 1);
      [bag[i], bag[j]] = [bag[j], bag[i]];
    }
    for (let p = 0; p < players; p++) {
      if (!sameMultiset(round.hands[p], bag.slice(p * r, (p + 1) * r))) {
        return { ok: false, round: r, trick: null, roll: null, player: p,
          message: `round ${r}: the hand of ${record.players[p]} does not follow from the seeds` };
      }
    }
    const tricks = round.tricks || [];
    for (let t = 0; t < tricks.length; t++) {
      for (let q = 0; q < tricks[t].length; q++) {
        const roll = tricks[t][q];
        const face = faces[roll.die][await stream.draw(6)];
        if (String(roll.face) !== face) {
          return { ok: false, round: r, trick: t + 1, roll: q + 1, player: roll.player,
            message: `round ${r}, trick ${t + 1}, roll ${q + 1}: shows ${roll.face}, the seeds roll ${face}` };
        }
        rolls++;
      }
    }
  }
  return { ok: true, deals: record.rounds.length, rolls };
}
