// The server's HTTP side (docs/PROTOCOL.md) and what the page keeps on this device.
import { seedHash } from "./fair.js";
import { _ } from "./i18n.js";

export class ApiError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

export async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method, headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    throw new ApiError("offline", _("The server cannot be reached. Check your connection and try again."));
  }
  let data = null;
  try { data = await response.json(); } catch (err) { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || "error", error.message || _("The server refused this."));
  }
  return data;
}

export const store = {
  get(key, fallback = null) {
    try { const v = localStorage.getItem("minodice." + key); return v === null ? fallback : JSON.parse(v); }
    catch (err) { return fallback; }
  },
  set(key, value) {
    try { localStorage.setItem("minodice." + key, JSON.stringify(value)); } catch (err) { /* private mode */ }
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

// Take a seat and remember its token and seed on this device (a reload keeps the seat).
export async function takeSeat(table, name, extra = {}, commit = null) {
  const { seed, hash } = await newSeed();
  const seat = await api("POST", `/api/tables/${table}/seats`, { name, client_seed_hash: hash, ...extra });
  store.set(`seat.${table}`, { seat: seat.seat, token: seat.token });
  keepFair(table, { seed, hash, seat: seat.seat, commit });
  store.set("name", name);
  return seat;
}

const dice = {};
export async function diceSet(edition) {
  if (!dice[edition]) dice[edition] = await api("GET", `/api/dice/${edition}`);
  return dice[edition];
}
