// Kafka Visualiser's service worker: after one visit the page works offline.
// It keeps copies of the page's own files (same origin only, GET only) and
// never talks to another host. Network first, so a new build shows at once
// when online; the cached copy when not.
// Named after the build by scripts/post_build.py (a digest of index.html):
// each deploy installs a new worker, and `activate` below deletes the
// previous build's cache. Unbuilt, it keeps this name.
const CACHE = 'kafka-visualiser-dev';
// The Examples menu's scenarios read from scenarios/ (the page's EXAMPLES;
// a test checks the two lists agree). The first is built into the page.
const EXAMPLES = ['hw-truncation.json', 'kip101-divergence.json', 'kip101-epochs.json', 'group-rebalance.json', 'kraft-controller-failover.json', 'kraft-leader-failover.json'];

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const res = await fetch('./', { cache: 'no-cache' });
    const html = await res.clone().text();
    await cache.put('./', res);
    const files = [...html.matchAll(/(?:href|src)="([^"]+\.(?:js|wasm|css))"/g)].map((m) => m[1]);
    await cache.addAll(files);
    try {
      await cache.addAll(EXAMPLES.map((f) => './scenarios/' + f));
    } catch (noExamples) { /* a page without its scenarios/ folder still works */ }
    // The lesson library, so every lesson opens offline too.
    try {
      const index = await fetch('./lessons/index.json', { cache: 'no-cache' });
      if (index.ok) {
        const list = await index.clone().json();
        await cache.put('./lessons/index.json', index);
        await cache.addAll(list.lessons.map((l) => './lessons/' + l.file));
      }
    } catch (noLessons) { /* a page without its lessons/ folder still works */ }
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith((async () => {
    try {
      const fresh = await fetch(event.request);
      if (fresh.ok) {
        const cache = await caches.open(CACHE);
        await cache.put(event.request, fresh.clone());
      }
      return fresh;
    } catch (offline) {
      const hit = (await caches.match(event.request, { ignoreSearch: true }))
        || (event.request.mode === 'navigate' ? await caches.match('./') : undefined);
      if (hit) return hit;
      throw offline;
    }
  })());
});
