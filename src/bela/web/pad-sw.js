// @ts-check
// The score pad's service worker (served as /pad-sw.js, scope /pad): the pad works offline
// once loaded.  The page, its modules, the styles and the icon are answered from the cache
// first (and refreshed from the network behind it, so a new version arrives on the next
// load); the rules (GET /api/pad/rules) from the network first, the last answer kept for
// when there is none.  Nothing else is touched: the pad's server calls go to the network.

/** The worker's global scope (the file runs as a service worker, never as a page's module). */
const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

const CACHE = "bela-pad-v2";
const RULES = "/api/pad/rules";
const FILES = [
  "/pad",
  "/web/pad.js",
  "/web/pad-state.js",
  "/web/pad-bound.js",
  "/web/pad-score.js",
  "/web/pad.css",
  "/web/i18n.js",
  "/web/i18n/hr.json",
  "/web/i18n/en.json",
  "/web/cards.js",
  "/web/api.js",
  "/web/util.js",
  "/web/html.js",
  "/web/prefs.js",
  "/web/style.css",
  "/web/favicon.svg",
];

sw.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll([...FILES, RULES]);
    await sw.skipWaiting();
  })());
});

sw.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("bela-pad-") && name !== CACHE) await caches.delete(name);
    }
    await sw.clients.claim();
  })());
});

async function cacheFirst(request, path) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(path);
  const fresh = fetch(request).then((r) => {
    if (r.ok) cache.put(path, r.clone());
    return r;
  });
  if (kept) {
    fresh.catch(() => null); // offline: the kept copy is the answer
    return kept;
  }
  return fresh;
}

async function networkFirst(request, path) {
  const cache = await caches.open(CACHE);
  try {
    const r = await fetch(request);
    if (r.ok) await cache.put(path, r.clone());
    return r;
  } catch (err) {
    const kept = await cache.match(path);
    if (kept) return kept;
    throw err;
  }
}

sw.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== sw.location.origin) return;
  if (url.pathname === RULES) event.respondWith(networkFirst(request, RULES));
  else if (FILES.includes(url.pathname)) event.respondWith(cacheFirst(request, url.pathname));
});
