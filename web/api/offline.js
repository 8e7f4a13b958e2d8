// Registers the service worker and reports whether this build is fully cached for offline use.

const PREFIX = 'readingroom-';

async function precacheComplete(version) {
  const name = PREFIX + version;
  if (!(await caches.has(name))) return false; // caches.open would create it empty
  const cache = await caches.open(name);
  return Boolean(await cache.match(new URL('__precache-complete__', location.href).href));
}

/**
 * onChange receives {offlineReady, progress?, updateReady?, error?} whenever that changes.
 * `version` is the build this page runs (from build-manifest.json).
 */
export async function setupOffline(version, onChange) {
  if (!('serviceWorker' in navigator) || !('caches' in self)) {
    onChange({ offlineReady: false, error: 'this browser cannot keep the app for offline use' });
    return;
  }
  // The worker says "activated" (and claims the page) from inside its activate event, while its
  // state is still 'activating': wait for the state itself, or a check made then says "not yet"
  // and nothing would ever ask again.
  const activated = (worker) => new Promise((resolve) => {
    const settle = () => {
      if (worker.state !== 'activated' && worker.state !== 'redundant') return;
      worker.removeEventListener('statechange', settle);
      resolve(worker.state === 'activated');
    };
    worker.addEventListener('statechange', settle);
    settle();
  });
  const check = async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    const active = registration?.active ? await activated(registration.active) : false;
    onChange({ offlineReady: active && (await precacheComplete(version)) });
  };
  navigator.serviceWorker.addEventListener('message', (event) => {
    const msg = event.data ?? {};
    if (msg.type === 'sw-progress') onChange({ progress: { done: msg.done, total: msg.total } });
    if (msg.type === 'sw-activated') {
      if (msg.version === version) check();
      else onChange({ offlineReady: false, updateReady: true });
    }
  });
  navigator.serviceWorker.addEventListener('controllerchange', check);
  try {
    await navigator.serviceWorker.register('sw.js');
  } catch (err) {
    onChange({ offlineReady: false, error: `offline cache unavailable: ${err.message}` });
    return;
  }
  await navigator.serviceWorker.ready;
  await check();
}

/**
 * Deletes the saved copies of the model files (every build's cache) and fetches them again from
 * this site, checked against the build's integrity hashes, into this build's cache. onFile(done,
 * total) after each file. Rejects when a file cannot be fetched (offline, or a bad download).
 */
export async function refetchModelFiles(manifest, onFile = () => {}) {
  const files = manifest.assets.filter((a) => a.path.startsWith('models/'));
  const urls = files.map((a) => new URL(a.path, location.href).href);
  if ('caches' in self) {
    for (const name of await caches.keys()) {
      if (!name.startsWith(PREFIX)) continue;
      const cache = await caches.open(name);
      for (const url of urls) await cache.delete(url);
    }
  }
  const cache = 'caches' in self && (await caches.has(PREFIX + manifest.version))
    ? await caches.open(PREFIX + manifest.version) : null;
  let done = 0;
  for (const [i, asset] of files.entries()) {
    const response = await fetch(urls[i], { cache: 'no-store', integrity: asset.integrity });
    if (!response.ok) throw new Error(`${asset.path}: HTTP ${response.status}`);
    if (cache) await cache.put(urls[i], response);
    else await response.arrayBuffer();
    onFile(++done, files.length);
  }
}
