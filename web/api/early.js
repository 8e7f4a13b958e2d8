// The two workers, started by the page's first script: index.html loads this module on its own,
// before app.js, whose imports are four modules deep (the workers would otherwise start only
// after all of them had loaded: ~130 ms later on a warm reload). start.js and embedder.js adopt
// them; the events each sends before then are kept and handed over, in order, by adopt(). Then
// the page loads SQLite only to run its first calls once (see the end).

const kept = new Map(); // worker -> {events, keep} until adopted

function startEarly(url, options) {
  const worker = new Worker(url, options);
  const events = [];
  const keep = (event) => {
    event.preventDefault?.(); // an early error is reported when adopted, not as an uncaught one
    events.push(event);
  };
  worker.addEventListener('message', keep);
  worker.addEventListener('error', keep);
  kept.set(worker, { events, keep });
  return worker;
}

/**
 * Call once the worker's own listeners are attached: stops keeping its events and replays what
 * was kept. A worker started later (a restart) was never kept: it comes back as it is.
 */
export function adopt(worker) {
  const early = kept.get(worker);
  if (!early) return worker;
  kept.delete(worker);
  worker.removeEventListener('message', early.keep);
  worker.removeEventListener('error', early.keep);
  for (const event of early.events) {
    worker.dispatchEvent(event.type === 'message'
      ? new MessageEvent('message', { data: event.data })
      : new ErrorEvent('error', { message: event.message, filename: event.filename, lineno: event.lineno }));
  }
  return worker;
}

// opfs-disable: sqlite3.mjs reads this flag from its worker's own URL and then does not install
// its "opfs" VFS, which would start a proxy worker we do not ship (one 404) and hold SQLite's
// start until that failed (~0.3-0.5 s of a warm reload). The library uses opfs-sahpool, which
// needs no proxy. The service worker serves worker scripts whatever their query.
export const retrievalWorker = startEarly('retrieval-worker.js?opfs-disable', { type: 'module', name: 'readingroom-retrieval' });

// The page's WebGPU switch (workers/embed-webgpu.js): `?webgpu=software` lets ingestion use even a
// software adapter (tests), `?webgpu=off` never looks for one; by default only a hardware GPU is used.
const WEBGPU_SWITCH = new URLSearchParams(location.search).get('webgpu');
// `?queryworker=off`: ingestion shares the query session again (embed-worker.js QUERY_WORKER), to compare.
const QUERY_WORKER_OFF = new URLSearchParams(location.search).get('queryworker') === 'off';
/** The embedding worker's name, which carries those switches to it (embed-worker.js reads it). */
export const EMBEDDER_NAME = [
  'readingroom-embedder',
  ['software', 'off'].includes(WEBGPU_SWITCH) ? `webgpu=${WEBGPU_SWITCH}` : '',
  QUERY_WORKER_OFF ? 'queryWorker=off' : '',
].filter(Boolean).join(' ');
// The embedding worker loads its model as soon as its script runs; embedder.js's first spawn adopts it.
export const embedderWorker = startEarly('embed-worker.js', { type: 'module', name: EMBEDDER_NAME });

// The browser compiles a wasm function when it is first called, and shares compiled code between
// the page and its workers for the same wasm bytes. The worker's first calls into SQLite came on
// its start's critical path (~200-350 ms on a warm reload, its one thread also restoring Python);
// made here first, on the page's otherwise idle thread, the worker finds them compiled (~5-15 ms).
// The page keeps no SQLite of its own afterwards.
import('../sqlite-load.js').then(({ loadSqlite }) => loadSqlite()).then(() => {
  if (globalThis.sqlite3ApiBootstrap) globalThis.sqlite3ApiBootstrap.sqlite3 = undefined;
}).catch((err) => console.warn('Reading Room: compiling SQLite ahead failed (harmless):', err?.message ?? err));
