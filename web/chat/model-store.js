// The in-browser chat model's file: downloaded on first use, checked, kept for offline use.
//
// The GGUF is ~145 MB, so the service worker does not precache it (build.py leaves it out of
// build-manifest.json's `assets`); only people who use the in-browser model download it. It is
// then kept in its own Cache Storage cache, keyed by its sha256, so it survives new builds of
// the app (the service worker only deletes caches named readingroom-*) and works offline.

const CACHE_NAME = 'chat-models';

const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

function cacheKey(url, sha256) {
  const key = new URL(url, location.href);
  key.search = `sha256=${sha256}`;
  return key.href;
}

async function openCache() {
  try {
    return 'caches' in self ? await caches.open(CACHE_NAME) : null;
  } catch {
    return null; // e.g. storage blocked: download every time instead
  }
}

/** Whether the model file is already stored in this browser (no download needed). */
export async function isStored({ path, sha256 }) {
  const cache = await openCache();
  return Boolean(await cache?.match(cacheKey(path, sha256)));
}

async function verify(blob, sha256) {
  if (!crypto?.subtle) return; // not a secure context: nothing to check with
  const actual = hex(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
  if (actual !== sha256) {
    throw new Error(`the downloaded model file is damaged (sha256 ${actual.slice(0, 12)}…, expected ${sha256.slice(0, 12)}…); try again`);
  }
}

/**
 * Returns {blob, stored} for the model described by the manifest's `chat.model`
 * ({path, size, sha256}). onProgress({loaded, total}) is called while downloading.
 */
export async function loadModelFile({ path, size, sha256 }, { onProgress, signal } = {}) {
  const cache = await openCache();
  const key = cacheKey(path, sha256);
  const hit = await cache?.match(key);
  if (hit) {
    const blob = await hit.blob();
    if (blob.size === size) return { blob, stored: true };
    await cache.delete(key);
  }

  let response;
  try {
    response = await fetch(new URL(path, location.href), { signal, cache: 'no-store' });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new Error(navigator.onLine === false
      ? 'the model has not been downloaded yet and this browser is offline; connect once to download it'
      : `the model could not be downloaded (${err.message || err})`);
  }
  if (!response.ok) throw new Error(`the model could not be downloaded (HTTP ${response.status})`);
  const total = Number(response.headers.get('Content-Length')) || size;
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  onProgress?.({ loaded, total });
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress?.({ loaded, total });
  }
  const blob = new Blob(chunks, { type: 'application/octet-stream' });
  chunks.length = 0;
  if (blob.size !== size) throw new Error(`the model download is incomplete (${blob.size} of ${size} bytes); try again`);
  await verify(blob, sha256);

  let stored = false;
  if (cache) {
    try {
      for (const old of await cache.keys()) {
        if (old.url !== key) await cache.delete(old);
      }
      await cache.put(key, new Response(blob, { headers: { 'Content-Type': 'application/octet-stream' } }));
      stored = true;
    } catch {
      // quota: the model works for this visit, and is downloaded again next time
    }
  }
  return { blob, stored };
}
