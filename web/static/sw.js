/* warref: a minimal service worker. Caches the static shell so the dashboard opens (and can be
   installed) even when the server is briefly away; the API and the WebSocket always go to the
   network, because a referee's rulings must never come from a stale cache. */
const CACHE = "warref-shell-v5";
const SHELL = ["./", "index.html", "app.css", "i18n.js", "i18n/pt.json", "dom.js", "app.js", "manifest.webmanifest", "icon.svg", "icon-maskable.svg",
               "icon-180.png", "icon-192.png", "icon-512.png", "icon-maskable-512.png"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/") || url.pathname === "/ws") return;
  // Network first (so an update shows at once), the cached shell when the network fails.
  event.respondWith(fetch(event.request).then((res) => {
    if (res.ok) { const copy = res.clone(); caches.open(CACHE).then((c) => c.put(event.request, copy)); }
    return res;
  }).catch(() => caches.match(event.request).then((hit) => hit || caches.match("index.html"))));
});
