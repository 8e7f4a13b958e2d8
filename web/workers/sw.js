// Service worker: precache every asset of one build, then serve cache-first so the app works
// offline. build.py writes the build's content hash into VERSION; a new hash is a new worker.

const VERSION = '__BUILD_VERSION__';
const PREFIX = 'readingroom-';
const CACHE = PREFIX + VERSION;
const scoped = (path) => new URL(path, self.registration.scope).href;
const MANIFEST_URL = scoped('build-manifest.json');
// Written last: its presence means every asset of this version is in the cache.
const COMPLETE_URL = scoped('__precache-complete__');
const PARALLEL = 4;

async function tell(message) {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true })) client.postMessage(message);
}

/** Responses from older caches whose bytes this build still ships, keyed by path. */
async function reusable(manifest) {
  const wanted = new Map(manifest.assets.map((a) => [a.path, a.sha256]));
  const found = new Map();
  for (const name of await caches.keys()) {
    if (!name.startsWith(PREFIX) || name === CACHE) continue;
    const old = await caches.open(name);
    const oldManifest = await (await old.match(MANIFEST_URL))?.json().catch(() => null);
    for (const asset of oldManifest?.assets ?? []) {
      if (wanted.get(asset.path) === asset.sha256 && !found.has(asset.path)) {
        const response = await old.match(scoped(asset.path));
        if (response) found.set(asset.path, response);
      }
    }
  }
  return found;
}

async function precache() {
  const manifest = await (await fetch(`${MANIFEST_URL}?v=${VERSION}`, { cache: 'no-store' })).json();
  if (manifest.version !== VERSION) throw new Error(`build-manifest.json is ${manifest.version}, expected ${VERSION}`);
  const cache = await caches.open(CACHE);
  const old = await reusable(manifest);
  const todo = [...manifest.assets];
  let done = 0;
  const worker = async () => {
    for (let asset = todo.shift(); asset; asset = todo.shift()) {
      const url = scoped(asset.path);
      if (!(await cache.match(url))) {
        let response = old.get(asset.path);
        if (!response) {
          // integrity: a truncated or swapped file fails here instead of being served offline.
          response = await fetch(url, { cache: 'no-store', integrity: asset.integrity });
          if (!response.ok) throw new Error(`${asset.path}: HTTP ${response.status}`);
        }
        await cache.put(url, response);
      }
      done += 1;
      tell({ type: 'sw-progress', version: VERSION, done, total: manifest.assets.length });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const index = await cache.match(scoped('index.html'));
  if (index) await cache.put(scoped('./'), index);
  await cache.put(MANIFEST_URL, new Response(JSON.stringify(manifest), { headers: { 'Content-Type': 'application/json' } }));
  await cache.put(COMPLETE_URL, new Response(VERSION));
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
    await tell({ type: 'sw-activated', version: VERSION });
  })());
});

// Cross-origin isolation (build.py ISOLATION_HEADERS): added to every response served here, so a
// static host that sends no such headers still gives the page SharedArrayBuffer (wasm threads)
// from the second visit on. A page opened with ?isolation=off is served without them (and without
// those the server sent), which keeps the one-thread path reachable for tests and comparisons.
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

function withIsolation(response, isolate) {
  if (response.type === 'opaque' || response.type === 'opaqueredirect' || response.status === 0) return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  for (const [name, value] of Object.entries(ISOLATION)) {
    if (isolate) headers.set(name, value);
    else headers.delete(name);
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

// Only a document's and a worker's own script decide isolation; everything else (wasm, wheels, the
// model, modules) is same-origin and goes back exactly as cached. A response rebuilt with new
// headers is a new response to the browser, so Chromium could not keep the compiled code of the
// wasm files (pyodide.asm.wasm, sqlite3.wasm, onnxruntime's) beside the cached bytes, and compiled
// them afresh on every visit.
const DECIDES_ISOLATION = new Set(['document', 'iframe', 'worker', 'sharedworker']);

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const url = new URL(request.url);
    const navigate = request.mode === 'navigate';
    const key = navigate && url.pathname.endsWith('/') ? scoped('./') : request;
    // OCR's files are not precached: web/api/ocr.js keeps them, checked, in their own cache.
    // A worker's script is the same file whatever its query (the retrieval worker's ?opfs-disable).
    const cached = (await cache.match(key, { ignoreSearch: request.destination === 'worker' }))
      ?? (navigate ? undefined : await caches.match(request, { cacheName: 'ocr-assets' }));
    if (cached && !navigate && !DECIDES_ISOLATION.has(request.destination)) return cached;
    const response = cached ?? (await fetch(request));
    return withIsolation(response, !url.searchParams.getAll('isolation').includes('off'));
  })());
});
