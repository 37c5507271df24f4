// @ts-check
// The rider app's service worker (served at /rider-sw.js, scope /rider): keeps the app shell so /rider opens with no
// network at all. The page and its files: the network first (always fresh when online), the cache when offline.
// Map tiles: the cache first (they change only with the map), a bounded number. The API is never cached.
// A new name whenever the list's addresses change: activation deletes every other cache, the old copies with it.
const SHELL = 'rider-shell-v6';
const TILES = 'rider-tiles-v1';
const MAX_TILES = 400;
const FILES = [
  '/rider',
  '/web/Rider/rider.css', '/web/Rider/rider.js', '/web/Rider/rider-notice.js', '/web/Rider/rider-screens.js',
  '/web/Rider/rider-taps.js', '/web/Rider/rider-i18n.js', '/web/Rider/rider-store.js',
  '/web/Rider/rider.webmanifest', '/web/Rider/rider-icon-192.png', '/web/Rider/rider-icon-512.png',
  '/web/Rider/Connection/rider-state.js', '/web/Rider/Connection/rider-session.js',
  '/web/Rider/Connection/rider-sign-in.js', '/web/Rider/Connection/rider-stream.js',
  '/web/Rider/Connection/rider-api.js', '/web/Rider/Connection/rider-queue.js', '/web/Rider/Connection/rider-geo.js',
  '/web/Rider/Connection/rider-fixes.js',
  '/web/Rider/Delivery/rider-offers.js', '/web/Rider/Delivery/rider-task.js', '/web/Rider/Delivery/rider-proof-screen.js',
  '/web/Rider/Delivery/rider-location.js', '/web/Rider/Delivery/rider-report.js',
  '/web/Rider/Delivery/rider-task-end.js',
  '/web/Rider/Delivery/rider-proof.js',
  '/web/Rider/Navigation/rider-nav.js', '/web/Rider/Navigation/rider-nav-map.js', '/web/Rider/Navigation/rider-nav-words.js',
  '/web/Rider/Navigation/rider-nav-voice.js', '/web/Rider/Navigation/rider-route.js',
  '/web/Shared/map.js', '/web/Shared/sign-in.js',
];
// The global of a service worker, which TypeScript's webworker types call a plain worker's.
const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
// How long the network may take before a cached copy is used instead (a weak signal is not worth waiting on).
const PATIENCE_MS = 4000;

worker.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL);
    // One by one, so one missing file does not leave the rest uncached.
    await Promise.all(FILES.map(async (path) => {
      try {
        const response = await fetch(path, { cache: 'no-store', credentials: 'omit' });
        if (response.ok) await cache.put(path, response);
      } catch (error) {
        // Fetched again on the next visit.
      }
    }));
    await worker.skipWaiting();
  })());
});

worker.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (![SHELL, TILES].includes(name)) await caches.delete(name);
    }
    await worker.clients.claim();
  })());
});

function shellKey(url) {
  if (url.pathname === '/rider' || url.pathname === '/rider/') return '/rider';
  if (FILES.includes(url.pathname)) return url.pathname;
  return null;
}

async function networkFirst(request, key) {
  const cache = await caches.open(SHELL);
  if (worker.navigator && worker.navigator.onLine === false) {
    const cached = await cache.match(key, { ignoreVary: true });
    if (cached) return cached;
  }
  const network = fetch(request).then(async (response) => {
    if (response.ok) await cache.put(key, response.clone());
    return response;
  });
  network.catch(() => {}); // answered below, whichever comes first
  const slow = new Promise((resolve) => setTimeout(resolve, PATIENCE_MS, null));
  try {
    const first = await Promise.race([network, slow]);
    if (first) return first;
    const cached = await cache.match(key, { ignoreVary: true });
    return cached || (await network);
  } catch (error) {
    const cached = await cache.match(key, { ignoreVary: true });
    if (cached) return cached;
    throw error;
  }
}

async function tile(request) {
  const cache = await caches.open(TILES);
  const cached = await cache.match(request, { ignoreVary: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) {
    await cache.put(request, response.clone());
    const keys = await cache.keys();
    for (const old of keys.slice(0, Math.max(0, keys.length - MAX_TILES))) await cache.delete(old);
  }
  return response;
}

worker.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== worker.location.origin) return;
  if (url.pathname.startsWith('/api/')) return; // the API is never cached
  if (url.pathname.startsWith('/map/tiles/')) {
    event.respondWith(tile(request));
    return;
  }
  const key = shellKey(url);
  if (key) event.respondWith(networkFirst(request, key));
});
