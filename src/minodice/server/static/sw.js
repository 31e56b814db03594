// The service worker: the score pad (and every page once seen) keeps working offline.
// Pages, scripts, styles, translations and dice sets: from the network when it answers,
// else from the copy kept here. Live play (WebSockets, tables) always needs the network.
const CACHE = "minodice-v1";
const SHELL = ["/pad", "/static/app.js", "/static/style.css", "/static/api.js", "/static/dom.js",
  "/static/i18n.js", "/static/dice.js", "/static/pad.js", "/static/pad-score.js", "/static/odds.js",
  "/static/table.js", "/static/signal.js", "/static/fair.js", "/static/mine.js", "/static/extras.js",
  "/static/replay.css", "/static/icon.svg", "/static/manifest.webmanifest", "/meta.js"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

function keep(request) {
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return false;
  if (url.pathname.startsWith("/api/tables") || url.pathname.startsWith("/ws/")) return false;
  return true;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (!keep(request)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok) cache.put(request, response.clone());
      return response;
    } catch (err) {
      const url = new URL(request.url);
      // Every page is the same document: any page's copy serves an offline navigation.
      const kept = await cache.match(request, { ignoreSearch: request.mode === "navigate" })
        || (request.mode === "navigate" ? await cache.match("/pad") : undefined);
      if (kept) return keptCopy(kept);
      throw err;
    }
  })());
});

// A kept copy says so (its Date header is the day it was kept: the page must not read the
// server's clock from it).
function keptCopy(response) {
  const headers = new Headers(response.headers);
  headers.set("x-minodice-kept", "1");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
