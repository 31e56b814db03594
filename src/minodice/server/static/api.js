// The server's HTTP side (docs/PROTOCOL.md) and what the page keeps on this device.
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

// Take a seat and remember its token on this device (a reload keeps the seat).
export async function takeSeat(table, name, extra = {}) {
  const seat = await api("POST", `/api/tables/${table}/seats`, { name, client_seed: randomHex(16), ...extra });
  store.set(`seat.${table}`, { seat: seat.seat, token: seat.token });
  store.set("name", name);
  return seat;
}

const dice = {};
export async function diceSet(edition) {
  if (!dice[edition]) dice[edition] = await api("GET", `/api/dice/${edition}`);
  return dice[edition];
}
